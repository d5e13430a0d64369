/* rotator: a Cluster bot that weighs ROTATE as well as PLACE.
 *
 * It keeps the board from the turn messages and simulates moves exactly as the rules do: a drop
 * falls along gravity, a rotation turns gravity and compacts every line. It scores every move it
 * can make (each column with each colour in its hand, and ROTATE 1..5) against every reply of the
 * opponent (each column with either of its colours, and every rotation), averaging over the hands
 * the opponent may hold; the ten best are then searched one ply deeper, over its own next drop.
 * Positions are scored by open windows of four cells (holding one colour and gaps); a window one
 * pellet short whose gap can be filled at once is a threat, and two threats are nearly a win.
 * Fixed depth and no clock or random numbers: the same messages always get the same replies.
 *
 * Protocol: init message once, then one turn message per move; one reply line each, flushed.
 * Nothing else is written to stdout. Exits on end of input.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXCELLS 512
#define MAXCOLS 32
#define MAXPELLETS 1024
#define MAXWIN 2048

static int ncells, ncols;
static int nb[MAXCELLS][6];
static int tops[MAXCOLS][6];
/* lines[g][i]: the cells of column i under gravity g, top first */
static int lines[6][MAXCOLS][MAXCOLS];
static int linelen[6][MAXCOLS];
/* windows: four consecutive cells along axis 0, 1 or 2 */
static int nwin;
static int win[MAXWIN][4];

static int me; /* my seat: 0 or 1 */
static int pcell[MAXPELLETS], pcolour[MAXPELLETS], npellets;

typedef struct {
    unsigned char b[MAXCELLS]; /* colour + 1, 0 empty */
    int g;
    int best[4];
} State;

static int rd(int *v) { return scanf("%d", v) == 1; }

static void need(int ok) {
    if (!ok) exit(0); /* end of input (or garbage): leave quietly */
}

static void build_tables(void) {
    for (int g = 0; g < 6; g++)
        for (int i = 0; i < ncols; i++) {
            int c = tops[i][g], n = 0;
            while (c >= 0 && n < MAXCOLS) {
                lines[g][i][n++] = c;
                c = nb[c][g];
            }
            linelen[g][i] = n;
        }
    nwin = 0;
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < ncols; i++)
            for (int j = 0; j + 4 <= linelen[a][i] && nwin < MAXWIN; j++, nwin++)
                for (int k = 0; k < 4; k++) win[nwin][k] = lines[a][i][j + k];
}

static void full_best(State *s) {
    int best[5] = {0, 0, 0, 0, 0};
    for (int a = 0; a < 3; a++)
        for (int i = 0; i < ncols; i++) {
            int prev = -1, run = 0;
            for (int j = 0; j < linelen[a][i]; j++) {
                int c = s->b[lines[a][i][j]];
                run = (c == prev) ? run + 1 : 1;
                prev = c;
                if (run > best[c]) best[c] = run;
            }
        }
    for (int c = 0; c < 4; c++) s->best[c] = best[c + 1];
}

static int run_through(const unsigned char *b, int x, int axis) {
    int v = b[x], run = 1;
    for (int d = axis; d <= axis + 3; d += 3) {
        int n = nb[x][d];
        while (n >= 0 && b[n] == v) {
            run++;
            n = nb[n][d];
        }
    }
    return run;
}

/* the cell a pellet dropped into column col comes to rest on, or -1 if the column is full */
static int landing(const State *s, int col) {
    int c = tops[col][s->g];
    if (s->b[c]) return -1;
    while (nb[c][s->g] >= 0 && !s->b[nb[c][s->g]]) c = nb[c][s->g];
    return c;
}

static void do_place(State *s, int x, int colour) {
    s->b[x] = (unsigned char)(colour + 1);
    for (int a = 0; a < 3; a++) {
        int r = run_through(s->b, x, a);
        if (r > s->best[colour]) s->best[colour] = r;
    }
}

static void do_rotate(State *s, int n) {
    int g = (s->g + n) % 6;
    unsigned char stack[MAXCOLS];
    for (int i = 0; i < ncols; i++) {
        int len = linelen[g][i], k = 0;
        for (int j = len - 1; j >= 0; j--) { /* bottom first */
            int c = lines[g][i][j];
            if (s->b[c]) stack[k++] = s->b[c];
            s->b[c] = 0;
        }
        for (int j = 0; j < k; j++) s->b[lines[g][i][len - 1 - j]] = stack[j];
    }
    s->g = g;
    full_best(s);
}

/* -1: play on; 0 or 1: that seat wins; 2: a draw */
static int outcome(const State *s) {
    int sc[2] = {s->best[0] > s->best[2] ? s->best[0] : s->best[2],
                 s->best[1] > s->best[3] ? s->best[1] : s->best[3]};
    if (sc[0] < 4 && sc[1] < 4) return -1;
    if (sc[0] != sc[1]) return sc[0] > sc[1] ? 0 : 1;
    int count[4] = {0, 0, 0, 0};
    for (int c = 0; c < ncells; c++)
        if (s->b[c]) count[s->b[c] - 1]++;
    int pick[2];
    for (int seat = 0; seat < 2; seat++) {
        int best = -1;
        for (int c = seat; c < 4; c += 2)
            if (s->best[c] == sc[seat] && count[c] > best) best = count[c];
        pick[seat] = best;
    }
    if (pick[0] == pick[1]) return 2;
    return pick[0] > pick[1] ? 0 : 1;
}

static int playable(const State *s, int c) {
    int below = nb[c][s->g];
    return !s->b[c] && (below < 0 || s->b[below]);
}

#define WIN_SCORE 1000000.0
#ifndef CANDIDATES
#define CANDIDATES 10 /* moves searched a ply deeper */
#endif

/* The evaluation, kept as sums over windows of four so that one drop can be scored by revisiting
 * only the windows through the cell it fills and the cell above it (the only cells whose state or
 * playability a drop changes). */
typedef struct {
    double lin;  /* open windows of one colour, + mine, - theirs */
    int hot[4];  /* per colour: windows of three whose gap can be filled now */
    int cells[2]; /* per seat: cells where it can complete a four now */
} Acc;

static int mult[2][MAXCELLS]; /* per seat and cell: its ready windows with that gap */
static int cellwin[MAXCELLS][12], ncellwin[MAXCELLS];

static void index_windows(void) {
    for (int w = 0; w < nwin; w++)
        for (int j = 0; j < 4; j++) {
            int c = win[w][j];
            if (ncellwin[c] < 12) cellwin[c][ncellwin[c]++] = w;
        }
}

static void window_add(const State *s, int w, int sign, Acc *a) {
    int colour = 0, k = 0, gap = -1;
    for (int j = 0; j < 4; j++) {
        int c = s->b[win[w][j]];
        if (!c) {
            gap = win[w][j];
            continue;
        }
        if (colour && c != colour) return; /* mixed: dead for both */
        colour = c;
        k++;
    }
    if (!k || k == 4) return;
    int seat = (colour - 1) % 2;
    double x;
    if (k == 1)
        x = 1.0;
    else if (k == 2)
        x = 8.0;
    else if (playable(s, gap)) {
        a->hot[colour - 1] += sign;
        if (sign > 0) {
            if (mult[seat][gap]++ == 0) a->cells[seat]++;
        } else {
            if (--mult[seat][gap] == 0) a->cells[seat]--;
        }
        return;
    } else
        x = 60.0;
    a->lin += sign * (seat == me ? x : -x);
}

static void evaluate_full(const State *s, Acc *a) {
    memset(a, 0, sizeof *a);
    memset(mult, 0, sizeof mult);
    for (int w = 0; w < nwin; w++) window_add(s, w, +1, a);
}

/* The value for me of a position with `mover` to move. */
static double finish(const Acc *a, int mover) {
    double v = a->lin, sign = mover == me ? 1.0 : -1.0;
    /* a ready four is won if that colour is in the mover's hand (3 in 4) */
    int ready = (a->hot[mover] > 0) + (a->hot[mover + 2] > 0);
    int against = a->cells[1 - mover];
    if (ready == 2)
        v += sign * 0.09 * WIN_SCORE;
    else if (ready == 1)
        v += sign * 0.07 * WIN_SCORE;
    else if (against == 1)
        v -= sign * 300.0; /* the move goes on blocking it */
    else if (against >= 2)
        v -= sign * 0.08 * WIN_SCORE; /* only one can be blocked */
    return v;
}

static double terminal_value(int o) {
    if (o == me) return WIN_SCORE;
    if (o == 2) return 0.0;
    return -WIN_SCORE;
}

/* The windows a drop on x changes: those through x and those through the cell above it. */
static int affected(const State *s, int x, int *out) {
    int n = 0, up = nb[x][(s->g + 3) % 6];
    for (int i = 0; i < ncellwin[x]; i++) out[n++] = cellwin[x][i];
    if (up >= 0)
        for (int i = 0; i < ncellwin[up]; i++) {
            int w = cellwin[up][i], dup = 0;
            for (int j = 0; j < 4; j++) dup |= win[w][j] == x;
            if (!dup) out[n++] = w;
        }
    return n;
}

/* Mix the best replies for each hand: two of the first colour (1/4), two of the second (1/4), or
 * one of each (1/2), given the best rotation and the best drop of each colour for the seat to
 * move (best for it: a minimum of my value when it is the opponent). */
static double by_hand(double rot, double first, double second, int minimise) {
    double a, b, both;
    if (minimise) {
        a = first < rot ? first : rot;
        b = second < rot ? second : rot;
        both = a < b ? a : b;
    } else {
        a = first > rot ? first : rot;
        b = second > rot ? second : rot;
        both = a > b ? a : b;
    }
    return 0.25 * a + 0.25 * b + 0.5 * both;
}

/* A position's value for me once a drop is made; `next` is the seat to move after it. */
typedef double (*Leaf)(State *s, Acc *a, int next);

static double leaf_static(State *s, Acc *a, int next) {
    (void)s;
    return finish(a, next);
}

/* Every drop of `mover` on s (whose evaluation is in acc and mult), each scored by `leaf`. The
 * board and the evaluation are restored on return. Gives the best per colour in best[2]. */
static void drops(State *s, Acc *acc, int mover, Leaf leaf, double best[2]) {
    int minimise = mover != me, ws[24];
    best[0] = best[1] = minimise ? 1e18 : -1e18;
    for (int i = 0; i < ncols; i++) {
        int x = landing(s, i);
        if (x < 0) continue;
        int nw = affected(s, x, ws);
        for (int j = 0; j < nw; j++) window_add(s, ws[j], -1, acc);
        for (int k = 0; k < 2; k++) {
            int colour = mover + 2 * k;
            double v;
            s->b[x] = (unsigned char)(colour + 1);
            int four = 0;
            for (int a = 0; a < 3; a++) four |= run_through(s->b, x, a) >= 4;
            if (four)
                v = mover == me ? WIN_SCORE : -WIN_SCORE;
            else {
                for (int j = 0; j < nw; j++) window_add(s, ws[j], +1, acc);
                v = leaf(s, acc, 1 - mover);
                for (int j = 0; j < nw; j++) window_add(s, ws[j], -1, acc);
            }
            s->b[x] = 0;
            if (minimise ? v < best[k] : v > best[k]) best[k] = v;
        }
        for (int j = 0; j < nw; j++) window_add(s, ws[j], +1, acc);
    }
}

/* Position s2, me to move with a hand not yet drawn: my best drop for each hand (rotations are
 * left out at this depth), each scored with the opponent to move. */
static double my_reply_value(State *s2, Acc *acc) {
    double best[2];
    drops(s2, acc, me, leaf_static, best);
    return by_hand(-1e18, best[0], best[1], 0);
}

static double leaf_deeper(State *s, Acc *a, int next) {
    (void)next;
    return my_reply_value(s, a);
}

/* The value for me of position s1, the opponent to move with an unknown hand; deeper: also my
 * reply after theirs. */
static double opponent_reply_value(State *s1, int deeper) {
    double min_rot = 1e18, best[2];
    State s2;
    Acc acc;
    for (int n = 1; n <= 5; n++) {
        s2 = *s1;
        do_rotate(&s2, n);
        int o = outcome(&s2);
        double v;
        if (o >= 0)
            v = terminal_value(o);
        else {
            evaluate_full(&s2, &acc);
            v = deeper ? my_reply_value(&s2, &acc) : finish(&acc, me);
        }
        if (v < min_rot) min_rot = v;
    }
    if (min_rot <= -WIN_SCORE) return min_rot;
    evaluate_full(s1, &acc);
    drops(s1, &acc, 1 - me, deeper ? leaf_deeper : leaf_static, best);
    return by_hand(min_rot, best[0], best[1], 1);
}

typedef struct {
    char text[32];
    State after;
    double value; /* two plies deep, or exact when decided */
    double tie;   /* a small preference among equals */
    int decided;  /* the game ends with this move */
} Option;

static Option options[64];

static void choose(const State *s, const int *hand, int nhand) {
    int n = 0, done[4] = {0, 0, 0, 0};
    for (int h = 0; h < nhand; h++) {
        int colour = hand[h];
        if (colour < 0 || colour > 3 || colour % 2 != me || done[colour]) continue;
        done[colour] = 1;
        for (int i = 0; i < ncols && n < 64; i++) {
            int x = landing(s, i);
            if (x < 0) continue;
            Option *o = &options[n++];
            snprintf(o->text, sizeof o->text, "PLACE %d %d", i, colour);
            o->after = *s;
            do_place(&o->after, x, colour);
            o->decided = o->after.best[colour] >= 4; /* a four of mine: a win */
            o->value = o->decided ? WIN_SCORE : opponent_reply_value(&o->after, 0);
            o->tie = -0.001 * abs(i - ncols / 2); /* the middle */
        }
    }
    for (int r = 1; r <= 5 && n < 64; r++) {
        Option *o = &options[n++];
        snprintf(o->text, sizeof o->text, "ROTATE %d", r);
        o->after = *s;
        do_rotate(&o->after, r);
        int end = outcome(&o->after);
        o->decided = end >= 0;
        o->value = o->decided ? terminal_value(end) : opponent_reply_value(&o->after, 0);
        o->tie = -0.5; /* a rotation burns both hand pellets: a drop, when equal */
    }
    if (n == 0) { /* cannot happen: rotations are always there */
        printf("ROTATE 1\n");
        fflush(stdout);
        return;
    }
    /* Rank by the two-ply value; a move that ends the game is valued exactly, and the best few
     * others are searched one ply deeper (my next drop) and valued by that instead. */
    int order[64];
    for (int i = 0; i < n; i++) order[i] = i;
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0; j--) {
            const Option *p = &options[order[j - 1]], *q = &options[order[j]];
            if (q->value + q->tie <= p->value + p->tie) break;
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    int best = -1, searched = 0;
    double best_v = -1e30;
    for (int k = 0; k < n; k++) {
        Option *o = &options[order[k]];
        double v;
        if (o->decided)
            v = o->value;
        else if (searched < CANDIDATES) {
            searched++;
            v = opponent_reply_value(&o->after, 1);
        } else
            continue;
        v += o->tie;
        if (v > best_v) {
            best_v = v;
            best = order[k];
        }
        if (o->decided && o->value >= WIN_SCORE) break; /* a win: nothing beats it */
    }
    if (best < 0) best = order[0];
    printf("%s\n", options[best].text);
    fflush(stdout);
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
    build_tables();
    index_windows();

    State s;
    memset(&s, 0, sizeof s);
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
        memset(s.b, 0, sizeof s.b);
        s.g = g;
        for (int p = 0; p < npellets; p++)
            if (pcell[p] >= 0 && pcell[p] < ncells) s.b[pcell[p]] = (unsigned char)(pcolour[p] + 1);
        full_best(&s);
        choose(&s, hand, nhand);
    }
}
