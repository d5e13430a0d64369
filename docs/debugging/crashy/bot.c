/* crashy: the bot of docs/debugging.md's worked example. It heads for open space; when the enemy's
 * head comes near its own in the opening, it steps to the free neighbour farthest from its own
 * cells, to spread out. It has a bug: the list it collects its cells in holds 34, and once it owns
 * a 35th, spread_step() returns NULL, which bot() follows (SIGSEGV). It shows only when the
 * enemy's head comes near after that, which the built-in bot of the check stage never does. */
#include <stddef.h>
#include <stdlib.h>

#define W 32
#define H 16
#define OPENING 64 /* it spreads out only in the opening: later the board is too crowded */
#define NEAR 3      /* steps between the heads that count as near */
#define ROOM 34     /* "it never owns more than 34 cells when it needs this": wrong */

struct step {
    int dx, dy;
    char move;
};

static const struct step STEPS[4] = {{-1, 0, 'L'}, {1, 0, 'R'}, {0, -1, 'U'}, {0, 1, 'D'}};

static int free_at(int board[H][W], int x, int y)
{
    return x >= 0 && x < W && y >= 0 && y < H && board[y][x] == '.';
}

/* Where `me`'s head is, and whether the enemy's head is within NEAR steps of it. */
static int enemy_near(int board[H][W], char me, int *hx, int *hy)
{
    char head = me == 'X' ? '*' : '@', theirs = me == 'X' ? '@' : '*';
    int ex = -W, ey = -H;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (board[y][x] == head) {
                *hx = x;
                *hy = y;
            }
            if (board[y][x] == theirs) {
                ex = x;
                ey = y;
            }
        }
    return abs(ex - *hx) + abs(ey - *hy) <= NEAR;
}

/* The step to the free neighbour with the most free neighbours of its own. */
static const struct step *open_step(int board[H][W], int hx, int hy)
{
    const struct step *best = &STEPS[0];
    int most = -1;
    for (int d = 0; d < 4; d++) {
        int x = hx + STEPS[d].dx, y = hy + STEPS[d].dy, room = 0;
        if (!free_at(board, x, y))
            continue;
        for (int e = 0; e < 4; e++)
            room += free_at(board, x + STEPS[e].dx, y + STEPS[e].dy);
        if (room > most) {
            most = room;
            best = &STEPS[d];
        }
    }
    return best;
}

/* The step to the free neighbour farthest from every cell `me` owns (listed in `owned`); NULL
 * when they do not fit in `room`. */
static const struct step *spread_step(int board[H][W], char me, int hx, int hy, int owned[][2],
                                      int room)
{
    char head = me == 'X' ? '*' : '@';
    int n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            if (board[y][x] != me && board[y][x] != head)
                continue;
            if (n == room)
                return NULL;
            owned[n][0] = x;
            owned[n][1] = y;
            n++;
        }
    const struct step *best = &STEPS[0];
    int farthest = -1;
    for (int d = 0; d < 4; d++) {
        int x = hx + STEPS[d].dx, y = hy + STEPS[d].dy, nearest = W + H;
        if (!free_at(board, x, y))
            continue;
        for (int i = 0; i < n; i++) {
            int distance = abs(owned[i][0] - x) + abs(owned[i][1] - y);
            if (distance < nearest)
                nearest = distance;
        }
        if (nearest > farthest) {
            farthest = nearest;
            best = &STEPS[d];
        }
    }
    return best;
}

/* How many cells `me` owns. */
static int cells_of(int board[H][W], char me)
{
    char head = me == 'X' ? '*' : '@';
    int n = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            n += board[y][x] == me || board[y][x] == head;
    return n;
}

int bot(int board[H][W], char player)
{
    int hx = 0, hy = 0, owned[ROOM][2];
    int near = enemy_near(board, player, &hx, &hy);
    if (!near || cells_of(board, player) >= OPENING)
        return open_step(board, hx, hy)->move;
    const struct step *step = spread_step(board, player, hx, hy, owned, ROOM);
    return step->move;
}

char *bot_name = "Crashy";
