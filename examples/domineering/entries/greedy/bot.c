/* greedy: a Domineering bot that looks one move ahead.
 *
 * For every domino it could place it counts, on the board after that move, its own places minus
 * the opponent's, and plays the best (the first in row-major order among equals). It keeps its
 * bomb until no domino fits, then explodes it on the usable square that scores best the same way.
 *
 * Protocol: started afresh for every move; reads one line of numbers: the orientation
 * (1 horizontal, 2 vertical), the 169 cells row by row (0 empty, 1 horizontal domino,
 * 2 vertical) and its bombs left; writes "type row col" and exits.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 13
#define FULL ((1u << N) - 1)

static unsigned freeb[N]; /* bit c of row r: cell (r, c) is empty */
static char cell[N][N + 1]; /* the cells as digits: '0' empty, '1' horizontal, '2' vertical */

static int horizontal(const unsigned *f) {
    int n = 0;
    for (int r = 0; r < N; r++) n += __builtin_popcount(f[r] & (f[r] >> 1));
    return n;
}

static int vertical(const unsigned *f) {
    int n = 0;
    for (int r = 0; r + 1 < N; r++) n += __builtin_popcount(f[r] & f[r + 1]);
    return n;
}

static int score(const unsigned *f, int me) {
    return me == 1 ? horizontal(f) - vertical(f) : vertical(f) - horizontal(f);
}

/* A domino lies across the border of the square at (r, c). Runs of 1s in a row (2s in a column)
 * are whole dominoes end to end, so a cell's partner follows from its run's start. */
static int crossed(int r0, int c0) {
    for (int r = 0; r < N; r++) {
        for (int c = 0; c < N; c++) {
            if (cell[r][c] == '1') { /* (r, c) starts a horizontal domino */
                int in1 = r >= r0 && r < r0 + 5 && c >= c0 && c < c0 + 5;
                int in2 = r >= r0 && r < r0 + 5 && c + 1 >= c0 && c + 1 < c0 + 5;
                if (in1 != in2) return 1;
                c++;
            }
        }
    }
    for (int c = 0; c < N; c++) {
        for (int r = 0; r < N; r++) {
            if (cell[r][c] == '2') {
                int in1 = r >= r0 && r < r0 + 5 && c >= c0 && c < c0 + 5;
                int in2 = r + 1 >= r0 && r + 1 < r0 + 5 && c >= c0 && c < c0 + 5;
                if (in1 != in2) return 1;
                r++;
            }
        }
    }
    return 0;
}

int main(void) {
    int me, bombs, value;
    if (scanf("%d", &me) != 1) return 0;
    for (int r = 0; r < N; r++) {
        for (int c = 0; c < N; c++) {
            if (scanf("%d", &value) != 1 || value < 0 || value > 2) return 0;
            cell[r][c] = (char)('0' + value);
            if (value == 0) freeb[r] |= 1u << c;
        }
    }
    if (scanf("%d", &bombs) != 1) return 0;
    int dr = me == 1 ? 0 : 1, dc = me == 1 ? 1 : 0;
    int best = -1000000, type = 0, br = 0, bc = 0;
    unsigned f[N];
    for (int r = 0; r + dr < N; r++) {
        for (int c = 0; c + dc < N; c++) {
            if (!(freeb[r] >> c & 1) || !(freeb[r + dr] >> (c + dc) & 1)) continue;
            for (int i = 0; i < N; i++) f[i] = freeb[i];
            f[r] &= ~(1u << c);
            f[r + dr] &= ~(1u << (c + dc));
            int s = score(f, me);
            if (s > best) best = s, type = 1, br = r, bc = c;
        }
    }
    if (!type && bombs) {
        for (int r = 0; r + 5 <= N; r++) {
            for (int c = 0; c + 5 <= N; c++) {
                if (crossed(r, c)) continue;
                for (int i = 0; i < N; i++) f[i] = freeb[i] | (i >= r && i < r + 5 ? 31u << c : 0);
                int s = score(f, me);
                if (s > best) best = s, type = 2, br = r, bc = c;
            }
        }
    }
    if (!type) type = 1; /* no legal move: the game is lost already */
    printf("%d %d %d\n", type, br, bc);
    fflush(stdout);
    return 0;
}
