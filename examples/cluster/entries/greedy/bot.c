/* greedy: a Cluster bot that builds its own longest line and ignores the opponent.
 *
 * For each column and each colour in its hand it drops the pellet (on a copy of the board) and
 * scores the longest straight line through it, breaking ties by how many open windows of four
 * cells the pellet adds to, then by the column nearest the middle. It never rotates.
 *
 * Protocol: init message once, then one turn message per move; one reply line each, flushed.
 * Exits on end of input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCELLS 512
#define MAXCOLS 32
#define MAXPELLETS 1024

static int ncells, ncols, me;
static int nb[MAXCELLS][6];
static int tops[MAXCOLS][6];
static int pcell[MAXPELLETS], pcolour[MAXPELLETS], npellets;
static unsigned char board[MAXCELLS]; /* colour + 1, 0 empty */

static int rd(int *v) { return scanf("%d", v) == 1; }

static void need(int ok) {
    if (!ok) exit(0);
}

static int run_through(int x, int axis) {
    int v = board[x], run = 1;
    for (int d = axis; d <= axis + 3; d += 3) {
        int n = nb[x][d];
        while (n >= 0 && board[n] == v) {
            run++;
            n = nb[n][d];
        }
    }
    return run;
}

/* Sum over the windows of four cells through x, along the three axes, holding no other colour:
 * the square of how many of x's colour each holds. */
static int potential(int x) {
    int v = board[x], total = 0;
    for (int axis = 0; axis < 3; axis++) {
        int cells[7], n = 0, back[3], nback = 0;
        for (int c = nb[x][axis + 3]; c >= 0 && nback < 3; c = nb[c][axis + 3]) back[nback++] = c;
        for (int i = nback - 1; i >= 0; i--) cells[n++] = back[i];
        cells[n++] = x;
        for (int c = nb[x][axis]; c >= 0 && n < 7; c = nb[c][axis]) {
            cells[n++] = c;
            if (n - nback - 1 == 3) break;
        }
        for (int start = 0; start + 4 <= n; start++) {
            int own = 0, open = 1;
            for (int j = 0; j < 4; j++) {
                int c = board[cells[start + j]];
                if (c == v) own++;
                else if (c) open = 0;
            }
            if (open) total += own * own;
        }
    }
    return total;
}

static int landing(int g, int col) {
    int c = tops[col][g];
    if (board[c]) return -1;
    while (nb[c][g] >= 0 && !board[nb[c][g]]) c = nb[c][g];
    return c;
}

int main(void) {
    int n;
    need(rd(&ncells));
    if (ncells <= 0 || ncells > MAXCELLS) return 0;
    for (int i = 0; i < ncells; i++) {
        int idx;
        need(rd(&idx));
        for (int d = 0; d < 6; d++) need(rd(&nb[i][d]));
    }
    need(rd(&ncols));
    if (ncols <= 0 || ncols > MAXCOLS) return 0;
    for (int i = 0; i < ncols; i++) {
        int idx;
        need(rd(&idx));
        for (int d = 0; d < 6; d++) need(rd(&tops[i][d]));
    }
    for (int who = 0; who < 2; who++) {
        need(rd(&n));
        for (int i = 0; i < n; i++) {
            int colour, amount;
            need(rd(&colour) && rd(&amount));
            if (who == 0 && i == 0) me = colour % 2;
        }
    }
    for (;;) {
        int g, k, col, top, m, hand[8], nhand = 0;
        if (!rd(&g)) return 0;
        need(rd(&k));
        for (int i = 0; i < k; i++) need(rd(&col) && rd(&top));
        need(rd(&n));
        for (int i = 0; i < n; i++) {
            int p, cell, colour, mine;
            need(rd(&p) && rd(&cell) && rd(&colour) && rd(&mine));
            if (p >= 0 && p < MAXPELLETS) {
                pcell[p] = cell;
                pcolour[p] = colour;
                if (p + 1 > npellets) npellets = p + 1;
            }
        }
        need(rd(&m));
        for (int i = 0; i < m; i++) {
            int p, cell;
            need(rd(&p) && rd(&cell));
            if (p >= 0 && p < MAXPELLETS) pcell[p] = cell;
        }
        need(rd(&n));
        for (int i = 0; i < n; i++) {
            int colour;
            need(rd(&colour));
            if (nhand < 8) hand[nhand++] = colour;
        }
        memset(board, 0, sizeof board);
        for (int p = 0; p < npellets; p++)
            if (pcell[p] >= 0 && pcell[p] < ncells) board[pcell[p]] = (unsigned char)(pcolour[p] + 1);

        long best = -1;
        char move[64];
        snprintf(move, sizeof move, "ROTATE 1"); /* only if nothing can be placed */
        for (int h = 0; h < nhand; h++) {
            int colour = hand[h];
            if (colour < 0 || colour > 3 || colour % 2 != me) continue;
            for (int i = 0; i < ncols; i++) {
                int x = landing(g, i);
                if (x < 0) continue;
                board[x] = (unsigned char)(colour + 1);
                int run = 0;
                for (int a = 0; a < 3; a++) {
                    int r = run_through(x, a);
                    if (r > run) run = r;
                }
                long score = (long)run * 100000 + (long)potential(x) * 100 + (50 - abs(i - ncols / 2));
                board[x] = 0;
                if (score > best) {
                    best = score;
                    snprintf(move, sizeof move, "PLACE %d %d", i, colour);
                }
            }
        }
        printf("%s\n", move);
        fflush(stdout);
    }
}
