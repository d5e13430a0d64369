/* Snakes' rules in C (rules.py's, cell for cell: tests/test_snakes_quick.py plays both side by
 * side), for the quick loop (runner/play/quick.c), which asks the bots; this file is as pure as
 * rules.py: a state in, a state out, no I/O. runner/games/snakes/quick.py compiles the two
 * together and loads them.
 *
 * The state is rules.py's SnakesState, field for field (``struct step_state``'s first fields;
 * the owner grid after them is this file's own), and a move is the int a bot's function returns
 * (codec.py): the ASCII code of L, R, U or D.
 */
#include <stdint.h>
#include <string.h>

#define W 32
#define H 16
#define N (W * H)
_Static_assert(N % 8 == 0, "step_replay compares the frames eight cells at a time");
#define STRIDE (W + 1) /* rules.py's bit positions: y * 33 + x */
#define BITS_BYTES 66  /* 16 rows of 33 bits, little-endian */
#define MAX_MOVES 2048

struct step_state {
    unsigned char frame[N]; /* what the bots see, row-major */
    unsigned char owned[2][BITS_BYTES];
    int heads[2]; /* bit positions */
    int played;
    int suffocated; /* -1: nobody */
    /* this file's own, between step_open and step_close */
    unsigned char owner[N]; /* 0 free, 1 X, 2 O */
    int head[2];            /* cell index y * 32 + x */
    uint32_t rows[2][H];    /* each side's cells, a row's 32 a word: bit x of rows[seat][y] */
};

/* Cells [from, to) of row y become ``seat``'s (the word masks kept with the owner grid). */
static void take(struct step_state *s, int seat, int y, int from, int to)
{
    uint32_t bits = (to - from == W ? 0xffffffffu : ((1u << (to - from)) - 1u)) << from;
    s->rows[seat][y] |= bits;
    s->rows[1 - seat][y] &= ~bits;
}

static const unsigned char TERRITORY[2] = {'X', 'O'};
static const unsigned char HEAD[2] = {'*', '@'};

static int step_to(int cell, int move)
{
    int x = cell % W, y = cell / W;
    switch (move) {
    case 'L': x--; break;
    case 'R': x++; break;
    case 'U': y--; break;
    case 'D': y++; break;
    default: return -2;
    }
    return x < 0 || x >= W || y < 0 || y >= H ? -1 : y * W + x;
}

/* Whether the free 4-neighbours of a cell are joined through its free 8-neighbours (rules.py's
 * _locally_connected): ``key`` is the 3 x 3 window, bit 3 * row + column. */
static int locally_connected(int key)
{
    static const int ring[8] = {1, 2, 5, 8, 7, 6, 3, 0};
    int free_[8], start = -1, runs = 0, in_run = 0, orthogonal = 0;
    for (int r = 0; r < 8; r++) {
        free_[r] = key >> ring[r] & 1;
        if (!free_[r] && start < 0)
            start = r;
    }
    if (start < 0)
        return 1;
    for (int k = 1; k <= 8; k++) {
        int i = (start + k) % 8;
        if (free_[i]) {
            in_run = 1;
            orthogonal = orthogonal || i % 2 == 0;
        } else if (in_run) {
            runs += orthogonal;
            in_run = orthogonal = 0;
        }
    }
    return runs <= 1;
}

/* _locally_connected of every window, worked out once (step_open; the same values whichever
 * thread writes them first). */
static int local_ok[512];
static int local_ready;

/* The cells x - 1, x and x + 1 of row y that ``seat`` does not own, as bits 0, 1 and 2 (a
 * cell off the board: 0), the row of enclose's 3 x 3 window. */
static int window_row(const struct step_state *s, int seat, int y, int x)
{
    if (y < 0 || y >= H)
        return 0;
    uint64_t free = (uint64_t)(uint32_t)~s->rows[seat][y] << 1; /* cell c at bit c + 1 */
    return (int)(free >> x & 7u);
}

#define RUNS (N / 2 + H) /* the most runs a board can have: every other cell of each row */

/* The root of run ``r`` (union-find, halving the path as it goes). */
static int root_of(short *parent, int r)
{
    while (parent[r] != r) {
        parent[r] = parent[parent[r]];
        r = parent[r];
    }
    return r;
}

/* Fill the mover's enclosures after it took ``target``: every group of the cells it does not
 * own but the largest (ties: the one holding the enemy head, else the first in row-major
 * order). Returns 1 when the enemy head was filled.
 *
 * The groups are found as runs: a run is a stretch of a row's cells the mover does not own,
 * and two runs of neighbouring rows that share a column are one group (union-find over at most
 * RUNS runs, where a flood of the board visits every cell: ~10 times faster, and every record
 * the standings read is played again with these rules). */
static int enclose(struct step_state *s, int seat, int target)
{
    int who = seat + 1, tx = target % W, ty = target / W;
    int key = window_row(s, seat, ty - 1, tx) | window_row(s, seat, ty, tx) << 3 |
              window_row(s, seat, ty + 1, tx) << 6;
    if (local_ok[key])
        return 0; /* the cells it does not own are one group still */
    short from[RUNS], to[RUNS], parent[RUNS]; /* a run: cells [from, to) of one row */
    int first[H + 1], runs = 0, enemy_head = s->head[1 - seat], enemy_run = -1;
    for (int y = 0; y < H; y++) {
        uint32_t free = ~s->rows[seat][y]; /* the row's cells the mover does not own */
        first[y] = runs;
        while (free) {
            int start = __builtin_ctz(free);
            uint32_t rest = free >> start;
            int end = rest == 0xffffffffu ? W : start + __builtin_ctz(~rest);
            if (enemy_head / W == y && enemy_head % W >= start && enemy_head % W < end)
                enemy_run = runs;
            from[runs] = (short)(y * W + start);
            to[runs] = (short)(y * W + end);
            parent[runs] = (short)runs;
            runs++;
            free = end == W ? 0 : free & ~((1u << end) - 1u);
        }
    }
    first[H] = runs;
    for (int y = 1; y < H; y++) /* join the runs of each row with those above that touch them */
        for (int a = first[y - 1], b = first[y]; a < first[y] && b < first[y + 1];) {
            int a_from = from[a] + W, a_to = to[a] + W; /* run a, a row down */
            if (a_to > from[b] && to[b] > a_from) {
                int ra = root_of(parent, a), rb = root_of(parent, b);
                if (ra != rb)
                    parent[ra > rb ? ra : rb] = (short)(ra < rb ? ra : rb);
            }
            if (a_to < to[b])
                a++;
            else
                b++;
        }
    /* each group's root is its first run (joins keep the smaller), so groups come in the order
     * of their first cells, as the rules number them */
    int size[RUNS] = {0}, keep = -1, groups = 0;
    int enemy = enemy_run < 0 ? -1 : root_of(parent, enemy_run); /* never -1: it is not ours */
    for (int r = 0; r < runs; r++)
        size[root_of(parent, r)] += to[r] - from[r];
    for (int r = 0; r < runs; r++) {
        if (parent[r] != r)
            continue;
        groups++;
        if (keep < 0 || size[r] > size[keep] || (size[r] == size[keep] && r == enemy))
            keep = r;
    }
    if (groups <= 1)
        return 0;
    for (int r = 0; r < runs; r++) {
        if (root_of(parent, r) == keep)
            continue;
        take(s, seat, from[r] / W, from[r] % W, from[r] % W + to[r] - from[r]);
        for (int i = from[r]; i < to[r]; i++) {
            s->owner[i] = (unsigned char)who;
            if (i != enemy_head) /* the dead head's cell is the encloser's but stays drawn */
                s->frame[i] = TERRITORY[seat];
        }
    }
    return enemy != keep;
}

/* The owner grid and the heads' cells from the state's fields. */
void step_open(struct step_state *s)
{
    if (!local_ready) {
        for (int key = 0; key < 512; key++)
            local_ok[key] = locally_connected(key);
        local_ready = 1;
    }
    memset(s->owner, 0, sizeof s->owner);
    memset(s->rows, 0, sizeof s->rows);
    for (int seat = 1; seat >= 0; seat--) /* X's last: a cell in both (never in play) is X's */
        for (int i = 0; i < N; i++) {
            int bit = i / W * STRIDE + i % W;
            if (s->owned[seat][bit / 8] >> bit % 8 & 1) {
                s->owner[i] = (unsigned char)(seat + 1);
                take(s, seat, i / W, i % W, i % W + 1);
            }
        }
    for (int seat = 0; seat < 2; seat++)
        s->head[seat] = s->heads[seat] / STRIDE * W + s->heads[seat] % STRIDE;
}

/* The state's fields from the owner grid and the heads' cells. */
void step_close(struct step_state *s)
{
    memset(s->owned, 0, sizeof s->owned);
    for (int i = 0; i < N; i++)
        if (s->owner[i]) {
            int bit = i / W * STRIDE + i % W;
            s->owned[s->owner[i] - 1][bit / 8] |= (unsigned char)(1 << bit % 8);
        }
    for (int seat = 0; seat < 2; seat++)
        s->heads[seat] = s->head[seat] / W * STRIDE + s->head[seat] % W;
}

/* The seat to move; -1 once the game is over. */
int step_to_move(const struct step_state *s)
{
    return s->played >= MAX_MOVES || s->suffocated >= 0 ? -1 : s->played % 2;
}

/* The request ``seat`` is sent (codec.py: the board's cells, then the player byte) into
 * ``out`` (``cap`` bytes at least 513); its length. */
int step_request(const struct step_state *s, int seat, unsigned char *out, int cap)
{
    if (cap < N + 1)
        return -1;
    memcpy(out, s->frame, N);
    out[N] = TERRITORY[seat];
    return N + 1;
}

/* Whether a bot's int is a move (one of L, R, U, D). */
int step_is_move(int value)
{
    return value >= 0 && value < 128 && step_to(0, value) != -2;
}

/* The move ``value`` (step_is_move) of the seat to move. */
void step_apply(struct step_state *s, int value)
{
    int seat = s->played % 2;
    int target = step_to(s->head[seat], value);
    s->played++;
    if (target < 0 || target == s->head[1 - seat])
        return; /* a no-op: nothing changes but the count of moves */
    s->frame[s->head[seat]] = TERRITORY[seat];
    s->frame[target] = HEAD[seat];
    s->head[seat] = target;
    if (s->owner[target] == seat + 1)
        return;
    s->owner[target] = (unsigned char)(seat + 1);
    take(s, seat, target / W, target % W, target % W + 1);
    if (enclose(s, seat, target))
        s->suffocated = 1 - seat;
}

/* The rules alone: ``count`` moves from ``moves`` applied to the state (tests compare them with
 * rules.py's). Returns how many were applied before the game ended or one was not a move. */
int step_apply_moves(struct step_state *s, const char *moves, int count)
{
    int done = 0;
    step_open(s);
    for (; done < count && step_to_move(s) >= 0; done++) {
        if (!step_is_move((unsigned char)moves[done]))
            break;
        step_apply(s, (unsigned char)moves[done]);
    }
    step_close(s);
    return done;
}

/* A record's moves replayed for the site (runner/site/frames.py, Presentation.replay_steps): per
 * step, the runs of characters it changed in the text frame (rules.py's render_text: a line end
 * after every row), as ``run_at`` (offset), ``run_length`` and the characters before and after
 * (``was``, ``now``, run after run), ``runs`` of them for the step; per frame, each side's
 * cells (``cells``, two a frame). Returns the number of steps; -1 where a move is not one or
 * the game ended before the moves did; -2 where more than ``cap`` characters changed. */
int step_replay(struct step_state *s, const char *moves, int count, int *runs, int *run_at,
                int *run_length, unsigned char *was, unsigned char *now, int cap, int *cells)
{
    unsigned char before[N];
    int used = 0, at = 0;
    step_open(s);
    for (int step = 0; step <= count; step++) {
        int x = 0, o = 0; /* without a branch: the compiler does a word of cells at a time */
        for (int i = 0; i < N; i++) {
            x += s->owner[i] == 1;
            o += s->owner[i] == 2;
        }
        cells[2 * step] = x;
        cells[2 * step + 1] = o;
        if (step == count)
            break;
        if (step_to_move(s) < 0 || !step_is_move((unsigned char)moves[step]))
            return -1;
        memcpy(before, s->frame, N);
        step_apply(s, (unsigned char)moves[step]);
        int made = 0, last = -2;
        for (int i = 0; i < N; i++) {
            if (i % 8 == 0) { /* a move changes a few cells: skip eight equal ones at once */
                uint64_t was_word, now_word;
                memcpy(&was_word, before + i, sizeof was_word);
                memcpy(&now_word, s->frame + i, sizeof now_word);
                if (was_word == now_word) {
                    i += 7;
                    continue;
                }
            }
            if (before[i] == s->frame[i])
                continue;
            if (used == cap)
                return -2;
            int offset = i + i / W;
            if (offset == last + 1) {
                run_length[at - 1]++;
            } else {
                run_at[at] = offset;
                run_length[at++] = 1;
                made++;
            }
            was[used] = before[i];
            now[used++] = s->frame[i];
            last = offset;
        }
        runs[step] = made;
    }
    step_close(s);
    return count;
}

/* Writes ``value`` in decimal at ``out + used`` (room for ``cap``); the new length, -1 past it. */
static int put_number(char *out, int used, int cap, int value)
{
    char digits[12];
    int count = 0;
    unsigned magnitude = value < 0 ? 0u - (unsigned)value : (unsigned)value;
    do {
        digits[count++] = (char)('0' + magnitude % 10);
        magnitude /= 10;
    } while (magnitude);
    if (used + count + (value < 0) > cap)
        return -1;
    if (value < 0)
        out[used++] = '-';
    while (count)
        out[used++] = digits[--count];
    return used;
}

/* The page's ``numbers`` string of a replay's frames (runner/site/frames.py's encode_numbers, what
 * tests/test_snakes_quick.py compares it with): per frame its turn (0, then 1, 1, 2, 2, ...: the
 * seats move in turn) and each side's cells (``cells``, two a frame, as step_replay gives them),
 * written as the change from the frame before (from zeros for the first), trailing zeros left
 * out, numbers separated by spaces; "=" for a change of two numbers or more that repeats the one
 * before; frames separated by commas. Returns its length; -1 where ``cap`` is too small. */
int step_numbers(const int *cells, int steps, char *out, int cap)
{
    int used = 0, last[3] = {0, 0, 0}, before[3] = {0, 0, 0};
    for (int frame = 0; frame <= steps; frame++) {
        int row[3] = {frame ? (frame + 1) / 2 : 0, cells[2 * frame], cells[2 * frame + 1]};
        int change[3], kept = 3;
        for (int i = 0; i < 3; i++) {
            change[i] = row[i] - last[i];
            last[i] = row[i];
        }
        while (kept && !change[kept - 1])
            kept--;
        if (frame) {
            if (used >= cap)
                return -1;
            out[used++] = ',';
        }
        int repeats = frame && kept > 1 && !memcmp(change, before, sizeof change);
        if (repeats) {
            if (used >= cap)
                return -1;
            out[used++] = '=';
        }
        for (int i = 0; i < kept && !repeats; i++) {
            if (i) {
                if (used >= cap)
                    return -1;
                out[used++] = ' ';
            }
            if ((used = put_number(out, used, cap, change[i])) < 0)
                return -1;
        }
        memcpy(before, change, sizeof change);
    }
    return used;
}
