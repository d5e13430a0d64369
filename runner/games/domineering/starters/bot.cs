// The first legal move: the first domino that fits (row-major), else the bomb on the first square
// no domino crosses (a run of 1s in a row, 2s in a column, pairs up from its start).
using System;
using System.Linq;

class Bot {
    static int[] v;
    static int At(int r, int c) { return r < 0 || r > 12 || c < 0 || c > 12 ? -1 : v[1 + r * 13 + c]; }
    static bool First(int r, int c, int dr, int dc) {
        int n = 0;
        while (At(r - (n + 1) * dr, c - (n + 1) * dc) == At(r, c)) n++;
        return n % 2 == 0;
    }
    static void Main() {
        v = Console.In.ReadToEnd().Split((char[])null, StringSplitOptions.RemoveEmptyEntries).Select(int.Parse).ToArray();
        int o = v[0], bombs = v[170], dr = o == 1 ? 0 : 1, dc = o == 1 ? 1 : 0;
        for (int r = 0; r < 13; r++) for (int c = 0; c < 13; c++)
            if (At(r, c) == 0 && At(r + dr, c + dc) == 0) { Console.WriteLine("1 " + r + " " + c); return; }
        for (int r = 0; r < 9 && bombs > 0; r++) for (int c = 0; c < 9; c++) {
            bool crossed = false;
            for (int i = 0; i < 5; i++)
                crossed |= (At(r + i, c) == 1 && !First(r + i, c, 0, 1)) || (At(r + i, c + 4) == 1 && First(r + i, c + 4, 0, 1))
                    || (At(r, c + i) == 2 && !First(r, c + i, 1, 0)) || (At(r + 4, c + i) == 2 && First(r + 4, c + i, 1, 0));
            if (!crossed) { Console.WriteLine("2 " + r + " " + c); return; }
        }
        Console.WriteLine("1 0 0");
    }
}
