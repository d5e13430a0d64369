/* greedy: one-move lookahead. Each neighbouring cell is scored by what the move gains with the
 * real enclosure rule (cells won, plus cells taken from the enemy). Ties go toward the nearest
 * unclaimed cell, then to cells that lie alongside its own territory (so it sweeps the board in
 * strips), then toward open space. Suffocating the enemy beats everything; a move after which the
 * enemy could enclose it with its very next move comes last. */
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

/* The enclosure rule for `who`: every 4-connected group of cells `who` does not own, except the
 * largest, becomes `who`'s (ties keep the group with the other head, else the first in row-major
 * order). Returns the number of cells filled; *killed is set when the other head was filled. */
static int enclose(State *s, int who, int *killed)
{
    short label[N], queue[N];
    int size[N + 1], ngroups = 0;
    int other = s->head[3 - who];
    *killed = 0;
    memset(label, 0, sizeof label);
    for (int i = 0; i < N; i++) {
        if (label[i] || s->cell[i] == who)
            continue;
        int qh = 0, qt = 0;
        ngroups++;
        label[i] = (short)ngroups;
        queue[qt++] = (short)i;
        while (qh < qt) {
            int c = queue[qh++];
            for (int d = 0; d < 4; d++) {
                int n = step(c, d);
                if (n >= 0 && !label[n] && s->cell[n] != who) {
                    label[n] = (short)ngroups;
                    queue[qt++] = (short)n;
                }
            }
        }
        size[ngroups] = qt;
    }
    if (ngroups <= 1)
        return 0;
    int keep = 1;
    for (int g = 2; g <= ngroups; g++)
        if (size[g] > size[keep] || (size[g] == size[keep] && g == label[other]))
            keep = g;
    int filled = 0;
    for (int i = 0; i < N; i++)
        if (label[i] && label[i] != keep) {
            s->cell[i] = (unsigned char)who;
            filled++;
        }
    *killed = label[other] != keep;
    return filled;
}

/* Plays one move of `who` in direction d. Returns the cells `who` gained, or -1 for a no-op
 * (off the board or onto the other head). *killed as for enclose(). */
static int play(State *s, int who, int d, int *killed)
{
    int n = step(s->head[who], d);
    *killed = 0;
    if (n < 0 || n == s->head[3 - who])
        return -1;
    int gain = s->cell[n] != who;
    s->cell[n] = (unsigned char)who;
    s->head[who] = n;
    if (gain)
        gain += enclose(s, who, killed);
    return gain;
}

/* Distance from cell i to the nearest free ('.') cell through cells other than the enemy head,
 * or N when there is none. */
static int distance_to_free(const State *s, int i)
{
    short dist[N], queue[N];
    int qh = 0, qt = 0;
    if (s->cell[i] == FREE)
        return 0;
    memset(dist, -1, sizeof dist);
    dist[i] = 0;
    queue[qt++] = (short)i;
    while (qh < qt) {
        int c = queue[qh++];
        for (int d = 0; d < 4; d++) {
            int n = step(c, d);
            if (n < 0 || dist[n] >= 0 || n == s->head[THEIRS])
                continue;
            dist[n] = (short)(dist[c] + 1);
            if (s->cell[n] == FREE)
                return dist[n];
            queue[qt++] = (short)n;
        }
    }
    return N;
}

/* Cells within two steps of i that are not ours: a measure of open space. */
static int openness(const State *s, int i)
{
    int n = 0, x = i % W, y = i / W;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) {
            int xx = x + dx, yy = y + dy;
            if (abs(dx) + abs(dy) <= 2 && xx >= 0 && xx < W && yy >= 0 && yy < H &&
                s->cell[yy * W + xx] != MINE)
                n++;
        }
    return n;
}

/* After our move: can the enemy enclose our head with its next move? */
static int punishable(const State *s)
{
    for (int d = 0; d < 4; d++) {
        State t = *s;
        int killed;
        play(&t, THEIRS, d, &killed);
        if (killed)
            return 1;
    }
    return 0;
}

int bot(int board[H][W], char player)
{
    State s;
    read_board(board, player, &s);
    int theirs_before = 0;
    for (int i = 0; i < N; i++)
        theirs_before += s.cell[i] == THEIRS;

    long best_score = -1000000;
    int best = 0;
    for (int d = 0; d < 4; d++) {
        State t = s;
        int killed;
        int gain = play(&t, MINE, d, &killed);
        if (gain < 0)
            continue;
        if (killed)
            return MOVES[d];
        int theirs_after = 0;
        for (int i = 0; i < N; i++)
            theirs_after += t.cell[i] == THEIRS;
        long score = (long)(gain + theirs_before - theirs_after) * 100000;
        score -= distance_to_free(&t, t.head[MINE]) * 100;
        int beside = 0; /* own cells alongside the new head, not counting where it came from */
        for (int e = 0; e < 4; e++) {
            int m = step(t.head[MINE], e);
            if (m >= 0 && m != s.head[MINE] && s.cell[m] == MINE)
                beside++;
        }
        score += beside * 1000;
        score += openness(&s, t.head[MINE]);
        if (punishable(&t))
            score -= 100000000L;
        if (score > best_score) {
            best_score = score;
            best = d;
        }
    }
    return MOVES[best];
}

char *bot_name = "Greedy";
