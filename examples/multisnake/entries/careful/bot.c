/* careful: a Multisnake bot that never walks into certain death when it can help it.
 *
 * It finds its own body by walking back from its head along the arrows that point into it, then
 * picks at random among the neighbours it can enter this turn: a free tile or a '+', a '-' unless
 * that would shrink it to nothing, or its own tail when that tail is leaving (not on a turn when
 * every snake grows, not when it is the tile just behind the head). It pays no attention to other
 * snakes' heads or to where it is going. The generator is seeded from the map, so the same game
 * always gets the same replies.
 *
 * Protocol: "W H N M T" once, then H lines of W characters per turn; one line back, flushed.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static int W, H, N, M, T;
static char grid[150][152];
static const char ARROWS[4] = {'^', '>', 'v', '<'};
static const int DX[4] = {0, 1, 0, -1}, DY[4] = {-1, 0, 1, 0};
static uint64_t state = 88172645463325252ULL;

static uint64_t next_random(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
}

static int arrow_dir(char c) {
    for (int d = 0; d < 4; d++)
        if (ARROWS[d] == c) return d;
    return -1;
}

int main(void) {
    if (scanf("%d %d %d %d %d", &W, &H, &N, &M, &T) != 5) return 0;
    char me = (char)('A' + M - 1);
    for (int turn = 1;; turn++) {
        for (int y = 0; y < H; y++) {
            if (scanf("%151s", grid[y]) != 1) return 0;
            for (int x = 0; x < W; x++) state = (state ^ (uint64_t)grid[y][x]) * 1099511628211ULL;
        }
        if (!state) state = 1;
        int hx = 0, hy = 0;
        for (int y = 0; y < H; y++) {
            char *at = memchr(grid[y], me, (size_t)W);
            if (at) hx = (int)(at - grid[y]), hy = y;
        }
        /* Walk back from the head: the body tile before (x, y) is the neighbour whose arrow
         * points at (x, y). */
        int length = 1, tx = hx, ty = hy, nx = -1, ny = -1;
        for (;;) {
            int found = 0;
            for (int d = 0; d < 4 && !found; d++) {
                int px = (tx - DX[d] + W) % W, py = (ty - DY[d] + H) % H;
                if (arrow_dir(grid[py][px]) == d && !(px == hx && py == hy)) {
                    if (length == 1) nx = px, ny = py;
                    tx = px, ty = py, found = 1;
                }
            }
            if (!found || length > W * H) break;
            length++;
        }
        int growth = turn % T == 0, options[4], count = 0;
        for (int d = 0; d < 4; d++) {
            int x = (hx + DX[d] + W) % W, y = (hy + DY[d] + H) % H;
            char c = grid[y][x];
            int ok = c == '.' || c == '+' || (c == '-' && (length > 1 || growth));
            if (x == tx && y == ty && length > 2 && !growth) ok = 1; /* my tail moves away */
            if (x == nx && y == ny) ok = 0;                           /* reversing */
            if (ok) options[count++] = d;
        }
        int choice = count ? options[next_random() % (uint64_t)count] : 0;
        printf("%c\n", ARROWS[choice]);
        fflush(stdout);
    }
}
