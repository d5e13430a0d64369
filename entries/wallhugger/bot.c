/* wallhugger: follows the board edge around, then spirals inward.
 *
 * No memory between calls: each move goes to the neighbouring cell it does not own yet that has
 * the most blocked sides (board edge or its own territory), which traces the edge and then each
 * inner ring in turn. When every neighbour is already its own, it walks to the nearest cell it
 * does not own. */
#include <stdlib.h>
#include <string.h>

#define W 32
#define H 16
#define N (W * H)

/* Cell owners as the bot sees them; heads are tracked separately (a head is its owner's cell). */
enum { FREE = 0, MINE = 1, THEIRS = 2 };

static const int DX[4] = {-1, 1, 0, 0};
static const int DY[4] = {0, 0, -1, 1};
static const char MOVES[4] = {'L', 'R', 'U', 'D'};

typedef struct {
    unsigned char cell[N];
    int head[3]; /* head[MINE], head[THEIRS] as y * W + x */
} State;

static void read_board(int board[H][W], char player, State *s)
{
    int mine = player, theirs = player == 'X' ? 'O' : 'X';
    int my_head = player == 'X' ? '*' : '@', their_head = player == 'X' ? '@' : '*';
    s->head[0] = s->head[MINE] = s->head[THEIRS] = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int c = board[y][x], i = y * W + x;
            s->cell[i] = FREE;
            if (c == mine || c == my_head)
                s->cell[i] = MINE;
            else if (c == theirs || c == their_head)
                s->cell[i] = THEIRS;
            if (c == my_head)
                s->head[MINE] = i;
            if (c == their_head)
                s->head[THEIRS] = i;
        }
}

/* The cell one step from i in direction d, or -1 off the board. */
static int step(int i, int d)
{
    int x = i % W + DX[d], y = i / W + DY[d];
    if (x < 0 || x >= W || y < 0 || y >= H)
        return -1;
    return y * W + x;
}


/* How many of the cell's four sides are the board edge or `who`'s territory. */
static int blocked_sides(const State *s, int i)
{
    int n = 0;
    for (int d = 0; d < 4; d++) {
        int j = step(i, d);
        if (j < 0 || s->cell[j] == MINE)
            n++;
    }
    return n;
}

/* First move of a shortest path from the head to the nearest cell not owned, or -1. */
static int toward_unowned(const State *s)
{
    short first[N], queue[N];
    int qh = 0, qt = 0;
    memset(first, -1, sizeof first);
    first[s->head[MINE]] = 4;
    queue[qt++] = (short)s->head[MINE];
    while (qh < qt) {
        int c = queue[qh++];
        for (int d = 0; d < 4; d++) {
            int n = step(c, d);
            if (n < 0 || first[n] >= 0 || n == s->head[THEIRS])
                continue;
            first[n] = (short)(c == s->head[MINE] ? d : first[c]);
            if (s->cell[n] != MINE)
                return first[n];
            queue[qt++] = (short)n;
        }
    }
    return -1;
}

int bot(int board[H][W], char player)
{
    State s;
    read_board(board, player, &s);

    int best = -1, best_blocked = -1;
    for (int d = 0; d < 4; d++) {
        int n = step(s.head[MINE], d);
        if (n < 0 || n == s.head[THEIRS] || s.cell[n] == MINE)
            continue;
        int b = blocked_sides(&s, n);
        if (b > best_blocked) {
            best_blocked = b;
            best = d;
        }
    }
    if (best < 0)
        best = toward_unowned(&s);
    if (best < 0)
        best = 0;
    return MOVES[best];
}

char *bot_name = "Wall Hugger";
