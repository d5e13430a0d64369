using System;

// The first free tile beside the head (up, right, down, left), else up.
public static class Bot {
    public static void Main() {
        string[] header = Console.ReadLine().Split((char[])null, StringSplitOptions.RemoveEmptyEntries);
        int w = int.Parse(header[0]), h = int.Parse(header[1]);
        char me = (char)(64 + int.Parse(header[3]));
        string arrows = "^>v<";
        int[] dx = {0, 1, 0, -1}, dy = {-1, 0, 1, 0};
        string[] rows = new string[h];
        for (;;) {
            for (int y = 0; y < h; y++) {
                string row = Console.ReadLine();
                if (row == null) return;
                row = row.Trim();
                if (row.Length == 0) { y--; continue; }
                rows[y] = row;
            }
            int hx = 0, hy = 0;
            for (int y = 0; y < h; y++) if (rows[y].IndexOf(me) >= 0) { hx = rows[y].IndexOf(me); hy = y; }
            char answer = '^';
            for (int d = 0; d < 4; d++) {
                char tile = rows[(hy + dy[d] + h) % h][(hx + dx[d] + w) % w];
                if (tile == '.' || tile == '+') { answer = arrows[d]; break; }
            }
            Console.Out.Write(answer + "\n");
            Console.Out.Flush();
        }
    }
}
