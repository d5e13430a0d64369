/* The in-process baseline host for Snakes: no isolation at all, the physical limit of a season.
 *
 *     snakes_host [--moves] [--seed N] bot0.so bot1.so ...
 *
 * dlopen()s every bot's shared object and plays the double round-robin in this one process, on
 * one core: every ordered pair (i, j), i != j, once, i as X and j as O, in that order. The rules
 * are runner/games/snakes/rules.py's (runner/games/snakes/rules.md): a 32 x 16 board, X from (0, 0), O
 * from (31, 15), 1024 turns of X then O; a move off the board or onto the enemy head is a no-op;
 * after every move the mover's enclosures are filled (every group of cells it does not own but the
 * largest; ties keep the group holding the enemy head, else the first in row-major order); a
 * filled enemy head ends the game as the encloser's win; after 2048 moves more cells wins. A reply
 * that is not 'L', 'R', 'U' or 'D' loses the game (invalid_move). Snakes' start is fixed, so the
 * seed is only echoed: the koth host derives it, the rules never read it.
 *
 * One line per game on stdout:
 *     game <i> <j> <termination> <x cells> <o cells> <x points> <o points> [<moves>]
 * then one line per bot, `points <i> <total>`, and `play_s <seconds>` (the games only, no dlopen).
 * The bot is handed a copy of the board each move, as the koth host's worker does.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define W 32
#define H 16
#define N (W * H)
#define MAX_MOVES 2048

typedef int (*bot_fn)(int board[H][W], char player);

static const char TERRITORY[2] = {'X', 'O'};
static const char HEADS[2] = {'*', '@'};

typedef struct {
    unsigned char owner[N]; /* 0 free, 1 X, 2 O */
    int board[H][W];        /* what the bots see */
    int head[2];
} Game;

static int step(int i, char move)
{
    int x = i % W, y = i / W;
    switch (move) {
    case 'L': x--; break;
    case 'R': x++; break;
    case 'U': y--; break;
    case 'D': y++; break;
    default: return -2;
    }
    if (x < 0 || x >= W || y < 0 || y >= H)
        return -1;
    return y * W + x;
}

/* Fill the enclosures of `seat` (owner value seat + 1). Returns 1 when the enemy head was filled. */
static int enclose(Game *g, int seat)
{
    static short label[N], queue[N];
    int size[N + 1], groups = 0, who = seat + 1, enemy_head = g->head[1 - seat];
    memset(label, 0, sizeof label);
    for (int i = 0; i < N; i++) {
        if (label[i] || g->owner[i] == who)
            continue;
        int qh = 0, qt = 0;
        label[i] = (short)++groups;
        queue[qt++] = (short)i;
        while (qh < qt) {
            int c = queue[qh++], x = c % W;
            int next[4] = {x > 0 ? c - 1 : -1, x < W - 1 ? c + 1 : -1, c >= W ? c - W : -1,
                           c < N - W ? c + W : -1};
            for (int d = 0; d < 4; d++) {
                int n = next[d];
                if (n >= 0 && !label[n] && g->owner[n] != who) {
                    label[n] = (short)groups;
                    queue[qt++] = (short)n;
                }
            }
        }
        size[groups] = qt;
    }
    if (groups <= 1)
        return 0;
    int keep = 1;
    for (int k = 2; k <= groups; k++)
        if (size[k] > size[keep] || (size[k] == size[keep] && k == label[enemy_head]))
            keep = k;
    for (int i = 0; i < N; i++)
        if (label[i] && label[i] != keep) {
            g->owner[i] = (unsigned char)who;
            if (i != enemy_head) /* the dead head's cell is the encloser's but stays drawn */
                g->board[i / W][i % W] = TERRITORY[seat];
        }
    return label[enemy_head] != keep;
}

/* Plays one game; fills the outcome. `moves` (MAX_MOVES + 1 bytes) gets the move list. */
static const char *play(bot_fn bots[2], int cells[2], double points[2], char *moves)
{
    Game g;
    int copy[H][W];
    memset(&g, 0, sizeof g);
    for (int i = 0; i < N; i++)
        g.board[i / W][i % W] = '.';
    g.head[0] = 0;
    g.head[1] = N - 1;
    g.owner[0] = 1;
    g.owner[N - 1] = 2;
    g.board[0][0] = '*';
    g.board[H - 1][W - 1] = '@';
    const char *termination = "normal";
    int played = 0, winner = -1;
    for (; played < MAX_MOVES; played++) {
        int seat = played % 2;
        memcpy(copy, g.board, sizeof copy);
        int reply = bots[seat](copy, TERRITORY[seat]);
        int target = reply > 0 && reply < 128 ? step(g.head[seat], (char)reply) : -2;
        if (target == -2) {
            termination = "invalid_move";
            winner = 1 - seat;
            break;
        }
        moves[played] = (char)reply;
        if (target < 0 || target == g.head[1 - seat])
            continue; /* a no-op */
        int from = g.head[seat];
        g.board[from / W][from % W] = TERRITORY[seat];
        g.board[target / W][target % W] = HEADS[seat];
        g.head[seat] = target;
        if (g.owner[target] != seat + 1) {
            g.owner[target] = (unsigned char)(seat + 1);
            if (enclose(&g, seat)) {
                termination = "suffocation";
                winner = seat;
                played++;
                break;
            }
        }
    }
    moves[played] = '\0';
    cells[0] = cells[1] = 0;
    for (int i = 0; i < N; i++)
        if (g.owner[i])
            cells[g.owner[i] - 1]++;
    if (winner < 0)
        winner = cells[0] > cells[1] ? 0 : cells[1] > cells[0] ? 1 : -1;
    points[0] = winner < 0 ? 0.5 : winner == 0 ? 1.0 : 0.0;
    points[1] = 1.0 - points[0];
    return termination;
}

int main(int argc, char **argv)
{
    int show_moves = 0, first = 1;
    long seed = 0;
    while (first < argc && argv[first][0] == '-') {
        if (strcmp(argv[first], "--moves") == 0)
            show_moves = 1;
        else if (strcmp(argv[first], "--seed") == 0 && first + 1 < argc)
            seed = strtol(argv[++first], NULL, 10);
        else {
            fprintf(stderr, "usage: %s [--moves] [--seed N] bot.so...\n", argv[0]);
            return 2;
        }
        first++;
    }
    int count = argc - first;
    bot_fn *bots = calloc((size_t)count + 1, sizeof *bots);
    double *totals = calloc((size_t)count + 1, sizeof *totals);
    for (int i = 0; i < count; i++) {
        void *handle = dlopen(argv[first + i], RTLD_NOW | RTLD_LOCAL);
        if (!handle || !(*(void **)&bots[i] = dlsym(handle, "bot"))) {
            fprintf(stderr, "%s: %s\n", argv[first + i], dlerror());
            return 1;
        }
    }
    static char moves[MAX_MOVES + 1];
    struct timespec began, ended;
    clock_gettime(CLOCK_MONOTONIC, &began);
    for (int i = 0; i < count; i++)
        for (int j = 0; j < count; j++) {
            if (i == j)
                continue;
            bot_fn pair[2] = {bots[i], bots[j]};
            int cells[2];
            double points[2];
            const char *termination = play(pair, cells, points, moves);
            totals[i] += points[0];
            totals[j] += points[1];
            printf("game %d %d %s %d %d %g %g%s%s\n", i, j, termination, cells[0], cells[1],
                   points[0], points[1], show_moves ? " " : "", show_moves ? moves : "");
        }
    clock_gettime(CLOCK_MONOTONIC, &ended);
    for (int i = 0; i < count; i++)
        printf("points %d %g\n", i, totals[i]);
    printf("seed %ld\n", seed);
    printf("play_s %.6f\n", (double)(ended.tv_sec - began.tv_sec) +
                                (double)(ended.tv_nsec - began.tv_nsec) / 1e9);
    return 0;
}
