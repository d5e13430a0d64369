/* mapper: an Easter Egg Hunt bot that maps the board in its memory line and plans on the map.
 *
 * Nobody tells a bot where it is, so mapper keeps its own coordinates: it starts at (128, 128) of a
 * 256 x 256 grid and adds the step it chose each turn. A step ends either where it aimed or where
 * it began, and it can only fail (a lost or tied fight, a crowd, a player coming home) when another
 * player stood next to the target. So:
 *   - a step whose target no other player could reach surely succeeded;
 *   - otherwise the new window is compared with the map at both places it can be: the one that
 *     contradicts the map less wins (walls never move and eggs never appear), then the one that
 *     confirms more walls and eggs; if the window cannot tell, a step onto an egg is taken to have
 *     failed (rivals fight over eggs) and any other step to have worked;
 *   - whenever the window contradicts the map where it thinks it is, it moves to the nearest place
 *     up to two tiles away where nothing is contradicted, and if there is none it forgets the map.
 * Each turn it writes what it sees into the map (wall, free, egg; `X` counts as wall). Then, by
 * breadth-first search over the known tiles that are not walls, it goes for the nearest egg that no
 * visible rival reaches as soon, if that is at most EGG_REACH steps away; otherwise to the known
 * tile whose window would show the most unknown tiles per step of the way; with nothing left to
 * explore, to any egg it knows. Of the equally short first steps it prefers one no other player is
 * next to. Steps onto eggs are made with N (to collect), other steps with A (to win the tile from
 * a player doing nothing). Sent back twice in a row, it steps aside at random once, to break a
 * deadlock with a rival going for the same egg.
 *
 * The memory line: "x y bx by bw bh lastdir contested fails rng|cells": its position, the map's
 * bounding box, the step it tried, whether another player was next to that step's target, how
 * many steps in a row failed, its random generator; then the box row by row, three tiles per
 * character (2 bits each: unknown, free, wall, egg; the characters '0' to 'o'). When the box would
 * not fit in 1024 characters it is cropped, keeping the side nearer to the bot.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { G = 256, UNKNOWN = 0, FREE = 1, WALL = 2, EGG = 3, MEMORY = 1024 };
enum { EGG_REACH = 12 }; /* a known egg this many steps away beats exploring */

/* the keypad 1 2 3 / 8 9 4 / 7 6 5 as steps (y grows downwards); 9 stays */
static const int DX[10] = {0, -1, 0, 1, 1, 1, 0, -1, -1, 0};
static const int DY[10] = {0, -1, -1, -1, 0, 1, 1, 1, 0, 0};

static char view[5][5];
static char memory[MEMORY + 64];
static unsigned char map[G][G];
static int px = G / 2, py = G / 2;            /* where it thinks it is */
static int bx = G / 2, by = G / 2, bw, bh;    /* the map's bounding box (empty: bw = bh = 0) */
static int lastdir, contested, fails;
static unsigned long long rng = 88172645463325252ULL;

static void read_input(void) {
    static char buf[8192];
    size_t n = fread(buf, 1, sizeof buf - 1, stdin);
    buf[n] = '\0';
    memset(view, 'X', sizeof view);
    char *line = buf;
    for (int row = 0; row < 6 && line; row++) {
        char *end = strchr(line, '\n');
        size_t len = end ? (size_t)(end - line) : strlen(line);
        if (row < 5) {
            for (size_t x = 0; x < 5 && x < len; x++) view[row][x] = line[x];
        } else {
            if (len > MEMORY) len = MEMORY;
            memcpy(memory, line, len);
            memory[len] = '\0';
        }
        line = end ? end + 1 : NULL;
    }
}

static unsigned next_random(void) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (unsigned)(rng >> 32);
}

static int at(int x, int y) { return x < 0 || y < 0 || x >= G || y >= G ? WALL : map[y][x]; }

static void grow_box(int x, int y) {
    if (!bw) {
        bx = x, by = y, bw = bh = 1;
        return;
    }
    if (x < bx) bw += bx - x, bx = x;
    if (y < by) bh += by - y, by = y;
    if (x >= bx + bw) bw = x - bx + 1;
    if (y >= by + bh) bh = y - by + 1;
}

/* The memory line back into the map; a line it cannot read starts a new map. */
static void load(void) {
    int x, y, a, b, w, h, d, c, f, used = 0;
    unsigned long long r;
    if (sscanf(memory, "%d %d %d %d %d %d %d %d %d %llu|%n", &x, &y, &a, &b, &w, &h, &d, &c, &f,
               &r, &used) != 10 || !used)
        return;
    if (x < 2 || y < 2 || x >= G - 2 || y >= G - 2 || a < 0 || b < 0 || w < 0 || h < 0 ||
        a + w > G || b + h > G || (long)strlen(memory + used) < ((long)w * h + 2) / 3)
        return;
    const char *cells = memory + used;
    for (int i = 0; i < w * h; i++) {
        int v = cells[i / 3] - '0';
        if (v < 0 || v > 63) return;
        map[b + i / w][a + i % w] = (unsigned char)((v >> (2 * (i % 3))) & 3);
    }
    px = x, py = y, bx = a, by = b, bw = w, bh = h, lastdir = d, contested = c, fails = f, rng = r;
    if (!rng) rng = 88172645463325252ULL;
}

static int seen(int vx, int vy) {
    char c = view[vy][vx];
    return c == '#' || c == 'X' ? WALL : c == 'o' ? EGG : FREE;
}

/* How many things the window contradicts if the bot stands at (cx, cy); ``agree`` counts the
 * walls and eggs it confirms. */
static int fit(int cx, int cy, int *agree) {
    *agree = 0;
    if (at(cx, cy) == WALL) return 100;
    int bad = 0;
    for (int vy = 0; vy < 5; vy++)
        for (int vx = 0; vx < 5; vx++) {
            int m = at(cx + vx - 2, cy + vy - 2), v = seen(vx, vy);
            if (m == UNKNOWN) continue;
            bad += (v == WALL) != (m == WALL) || (v == EGG && m == FREE);
            *agree += v == m && m != FREE;
        }
    return bad;
}

static int worse(int ax, int ay, int bx_, int by_) { /* is (ax, ay) a worse fit than (bx_, by_)? */
    int agree_a, agree_b, bad_a = fit(ax, ay, &agree_a), bad_b = fit(bx_, by_, &agree_b);
    return bad_a != bad_b ? bad_a > bad_b : agree_a < agree_b;
}

static void localise(void) {
    if (lastdir >= 1 && lastdir <= 8) {
        int tx = px + DX[lastdir], ty = py + DY[lastdir], moved = 0;
        if (at(tx, ty) != WALL) {
            if (!contested)
                moved = 1; /* nobody else could reach the target: the step worked */
            else if (worse(px, py, tx, ty) || worse(tx, ty, px, py))
                moved = worse(px, py, tx, ty);
            else /* the window cannot tell: fights are mostly over eggs */
                moved = at(tx, ty) != EGG;
        }
        fails = moved || at(tx, ty) == WALL ? 0 : fails + 1;
        if (moved) px = tx, py = ty;
    }
    int agree;
    if (!fit(px, py, &agree)) return;
    /* the map and the window disagree: the nearest place where they agree, else a new map */
    int found = 0, bestx = px, besty = py;
    for (int r = 1; r <= 2 && !found; r++)
        for (int dy = -r; dy <= r; dy++)
            for (int dx = -r; dx <= r; dx++) {
                int x = px + dx, y = py + dy;
                if (fit(x, y, &agree) || (found && !worse(bestx, besty, x, y))) continue;
                found = 1, bestx = x, besty = y;
            }
    if (found) {
        px = bestx, py = besty;
    } else {
        memset(map, 0, sizeof map);
        px = py = G / 2, bw = bh = 0, fails = 0;
    }
}

static void record(void) {
    for (int vy = 0; vy < 5; vy++)
        for (int vx = 0; vx < 5; vx++) {
            int x = px + vx - 2, y = py + vy - 2;
            if (x < 0 || y < 0 || x >= G || y >= G) continue;
            map[y][x] = (unsigned char)(vx == 2 && vy == 2 ? FREE : seen(vx, vy));
            grow_box(x, y);
        }
}

static int player_near(int x, int y) { /* a player other than itself within one of (x, y) */
    for (int vy = 0; vy < 5; vy++)
        for (int vx = 0; vx < 5; vx++) {
            int wx = px + vx - 2, wy = py + vy - 2;
            if (view[vy][vx] == '*' && !(vx == 2 && vy == 2) && abs(wx - x) <= 1 && abs(wy - y) <= 1)
                return 1;
        }
    return 0;
}

/* How many steps the nearest visible rival needs to (x, y); 99 when none is in sight. */
static int rival_steps(int x, int y) {
    int best = 99;
    for (int vy = 0; vy < 5; vy++)
        for (int vx = 0; vx < 5; vx++) {
            int dx = abs(px + vx - 2 - x), dy = abs(py + vy - 2 - y), d = dx > dy ? dx : dy;
            if (view[vy][vx] == '*' && !(vx == 2 && vy == 2) && d < best) best = d;
        }
    return best;
}

static int unknown_around(int x, int y) {
    int count = 0;
    for (int dy = -2; dy <= 2; dy++)
        for (int dx = -2; dx <= 2; dx++) count += at(x + dx, y + dy) == UNKNOWN;
    return count;
}

static short dist[G][G];
static int queue[G * G];

/* Breadth-first distances from (x, y) over the known tiles that are not walls. */
static void search(int x, int y) {
    memset(dist, -1, sizeof dist);
    int head = 0, tail = 0;
    dist[y][x] = 0;
    queue[tail++] = y * G + x;
    while (head < tail) {
        int cx = queue[head] % G, cy = queue[head] / G;
        head++;
        if (at(cx, cy) == UNKNOWN) continue; /* reached, but not a way through */
        for (int d = 1; d <= 8; d++) {
            int nx = cx + DX[d], ny = cy + DY[d];
            if (at(nx, ny) == WALL || dist[ny][nx] >= 0) continue;
            dist[ny][nx] = (short)(dist[cy][cx] + 1);
            queue[tail++] = ny * G + nx;
        }
    }
}

/* The first step of a shortest way to (gx, gy): of the steps that get one nearer, one onto no
 * player and next to no other player if there is one (fewer fights, surer reckoning). */
static int step_to(int gx, int gy) {
    search(gx, gy);
    int best = 9, best_cost = 99;
    for (int d = 1; d <= 8; d++) {
        int nx = px + DX[d], ny = py + DY[d];
        if (at(nx, ny) == WALL || dist[ny][nx] < 0 || dist[ny][nx] != dist[py][px] - 1) continue;
        int cost = 2 * (view[2 + DY[d]][2 + DX[d]] == '*') + player_near(nx, ny);
        if (cost < best_cost) best = d, best_cost = cost;
    }
    return best;
}

/* Where to go: the nearest egg no visible rival reaches as soon, unless it is far and there is
 * unexplored ground; then the known tile whose window would show the most unknown tiles per step
 * of the way. A contested egg is the last resort, half the time (the other half it waits). */
static int plan(void) {
    search(px, py);
    int egg = -1, egg_d = 0, contested_egg = -1, explore = -1;
    double explore_score = 0;
    for (int y = by - 2; y < by + bh + 2; y++)
        for (int x = bx - 2; x < bx + bw + 2; x++) {
            if (x < 0 || y < 0 || x >= G || y >= G) continue;
            int d0 = dist[y][x], m = at(x, y);
            if (d0 <= 0 || m == UNKNOWN) continue;
            if (m == EGG) {
                if (rival_steps(x, y) > d0 && (egg < 0 || d0 < egg_d)) egg = y * G + x, egg_d = d0;
                if (contested_egg < 0) contested_egg = y * G + x;
            }
            double score = unknown_around(x, y) / (d0 + 1.0);
            if (score > explore_score) explore_score = score, explore = y * G + x;
        }
    int goal = egg >= 0 && (explore < 0 || egg_d <= EGG_REACH) ? egg
               : explore >= 0                               ? explore
               : egg >= 0                                   ? egg
               : contested_egg >= 0 && next_random() % 2    ? contested_egg
                                                            : -1;
    return goal < 0 ? 9 : step_to(goal % G, goal / G);
}

static int step_aside(void) {
    int options[8], count = 0;
    for (int d = 1; d <= 8; d++) {
        int x = px + DX[d], y = py + DY[d];
        if (at(x, y) == FREE && !player_near(x, y)) options[count++] = d;
    }
    return count ? options[next_random() % count] : 9;
}

/* "x y bx by bw bh lastdir contested fails rng|cells", cropped to fit. */
static void save(int dir) {
    char head[128];
    for (;;) {
        int len = snprintf(head, sizeof head, "%d %d %d %d %d %d %d %d %d %llu|", px, py, bx, by,
                           bw, bh, dir, contested, fails, rng);
        if (len + (bw * bh + 2) / 3 <= MEMORY) break;
        if (bw >= bh) { /* drop the column farther from the bot */
            if (px - bx > bx + bw - 1 - px) bx++;
            bw--;
        } else {
            if (py - by > by + bh - 1 - py) by++;
            bh--;
        }
    }
    fputs(head, stdout);
    for (int i = 0; i < bw * bh; i += 3) {
        int v = 0;
        for (int k = 0; k < 3 && i + k < bw * bh; k++)
            v |= map[by + (i + k) / bw][bx + (i + k) % bw] << (2 * k);
        putchar('0' + v);
    }
    putchar('\n');
}

int main(void) {
    read_input();
    load();
    localise();
    record();
    int dir = plan();
    if (fails >= 2) dir = step_aside(), fails = 0;
    int tx = px + DX[dir], ty = py + DY[dir];
    char action = at(tx, ty) == EGG ? 'N' : 'A';
    contested = dir != 9 && player_near(tx, ty);
    printf("%d\n%c\n", dir, action);
    save(dir);
    fflush(stdout);
    return 0;
}
