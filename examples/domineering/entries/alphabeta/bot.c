/* alphabeta: a Domineering bot that searches.
 *
 * Negamax alpha-beta with iterative deepening inside a wall-clock budget (BUDGET_MS from its own
 * start; the host allows 1 s per move, process start included), a transposition table, killer
 * moves and a history table for move ordering. Endgames are searched to the end.
 *
 * Evaluation, for the side to move, each term "mine minus the opponent's":
 *   - safe places: dominoes the opponent can never block (both cells have their other-axis
 *     neighbours covered), counted without overlap;
 *   - places: every spot a domino fits now (mobility);
 *   - room: the most dominoes that fit in the empty cells without overlap, ignoring the opponent;
 *   - an unused bomb, worth about eight safe places (self-play: holding it for the endgame,
 *     when it clears the most, beat spending it early).
 * Bombs are searched wherever the side to move has few places left (and at the root); a side
 * with no place must bomb. The request does not say whether the opponent's bomb is spent, so
 * the bot assumes it is not.
 *
 * Board: one 13-bit mask per row for the empty cells, and per row the cells that are the west,
 * east, north or south half of a domino (a bomb's legality needs to know which cells pair up: a
 * run of 1s in a row, or of 2s in a column, pairs from its start).
 *
 * Protocol: started afresh for every move; reads one line of numbers: the orientation
 * (1 horizontal, 2 vertical), the 169 cells row by row (0 empty, 1 horizontal domino,
 * 2 vertical) and its bombs left; writes "type row col" and exits.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef BUDGET_MS
#define BUDGET_MS 430
#endif
#ifndef W_SAFE
#define W_SAFE 6
#endif
#ifndef W_MOB
#define W_MOB 2
#endif
#ifndef W_ROOM
#define W_ROOM 3
#endif
#ifndef W_BOMB
#define W_BOMB 50
#endif
#ifndef BOMB_PLACES
#define BOMB_PLACES 12 /* search bombs when the mover has at most this many places */
#endif
#ifndef BOMB_KEEP
#define BOMB_KEEP 8 /* and then only the most promising squares (all of them at the root) */
#endif

#define N 13
#define FULL ((1u << N) - 1)
#define INF 32000
#define WIN 30000
#define MAXPLY 128
#define MAXMOVES 256
#define TTBITS 20

typedef struct {
    uint16_t fr[N];             /* empty cells */
    uint16_t w[N], e[N];        /* west / east halves of horizontal dominoes */
    uint16_t nn[N], s[N];       /* north / south halves of vertical dominoes */
    uint8_t bombs[2];           /* side 0 horizontal (Left), side 1 vertical (Right) */
    uint64_t key;
} Pos;

typedef struct {
    uint64_t key;
    int16_t score;
    uint16_t move;
    int8_t depth;
    uint8_t flag; /* 1 exact, 2 lower bound, 3 upper bound */
} Entry;

static Entry *tt;
static uint64_t zcell[N * N][5], zbomb[2][2], zside;
static uint8_t pairs13[1 << N]; /* non-overlapping horizontal pairs in a row mask */
static int history[2][512];
static uint16_t killers[MAXPLY][2];
static struct timespec started;
static long nodes;
static int aborted;
static uint16_t root_best;

/* A move: bit 12 set for a bomb; bits 4..7 the row, bits 0..3 the column. */
#define MV(kind, r, c) ((uint16_t)(((kind) << 12) | ((r) << 4) | (c)))
#define MV_BOMB(m) ((m) >> 12)
#define MV_R(m) (((m) >> 4) & 15)
#define MV_C(m) ((m) & 15)
#define MV_INDEX(m) ((((m) >> 12) << 8) | ((m) & 255))

static double elapsed_ms(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (now.tv_sec - started.tv_sec) * 1e3 + (now.tv_nsec - started.tv_nsec) / 1e6;
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd64(void) {
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static void init_tables(void) {
    for (int i = 0; i < N * N; i++)
        for (int k = 0; k < 5; k++) zcell[i][k] = rnd64();
    zbomb[0][1] = rnd64();
    zbomb[1][1] = rnd64();
    zside = rnd64();
    for (unsigned m = 0; m < (1u << N); m++) {
        int run = 0, total = 0;
        for (int c = 0; c <= N; c++) {
            if (c < N && (m >> c & 1)) run++;
            else total += run / 2, run = 0;
        }
        pairs13[m] = (uint8_t)total;
    }
}

static int code_at(const Pos *p, int r, int c) {
    unsigned b = 1u << c;
    if (p->w[r] & b) return 1;
    if (p->e[r] & b) return 2;
    if (p->nn[r] & b) return 3;
    if (p->s[r] & b) return 4;
    return 0;
}

static void rehash(Pos *p, int side) {
    uint64_t k = 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) k ^= zcell[r * N + c][code_at(p, r, c)];
    k ^= zbomb[0][p->bombs[0]] ^ zbomb[1][p->bombs[1]];
    if (side) k ^= zside;
    p->key = k;
}

/* Non-overlapping vertical pairs in a column-wise run structure, greedily from the top (exact
 * for runs: each run of k cells gives k / 2). */
static int vertical_pairs(const uint16_t *m) {
    unsigned open = 0;
    int n = 0;
    for (int r = 0; r < N; r++) {
        unsigned paired = open & m[r];
        n += __builtin_popcount(paired);
        open = m[r] & ~paired;
    }
    return n;
}

/* Static value for side 0 (horizontal) minus side 1. */
static int evaluate_h(const Pos *p) {
    uint16_t hsafe[N], vsafe[N];
    int safe_h = 0, room_h = 0, mob_h = 0, mob_v = 0;
    for (int r = 0; r < N; r++) {
        unsigned f = p->fr[r];
        unsigned up = r > 0 ? p->fr[r - 1] : 0, down = r + 1 < N ? p->fr[r + 1] : 0;
        hsafe[r] = (uint16_t)(f & ~up & ~down);
        vsafe[r] = (uint16_t)(f & ~(f << 1) & ~(f >> 1) & FULL);
        safe_h += pairs13[hsafe[r]];
        room_h += pairs13[f];
        mob_h += __builtin_popcount(f & (f >> 1));
        if (down) mob_v += __builtin_popcount(f & down);
    }
    int safe_v = vertical_pairs(vsafe), room_v = vertical_pairs(p->fr);
    return W_SAFE * (safe_h - safe_v) + W_MOB * (mob_h - mob_v) + W_ROOM * (room_h - room_v) +
           W_BOMB * (p->bombs[0] - p->bombs[1]);
}

static int evaluate(const Pos *p, int side) {
    int v = evaluate_h(p);
    return side ? -v : v;
}

/* The square at (r, c) cuts no domino. */
static int bomb_ok(const Pos *p, int r0, int c0) {
    unsigned cols = 31u << c0;
    for (int r = r0; r < r0 + 5; r++) {
        if (p->e[r] >> c0 & 1) return 0;        /* its west half is left of the square */
        if (p->w[r] >> (c0 + 4) & 1) return 0;  /* its east half is right of the square */
    }
    if (p->s[r0] & cols) return 0;
    if (p->nn[r0 + 4] & cols) return 0;
    return 1;
}

static void play(Pos *p, int side, uint16_t m) {
    int r = MV_R(m), c = MV_C(m);
    if (!MV_BOMB(m)) {
        if (side == 0) {
            p->fr[r] &= (uint16_t)~(3u << c);
            p->w[r] |= (uint16_t)(1u << c);
            p->e[r] |= (uint16_t)(1u << (c + 1));
            p->key ^= zcell[r * N + c][0] ^ zcell[r * N + c][1];
            p->key ^= zcell[r * N + c + 1][0] ^ zcell[r * N + c + 1][2];
        } else {
            p->fr[r] &= (uint16_t)~(1u << c);
            p->fr[r + 1] &= (uint16_t)~(1u << c);
            p->nn[r] |= (uint16_t)(1u << c);
            p->s[r + 1] |= (uint16_t)(1u << c);
            p->key ^= zcell[r * N + c][0] ^ zcell[r * N + c][3];
            p->key ^= zcell[(r + 1) * N + c][0] ^ zcell[(r + 1) * N + c][4];
        }
    } else {
        for (int i = r; i < r + 5; i++) {
            for (int j = c; j < c + 5; j++) {
                int k = code_at(p, i, j);
                if (k) p->key ^= zcell[i * N + j][k] ^ zcell[i * N + j][0];
            }
            uint16_t keep = (uint16_t)~(31u << c);
            p->fr[i] |= (uint16_t)(31u << c);
            p->w[i] &= keep, p->e[i] &= keep, p->nn[i] &= keep, p->s[i] &= keep;
        }
        p->key ^= zbomb[side][1] ^ zbomb[side][0];
        p->bombs[side] = 0;
    }
    p->key ^= zside;
}

static int has_place(const Pos *p, int side) {
    for (int r = 0; r < N - side; r++)
        if (side == 0 ? (p->fr[r] & (p->fr[r] >> 1)) : (p->fr[r] & p->fr[r + 1])) return 1;
    return 0;
}

static int any_bomb(const Pos *p) {
    for (int r = 0; r <= N - 5; r++)
        for (int c = 0; c <= N - 5; c++)
            if (bomb_ok(p, r, c)) return 1;
    return 0;
}

static int gen_places(const Pos *p, int side, uint16_t *out) {
    int n = 0;
    for (int r = 0; r < N - side; r++) {
        unsigned m = side == 0 ? (unsigned)(p->fr[r] & (p->fr[r] >> 1)) : (unsigned)(p->fr[r] & p->fr[r + 1]);
        while (m) {
            int c = __builtin_ctz(m);
            m &= m - 1;
            out[n++] = MV(0, r, c);
        }
    }
    return n;
}

/* Legal bomb squares, the best ``keep`` of them by the static value after the explosion. */
static int gen_bombs(const Pos *p, int side, uint16_t *out, int keep) {
    int n = 0, score[81];
    uint16_t cand[81];
    for (int r = 0; r <= N - 5; r++)
        for (int c = 0; c <= N - 5; c++)
            if (bomb_ok(p, r, c)) {
                Pos q = *p;
                play(&q, side, MV(1, r, c));
                score[n] = evaluate(&q, side);
                cand[n++] = MV(1, r, c);
            }
    for (int i = 1; i < n; i++) { /* insertion sort, best first */
        int s = score[i];
        uint16_t m = cand[i];
        int j = i - 1;
        while (j >= 0 && score[j] < s) score[j + 1] = score[j], cand[j + 1] = cand[j], j--;
        score[j + 1] = s, cand[j + 1] = m;
    }
    if (n > keep) n = keep;
    memcpy(out, cand, (size_t)n * sizeof *out);
    return n;
}

static int gen_moves(const Pos *p, int side, uint16_t *out, int root) {
    int n = gen_places(p, side, out);
    if (p->bombs[side] && (root || n <= BOMB_PLACES)) n += gen_bombs(p, side, out + n, root || n == 0 ? 81 : BOMB_KEEP);
    return n;
}

static int search(Pos *p, int side, int depth, int alpha, int beta, int ply) {
#ifdef NODE_BUDGET /* for tuning: a budget the machine's load cannot change */
    if (++nodes > NODE_BUDGET) aborted = 1;
#else
    if ((++nodes & 1023) == 0 && elapsed_ms() > BUDGET_MS) aborted = 1;
#endif
    if (aborted) return 0;
    if (depth <= 0) {
        if (has_place(p, side) || (p->bombs[side] && any_bomb(p))) return evaluate(p, side);
        return -(WIN - ply);
    }
    uint16_t moves[MAXMOVES];
    int n = gen_moves(p, side, moves, ply == 0);
    if (n == 0) return -(WIN - ply);

    Entry *e = &tt[p->key & ((1u << TTBITS) - 1)];
    uint16_t tt_move = 0;
    if (e->key == p->key) {
        tt_move = e->move;
        if (ply > 0 && e->depth >= depth) {
            int s = e->score;
            if (e->flag == 1) return s;
            if (e->flag == 2 && s >= beta) return s;
            if (e->flag == 3 && s <= alpha) return s;
        }
    }
    if (ply == 0 && root_best) tt_move = root_best;

    /* Order: the table's move, killers, then by history. */
    int keys[MAXMOVES];
    for (int i = 0; i < n; i++) {
        uint16_t m = moves[i];
        int k = history[side][MV_INDEX(m)];
        if (m == killers[ply][0]) k += 1 << 24;
        else if (m == killers[ply][1]) k += 1 << 23;
        if (m == tt_move) k += 1 << 28;
        keys[i] = k;
    }
    int best = -INF, alpha0 = alpha;
    uint16_t best_move = moves[0];
    for (int i = 0; i < n; i++) {
        int bi = i;
        for (int j = i + 1; j < n; j++)
            if (keys[j] > keys[bi]) bi = j;
        int tk = keys[i];
        uint16_t tm = moves[i];
        keys[i] = keys[bi], moves[i] = moves[bi];
        keys[bi] = tk, moves[bi] = tm;

        uint16_t m = moves[i];
        Pos q = *p;
        play(&q, side, m);
        int s;
        if (i == 0) {
            s = -search(&q, 1 - side, depth - 1, -beta, -alpha, ply + 1);
        } else {
            s = -search(&q, 1 - side, depth - 1, -alpha - 1, -alpha, ply + 1);
            if (s > alpha && s < beta) s = -search(&q, 1 - side, depth - 1, -beta, -alpha, ply + 1);
        }
        if (aborted) return 0;
        if (s > best) {
            best = s;
            best_move = m;
            if (ply == 0) root_best = m;
        }
        if (s > alpha) alpha = s;
        if (alpha >= beta) {
            if (!MV_BOMB(m) && killers[ply][0] != m) killers[ply][1] = killers[ply][0], killers[ply][0] = m;
            history[side][MV_INDEX(m)] += depth * depth;
            break;
        }
    }
    e->key = p->key;
    e->score = (int16_t)best;
    e->move = best_move;
    e->depth = (int8_t)depth;
    e->flag = best <= alpha0 ? 3 : best >= beta ? 2 : 1;
    return best;
}

int main(void) {
    clock_gettime(CLOCK_MONOTONIC, &started);
    int me, bombs, cell[N][N];
    if (scanf("%d", &me) != 1) return 0;
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            if (scanf("%d", &cell[r][c]) != 1) return 0;
    if (scanf("%d", &bombs) != 1) return 0;
    int side = me == 1 ? 0 : 1;

    init_tables();
    tt = calloc((size_t)1 << TTBITS, sizeof *tt);
    if (!tt) return 1;
    Pos p;
    memset(&p, 0, sizeof p);
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++) {
            int ch = cell[r][c];
            if (ch == 0) {
                p.fr[r] |= (uint16_t)(1u << c);
            } else if (ch == 1 && !((p.w[r] | p.e[r]) >> c & 1)) {
                p.w[r] |= (uint16_t)(1u << c); /* a run of 1s pairs from its start */
                p.e[r] |= (uint16_t)(1u << (c + 1));
            } else if (ch == 2 && !((p.nn[r] | p.s[r]) >> c & 1)) {
                p.nn[r] |= (uint16_t)(1u << c);
                if (r + 1 < N) p.s[r + 1] |= (uint16_t)(1u << c);
            }
        }
    p.bombs[side] = (uint8_t)(bombs > 0);
    p.bombs[1 - side] = 1; /* not told: assume the opponent still has its bomb */
    rehash(&p, side);

    uint16_t moves[MAXMOVES];
    int n = gen_moves(&p, side, moves, 1);
    if (n == 0) {
        puts("1 0 0"); /* no legal move: the game is lost already */
        fflush(stdout);
        return 0;
    }
    /* Before any search: the best move by the static value after it. */
    int best_static = -INF;
    for (int i = 0; i < n; i++) {
        Pos q = p;
        play(&q, side, moves[i]);
        int s = evaluate(&q, side);
        if (s > best_static) best_static = s, root_best = moves[i];
    }
    uint16_t chosen = root_best;
    for (int depth = 1; depth < MAXPLY - 2; depth++) {
        int s = search(&p, side, depth, -INF, INF, 0);
        if (aborted) {
            chosen = root_best; /* the first move of an unfinished pass is at least as good */
            break;
        }
        chosen = root_best;
#ifdef DEBUG
        fprintf(stderr, "depth %d score %d nodes %ld %.0f ms\n", depth, s, nodes, elapsed_ms());
#endif
        if (s >= WIN - MAXPLY || s <= -(WIN - MAXPLY)) break; /* the game is decided */
#ifdef NODE_BUDGET
        if (nodes > NODE_BUDGET / 4) break;
#else
        if (elapsed_ms() > BUDGET_MS * 0.45) break; /* the next pass would not finish */
#endif
    }
    printf("%d %d %d\n", MV_BOMB(chosen) ? 2 : 1, MV_R(chosen), MV_C(chosen));
    fflush(stdout);
    return 0;
}
