/* lookahead: the strongest example; it plans its own moves and the enemy's.
 *
 * Its plans: loops from its head (straight runs, L and U shapes back to its territory or the
 * edge), each walked move by move on a copy of the board with the real enclosure rule.
 *  - A sure kill - a loop (legs up to 16 cells) enclosing the enemy head so far from the loop's
 *    edge that the enemy cannot get out in time, or one cell of a thin enemy line whose taking
 *    does the same - wins the game and comes first.
 *  - Otherwise loops with legs up to 12 cells score the cells they win per move (enemy cells count
 *    double), at half value when the enemy could reach the loop and break it before it closes.
 * The enemy's plans, after each of its four moves: the same search from the enemy's side. A move
 * is refused if the enemy could then enclose it within two moves whatever it does, or has a sure
 * kill against it; among the others it takes the best own plan minus the best plan the move
 * leaves the enemy (the loops the enemy could close before it could get to them, such as a cut
 * through its own territory).
 *
 * Cells are kept as bitboards: one 32-bit word per row, so flood fills work a row at a time. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define W 32
#define H 16
#define N (W * H)

/* Whose cell: the bot's own or the enemy's. Heads are cells of their owner. */
enum { MINE = 0, THEIRS = 1 };

/* A set of cells: one 32-bit word per row, bit x is column x. */
typedef uint32_t Row;

typedef struct {
    Row own[2][H]; /* own[MINE], own[THEIRS] */
    int head[2];   /* y * W + x */
} Board;

static const int DX[4] = {-1, 1, 0, 0};
static const int DY[4] = {0, 0, -1, 1};
static const char MOVES[4] = {'L', 'R', 'U', 'D'};

static int bits(Row r)
{
    r = r - ((r >> 1) & 0x55555555u);
    r = (r & 0x33333333u) + ((r >> 2) & 0x33333333u);
    return (int)((((r + (r >> 4)) & 0x0f0f0f0fu) * 0x01010101u) >> 24);
}

static int has(const Row *set, int i)
{
    return (set[i / W] >> (i % W)) & 1;
}

static void put(Row *set, int i)
{
    set[i / W] |= (Row)1 << (i % W);
}

static int count(const Row *set)
{
    int n = 0;
    for (int y = 0; y < H; y++)
        n += bits(set[y]);
    return n;
}

/* The cell one step from i in direction d, or -1 off the board. */
static int step(int i, int d)
{
    int x = i % W + DX[d], y = i / W + DY[d];
    if (x < 0 || x >= W || y < 0 || y >= H)
        return -1;
    return y * W + x;
}

static void read_board(int board[H][W], char player, Board *b)
{
    int mine = player, theirs = player == 'X' ? 'O' : 'X';
    int my_head = player == 'X' ? '*' : '@', their_head = player == 'X' ? '@' : '*';
    memset(b, 0, sizeof *b);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int c = board[y][x], i = y * W + x;
            if (c == mine || c == my_head)
                put(b->own[MINE], i);
            else if (c == theirs || c == their_head)
                put(b->own[THEIRS], i);
            if (c == my_head)
                b->head[MINE] = i;
            if (c == their_head)
                b->head[THEIRS] = i;
        }
}

/* Grows `seed` along the runs of `open` within one row: a bit-parallel flood both ways. */
static Row spread_row(Row seed, Row open)
{
    Row g = seed & open, p = open;
    g |= p & (g << 1);  p &= p << 1;
    g |= p & (g << 2);  p &= p << 2;
    g |= p & (g << 4);  p &= p << 4;
    g |= p & (g << 8);  p &= p << 8;
    g |= p & (g << 16);
    p = open;
    g |= p & (g >> 1);  p &= p >> 1;
    g |= p & (g >> 2);  p &= p >> 2;
    g |= p & (g >> 4);  p &= p >> 4;
    g |= p & (g >> 8);  p &= p >> 8;
    g |= p & (g >> 16);
    return g;
}

/* Arcs of open cells (not `who`'s) on the ring of eight neighbours of cell i: returns a mask of
 * the edge neighbours (bit 0 up, 2 right, 4 down, 6 left) that start an arc. Taking cell i can
 * split the open cells into separate groups only if there are two arcs or more; otherwise they
 * stay connected around i. */
static unsigned arc_starts(const Board *b, int who, int i)
{
    int x = i % W, y = i / W;
    unsigned win[3]; /* 3x3 window of open cells, bit 0 = column x - 1 */
    for (int r = 0; r < 3; r++) {
        int yy = y - 1 + r;
        Row open = yy >= 0 && yy < H ? ~b->own[who][yy] : 0;
        win[r] = (unsigned)(x > 0 ? open >> (x - 1) : open << 1) & 7u;
    }
    /* the ring clockwise from the top: N NE E SE S SW W NW as bits 0..7 */
    unsigned ring = ((win[0] >> 1) & 1) | ((win[0] >> 2) & 1) << 1 | ((win[1] >> 2) & 1) << 2 |
                    ((win[2] >> 2) & 1) << 3 | ((win[2] >> 1) & 1) << 4 | (win[2] & 1) << 5 |
                    (win[1] & 1) << 6 | (win[0] & 1) << 7;
    unsigned rot1 = ((ring << 1) | (ring >> 7)) & 0xffu; /* bit k: ring bit k-1 */
    unsigned rot2 = ((ring << 2) | (ring >> 6)) & 0xffu; /* bit k: ring bit k-2 */
    /* an open edge neighbour starts an arc unless the previous edge reaches it via the corner */
    return ring & 0x55u & ~(rot1 & rot2);
}

static int may_split(const Board *b, int who, int i)
{
    return bits(arc_starts(b, who, i)) > 1;
}

/* One sweep down and up over rows lo..hi of a growing group (widening the span as it grows).
 * Returns whether the group grew. */
static int grow(const Row *open, Row *group, int *lo, int *hi)
{
    int changed = 0;
    for (int y = *lo; y <= *hi; y++) {
        Row v = group[y] | (y > 0 ? group[y - 1] : 0) | (y < H - 1 ? group[y + 1] : 0);
        v = spread_row(v, open[y]);
        if (v != group[y]) {
            group[y] = v;
            changed = 1;
        }
        if (y == *hi && v && *hi < H - 1)
            ++*hi;
    }
    for (int y = *hi; y >= *lo; y--) {
        Row v = group[y] | (y > 0 ? group[y - 1] : 0) | (y < H - 1 ? group[y + 1] : 0);
        v = spread_row(v, open[y]);
        if (v != group[y]) {
            group[y] = v;
            changed = 1;
        }
        if (y == *lo && v && *lo > 0)
            --*lo;
    }
    return changed;
}

static int first_cell(const Row *set)
{
    for (int y = 0; y < H; y++)
        if (set[y])
            return y * W + __builtin_ctz(set[y]);
    return N;
}

/* The enclosure rule for `who`, right after it took cell `taken`: every 4-connected group of cells
 * `who` does not own, except the largest, becomes `who`'s (a tie keeps the group holding the other
 * head, else the group whose first cell comes first in row-major order). Returns the number of
 * cells filled; *killed is set when the other head was filled.
 *
 * Before the move those cells were one group (the previous fill left only the largest), so every
 * group now touches `taken`: one flood from each arc of open cells around it finds them all. The
 * floods grow in turn, merging when they meet; once all but one have stopped growing, the last
 * one is simply everything else, so the big outside group is rarely flooded in full. */
static int enclose(Board *b, int who, int taken, int *killed)
{
    static const int ARC_DIR[4] = {2, 1, 3, 0}; /* ring edge bit 0,2,4,6 -> U R D L */
    Row open[H], group[4][H];
    int lo[4], hi[4], size[4], done[4], alive[4], ng = 0, total = 0;
    int other = b->head[1 - who];
    unsigned starts = arc_starts(b, who, taken);
    for (int y = 0; y < H; y++) {
        open[y] = ~b->own[who][y];
        total += bits(open[y]);
    }
    *killed = 0;
    for (int k = 0; k < 4; k++)
        if (starts & (1u << (2 * k))) {
            int n = step(taken, ARC_DIR[k]);
            memset(group[ng], 0, sizeof group[ng]);
            put(group[ng], n);
            lo[ng] = hi[ng] = n / W;
            done[ng] = 0;
            alive[ng] = 1;
            ng++;
        }
    if (ng <= 1)
        return 0;

    int growing = ng;
    while (growing > 1) {
        for (int i = 0; i < ng; i++) {
            if (!alive[i] || done[i])
                continue;
            if (!grow(open, group[i], &lo[i], &hi[i]))
                done[i] = 1;
            for (int j = 0; j < ng; j++) {
                if (j == i || !alive[j])
                    continue;
                Row meet = 0;
                for (int y = 0; y < H; y++)
                    meet |= group[i][y] & group[j][y];
                if (meet) { /* the same group reached from two arcs */
                    for (int y = 0; y < H; y++)
                        group[i][y] |= group[j][y];
                    lo[i] = lo[j] < lo[i] ? lo[j] : lo[i];
                    hi[i] = hi[j] > hi[i] ? hi[j] : hi[i];
                    done[i] = done[i] || done[j];
                    alive[j] = 0;
                }
            }
        }
        growing = 0;
        for (int i = 0; i < ng; i++)
            growing += alive[i] && !done[i];
    }

    /* Sizes: the one group still growing (if any) is whatever the finished ones are not. */
    int rest = total, last = -1, groups = 0;
    for (int i = 0; i < ng; i++)
        if (alive[i]) {
            groups++;
            if (done[i]) {
                size[i] = count(group[i]);
                rest -= size[i];
            } else
                last = i;
        }
    if (groups <= 1)
        return 0;
    if (last >= 0) {
        for (int y = 0; y < H; y++) {
            Row others = 0;
            for (int i = 0; i < ng; i++)
                if (alive[i] && i != last)
                    others |= group[i][y];
            group[last][y] = open[y] & ~others;
        }
        size[last] = rest;
    }
    int keep = -1;
    for (int i = 0; i < ng; i++) {
        if (!alive[i])
            continue;
        if (keep < 0 || size[i] > size[keep] ||
            (size[i] == size[keep] &&
             (has(group[i], other) ||
              (!has(group[keep], other) && first_cell(group[i]) < first_cell(group[keep])))))
            keep = i;
    }
    int n = 0;
    for (int y = 0; y < H; y++) {
        Row f = open[y] & ~group[keep][y];
        b->own[who][y] |= f;
        b->own[1 - who][y] &= ~f;
        n += bits(f);
    }
    *killed = n > 0 && has(b->own[who], other);
    return n;
}

/* Plays one move of `who` in direction d and then its enclosures. Returns 0 for a no-op (off the
 * board or onto the other head), else 1. *killed is set when the other head got enclosed. */
static int play(Board *b, int who, int d, int *killed)
{
    int n = step(b->head[who], d);
    *killed = 0;
    if (n < 0 || n == b->head[1 - who])
        return 0;
    b->head[who] = n;
    if (has(b->own[who], n))
        return 1;
    int split = may_split(b, who, n);
    put(b->own[who], n);
    b->own[1 - who][n / W] &= ~((Row)1 << (n % W));
    if (split)
        enclose(b, who, n, killed);
    return 1;
}

/* ---- Loops: the paths a bot considers drawing ----
 * A loop leaves the head, runs straight, may turn once or twice, and ends when it comes back to
 * the bot's own territory, reaches the board edge, or encloses the enemy. It is walked move by
 * move on a copy of the board with the real enclosure rule, so `end` is exactly the board the bot
 * would have if the enemy did nothing meanwhile. */

typedef struct {
    int first;     /* the loop's first move */
    int len;       /* its number of moves */
    int killed;    /* its last move encloses the enemy head */
    int room[4];   /* for each cell in Search.watch: the fewest steps from there to the loop */
    Row path[H];   /* the cells it walks on */
    Board end;     /* the board after it */
} Loop;

typedef struct Search Search;
struct Search {
    const Board *start;
    int run;     /* longest first and second leg */
    int max_len; /* longest loop worth walking; a visitor may lower it while the loops of one
                    first move are walked, and it is reset for the next first move */
    int watch[4]; /* up to four cells where the other head is or may be ...          */
    int nwatch;   /* ... and how many: Loop.room tells how far each is from the loop */
    int out_of_reach; /* only walk loops that a head at one of the watched cells at least could
                         not reach before they close: every cell of the loop at least as many
                         steps from it as the loop is long (it moves once less than the loop) */
    void (*visit)(Search *search, const Loop *loop);
    void *ctx;
};

/* Steps between two cells (a head can walk over anything but the other head). */
static int distance(int a, int b)
{
    return abs(a % W - b % W) + abs(a / W - b / W);
}

/* Walks on from `from` in direction d for up to `limit` moves, visiting every stopping point that
 * closes a loop, and branching into the two turns at each step while `turns` remain. `left_home`:
 * the walk has already left the bot's own territory (stepping back onto it closes the loop). */
static void walk(Search *s, const Loop *from, int left_home, int d, int limit, int turns)
{
    Loop at = *from;
    for (int k = 1; k <= limit && at.len < s->max_len; k++) {
        int n = step(at.end.head[MINE], d);
        if (n < 0 || n == at.end.head[THEIRS] || has(at.path, n))
            return;
        int reachable = s->nwatch > 0;
        for (int w = 0; w < s->nwatch; w++) {
            int dist = distance(n, s->watch[w]);
            at.room[w] = dist < at.room[w] ? dist : at.room[w];
            reachable = reachable && at.room[w] <= at.len;
        }
        if (s->out_of_reach && reachable)
            return;
        int was_mine = has(at.end.own[MINE], n), split = !was_mine && may_split(&at.end, MINE, n);
        at.end.head[MINE] = n;
        put(at.end.own[MINE], n);
        at.end.own[THEIRS][n / W] &= ~((Row)1 << (n % W));
        put(at.path, n);
        if (at.len++ == 0)
            at.first = d;
        if (split && enclose(&at.end, MINE, n, &at.killed) > 0 && at.killed) {
            s->visit(s, &at);
            return;
        }
        if (!was_mine)
            left_home = 1;
        else if (left_home) {
            s->visit(s, &at); /* back home: the loop is closed */
            return;
        }
        if (left_home && step(n, d) < 0)
            s->visit(s, &at); /* against the edge */
        if (turns > 0 && left_home)
            for (int p = 0; p < 2; p++) {
                int turn = d < 2 ? 2 + p : p;
                walk(s, &at, 1, turn, turns == 2 ? s->run : W, turns - 1);
            }
    }
}

/* Visits every loop from the head with legs up to `run` long (the last leg runs until it ends). */
static void search_loops(Search *s)
{
    Loop start;
    int max_len = s->max_len;
    memset(&start, 0, sizeof start);
    start.end = *s->start;
    for (int w = 0; w < 4; w++)
        start.room[w] = N;
    for (int d = 0; d < 4; d++) {
        s->max_len = max_len;
        walk(s, &start, 0, d, s->run, 2);
    }
}

/* Moves the head at `from` needs to step out of `region` (a set holding it), or N if it cannot.
 * Every cell can be walked on (walking onto enemy cells takes them), so this is the distance to
 * the nearest cell outside the region. */
static int escape_distance(const Row *region, int from)
{
    Row reach[H], next[H];
    memset(reach, 0, sizeof reach);
    put(reach, from);
    for (int dist = 1; dist < N; dist++) {
        int grew = 0, out = 0;
        for (int y = 0; y < H; y++) {
            Row v = reach[y] | (reach[y] << 1) | (reach[y] >> 1) | (y > 0 ? reach[y - 1] : 0) |
                    (y < H - 1 ? reach[y + 1] : 0);
            next[y] = v;
            out |= (v & ~region[y]) != 0;
            grew |= v != reach[y];
        }
        if (out)
            return dist;
        if (!grew)
            return N;
        memcpy(reach, next, sizeof reach);
    }
    return N;
}

/* The longest loop of `owner`'s that could be a sure kill of the head at `victim` (see
 * loop_escape): the cells within one step less than the loop's length of that head would all be
 * enclosed with it, and what is enclosed is less than half of the cells `owner` does not own. */
static int kill_reach(const Board *b, int owner, int victim)
{
    Row ball[H], open[H];
    int half = 0;
    for (int y = 0; y < H; y++) {
        open[y] = ~b->own[owner][y];
        half += bits(open[y]);
        ball[y] = 0;
    }
    half /= 2;
    put(ball, victim);
    for (int r = 0; r < N; r++) {
        int inside = 0;
        for (int y = 0; y < H; y++)
            inside += bits(ball[y] & open[y]);
        if (inside > half)
            return r;
        Row grown[H];
        for (int y = 0; y < H; y++)
            grown[y] = ball[y] | (ball[y] << 1) | (ball[y] >> 1) | (y > 0 ? ball[y - 1] : 0) |
                       (y < H - 1 ? ball[y + 1] : 0);
        memcpy(ball, grown, sizeof ball);
    }
    return N;
}

/* Moves the other head needs to get out of the loop before it closes. Walking takes every cell it
 * steps on, so it is out as soon as it takes a cell of the loop owner's that touches the cells
 * staying outside (the loop itself, or a thin part of the owner's old territory): one move less
 * than its distance to those outside cells. */
static int loop_escape(const Loop *loop, int from)
{
    return escape_distance(loop->end.own[MINE], from) - 1;
}

/* A sure kill by a single cut: a cell not ours whose taking encloses the enemy head (a thin part
 * of its line, say) that we can walk to before the enemy can get out. Returns the walk's length
 * (the distance to the cell) for the nearest such cell, or 0 if there is none; *target gets it. */
static int sure_cut(const Board *b, int *target)
{
    int best = 0;
    for (int c = 0; c < N; c++) {
        int dist = distance(b->head[MINE], c);
        if ((best && dist >= best) || has(b->own[MINE], c) || c == b->head[THEIRS] ||
            !may_split(b, MINE, c))
            continue;
        Board t = *b;
        int killed;
        put(t.own[MINE], c);
        t.own[THEIRS][c / W] &= ~((Row)1 << (c % W));
        if (!enclose(&t, MINE, c, &killed) || !killed)
            continue;
        if (escape_distance(t.own[MINE], b->head[THEIRS]) - 1 >= dist) {
            best = dist;
            *target = c;
        }
    }
    return best;
}

/* A sure kill: a loop that encloses the other head, which is too far from the loop's edge to get
 * out before the loop closes (the other side moves once between each two moves of the loop). */
static void find_sure_kill(Search *s, const Loop *loop)
{
    int *shortest = s->ctx;
    if (!loop->killed || loop_escape(loop, s->start->head[THEIRS]) < loop->len)
        return;
    if (!*shortest || loop->len < *shortest)
        *shortest = loop->len;
    s->max_len = loop->len - 1;
}

/* The board seen from the enemy's side. */
static void swap_sides(const Board *b, Board *swapped)
{
    memcpy(swapped->own[MINE], b->own[THEIRS], sizeof swapped->own[MINE]);
    memcpy(swapped->own[THEIRS], b->own[MINE], sizeof swapped->own[THEIRS]);
    swapped->head[MINE] = b->head[THEIRS];
    swapped->head[THEIRS] = b->head[MINE];
}

/* The length of the shortest sure kill the enemy has against us when it is its turn to move, or
 * 0 if it has none. (Found from its side: the board with the roles swapped.) */
static int enemy_sure_kill(const Board *b, int run)
{
    Board swapped;
    int shortest = 0;
    swap_sides(b, &swapped);
    int reach = kill_reach(b, THEIRS, b->head[MINE]);
    Search search = {.start = &swapped, .run = run, .max_len = reach < 4 * run ? reach : 4 * run,
                     .watch = {b->head[MINE]}, .nwatch = 1,
                     .out_of_reach = 1, .visit = find_sure_kill, .ctx = &shortest};
    search_loops(&search);
    return shortest;
}

/* Does the enemy, to move, have a sure kill against us: a loop, or a cut of one cell? */
static int enemy_can_kill(const Board *b, int run)
{
    Board swapped;
    int target;
    swap_sides(b, &swapped);
    return sure_cut(&swapped, &target) || enemy_sure_kill(b, run);
}

/* Can the enemy, moving next, enclose our head within `moves` of its moves whatever we do in
 * between? (A move off the board or onto a head is allowed: it stands still.) */
static int doomed(const Board *b, int moves)
{
    for (int e = 0; e < 4; e++) {
        Board t = *b;
        int killed, escaped = 0;
        if (!play(&t, THEIRS, e, &killed))
            continue;
        if (killed)
            return 1;
        if (moves <= 1)
            continue;
        for (int m = 0; m < 4 && !escaped; m++) {
            Board u = t;
            play(&u, MINE, m, &killed);
            escaped = killed || !doomed(&u, moves - 1);
        }
        if (!escaped)
            return 1;
    }
    return 0;
}

#define BOX_RUN 12       /* longest leg of a territory loop */
#define BOX_VALUE 120    /* a loop is worth at most this (keeps loops short; see the boxer) */
#define HUNT_RUN 16      /* longest leg of a hunting loop */
#define REACHABLE 0.5    /* weight of a loop the enemy could reach before it closes */
#define ENEMY_WEIGHT 1.0 /* weight of the best plan a move leaves the enemy */

typedef struct {
    int mine, theirs; /* cell counts (of the side drawing the loops) before any loop */
    double best[4];   /* best score of the loops starting with each move */
    int sure_len;     /* shortest sure kill found, 0 if none */
    int sure_move;
} Plans;

/* Cells swung per move: cells won plus cells taken from the other side, capped. */
static double swing_rate(const Plans *plans, const Loop *loop)
{
    int swing = count(loop->end.own[MINE]) - plans->mine +
                plans->theirs - count(loop->end.own[THEIRS]);
    return (double)(swing < BOX_VALUE ? swing : BOX_VALUE) / loop->len;
}

static void record(Search *s, Plans *plans, int first, double score)
{
    if (score > plans->best[first]) {
        plans->best[first] = score;
        int longest = (int)(BOX_VALUE / score); /* a longer loop cannot beat it */
        if (longest < s->max_len)
            s->max_len = longest;
    }
}

/* Our loops, watching the enemy head: full value only if it could not reach the loop before
 * it closes even with a move to spare. */
static void score_own(Search *s, const Loop *loop)
{
    Plans *plans = s->ctx;
    if (loop->killed)
        return; /* left to the hunt */
    double rate = swing_rate(plans, loop);
    record(s, plans, loop->first, loop->room[0] > loop->len ? rate : rate * REACHABLE);
}

/* Sure kills (the hunting search walks only loops out of the enemy's reach). */
static void score_hunt(Search *s, const Loop *loop)
{
    Plans *plans = s->ctx;
    if (!loop->killed || loop_escape(loop, s->start->head[THEIRS]) < loop->len)
        return;
    if (!plans->sure_len || loop->len < plans->sure_len) {
        plans->sure_len = loop->len;
        plans->sure_move = loop->first;
    }
    s->max_len = loop->len - 1;
}

/* The enemy's loops we cannot reach before they close, seen from its side. */
static void score_enemy(Search *s, const Loop *loop)
{
    Plans *plans = s->ctx;
    record(s, plans, loop->first, swing_rate(plans, loop));
}

/* The best rate (cells swung per move) of a loop the enemy can close before we can reach it,
 * when it is its turn to move. */
static double enemy_plan(const Board *b)
{
    Board swapped;
    Plans plans;
    memset(&plans, 0, sizeof plans);
    swap_sides(b, &swapped);
    plans.mine = count(swapped.own[MINE]);
    plans.theirs = count(swapped.own[THEIRS]);
    Search search = {.start = &swapped, .run = BOX_RUN, .max_len = 4 * BOX_RUN,
                     .watch = {b->head[MINE]}, .nwatch = 1, .out_of_reach = 1,
                     .visit = score_enemy, .ctx = &plans};
    search_loops(&search);
    double best = 0.0;
    for (int d = 0; d < 4; d++)
        best = plans.best[d] > best ? plans.best[d] : best;
    return best;
}

/* First move of a shortest path from the head to the nearest cell not owned, or -1. */
static int toward_unowned(const Board *b)
{
    short first[N], queue[N];
    int qh = 0, qt = 0;
    memset(first, -1, sizeof first);
    first[b->head[MINE]] = 4;
    queue[qt++] = (short)b->head[MINE];
    while (qh < qt) {
        int c = queue[qh++];
        for (int d = 0; d < 4; d++) {
            int n = step(c, d);
            if (n < 0 || first[n] >= 0 || n == b->head[THEIRS])
                continue;
            first[n] = (short)(c == b->head[MINE] ? d : first[c]);
            if (!has(b->own[MINE], n))
                return first[n];
            queue[qt++] = (short)n;
        }
    }
    return -1;
}

/* The first step toward cell `target` that stays on the board. */
static int toward(const Board *b, int target)
{
    for (int d = 0; d < 4; d++) {
        int n = step(b->head[MINE], d);
        if (n >= 0 && distance(n, target) < distance(b->head[MINE], target))
            return d;
    }
    return 0;
}

int bot(int board[H][W], char player)
{
    Board b;
    Plans plans;
    memset(&plans, 0, sizeof plans);
    read_board(board, player, &b);
    plans.mine = count(b.own[MINE]);
    plans.theirs = count(b.own[THEIRS]);

    /* Sure kills: loops out of the enemy's reach, and single cuts of its lines. */
    Search hunting = {.start = &b, .run = HUNT_RUN,
                      .max_len = kill_reach(&b, MINE, b.head[THEIRS]),
                      .watch = {b.head[THEIRS]}, .nwatch = 1, .out_of_reach = 1,
                      .visit = score_hunt, .ctx = &plans};
    search_loops(&hunting);
    int target = -1, cut = sure_cut(&b, &target);
    if (cut && (!plans.sure_len || cut < plans.sure_len)) {
        plans.sure_len = cut;
        plans.sure_move = toward(&b, target);
    }
    /* Territory loops. */
    Search boxing = {.start = &b, .run = BOX_RUN, .max_len = 4 * BOX_RUN,
                     .watch = {b.head[THEIRS]}, .nwatch = 1, .visit = score_own, .ctx = &plans};
    search_loops(&boxing);

    /* Each move scores its best own plan (a sure kill above all) minus the best plan it leaves
     * the enemy. The best move that is safe is played: after it the enemy can neither enclose
     * us within two moves whatever we do, nor has a sure kill. With no safe move, the least
     * dangerous one. */
    int home = toward_unowned(&b), order[4] = {0, 1, 2, 3};
    double score[4];
    for (int d = 0; d < 4; d++) {
        Board after = b;
        int killed;
        score[d] = -1e9;
        if (!play(&after, MINE, d, &killed))
            continue; /* a wasted move */
        if (killed)
            return MOVES[d];
        double own = plans.best[d] + (d == home ? 0.001 : 0.0);
        if (plans.sure_len && d == plans.sure_move)
            own += 1000.0;
        score[d] = own - ENEMY_WEIGHT * enemy_plan(&after);
    }
    for (int i = 1; i < 4; i++) /* best first */
        for (int j = i; j > 0 && score[order[j]] > score[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int least = -1, least_danger = 4;
    for (int i = 0; i < 4; i++) {
        int d = order[i], killed;
        Board after = b;
        if (score[d] <= -1e9 || !play(&after, MINE, d, &killed))
            continue;
        /* 3: the enemy encloses us next move; 2: later whatever we do; 1: it has a sure kill */
        int danger = doomed(&after, 1) ? 3
                     : doomed(&after, 2) ? 2
                     : enemy_can_kill(&after, HUNT_RUN) ? 1 : 0;
        if (danger == 0)
            return MOVES[d];
        if (danger < least_danger) {
            least_danger = danger;
            least = d;
        }
    }
    return MOVES[least >= 0 ? least : 0];
}

char *bot_name = "Lookahead";
