import java.util.Scanner;

/** The first legal move: the first domino that fits (row-major), else the bomb on the first
 * square no domino crosses (a run of 1s in a row, 2s in a column, pairs up from its start). */
public class Bot {
    static int[][] b = new int[13][13];

    static int at(int r, int c) { return r < 0 || r > 12 || c < 0 || c > 12 ? -1 : b[r][c]; }

    static boolean first(int r, int c, int dr, int dc) {
        int n = 0;
        while (at(r - (n + 1) * dr, c - (n + 1) * dc) == at(r, c)) n++;
        return n % 2 == 0;
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        int o = in.nextInt();
        for (int r = 0; r < 13; r++) for (int c = 0; c < 13; c++) b[r][c] = in.nextInt();
        int bombs = in.nextInt(), dr = o == 1 ? 0 : 1, dc = o == 1 ? 1 : 0;
        for (int r = 0; r < 13; r++) for (int c = 0; c < 13; c++)
            if (at(r, c) == 0 && at(r + dr, c + dc) == 0) { System.out.println("1 " + r + " " + c); return; }
        for (int r = 0; r < 9 && bombs > 0; r++) for (int c = 0; c < 9; c++) {
            boolean crossed = false;
            for (int i = 0; i < 5; i++)
                crossed |= (at(r + i, c) == 1 && !first(r + i, c, 0, 1)) || (at(r + i, c + 4) == 1 && first(r + i, c + 4, 0, 1))
                    || (at(r, c + i) == 2 && !first(r, c + i, 1, 0)) || (at(r + 4, c + i) == 2 && first(r + 4, c + i, 1, 0));
            if (!crossed) { System.out.println("2 " + r + " " + c); return; }
        }
        System.out.println("1 0 0");
    }
}
