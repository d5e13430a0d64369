/* roomy: a Multisnake bot that moves where it has the most room.
 *
 * For each neighbour it can enter this turn (as careful does: free, '+', a '-' that does not kill
 * it, its own leaving tail) it counts the tiles reachable from there through free tiles and signs,
 * every snake's body counting as a wall, and takes the largest; ties go to going straight on. It
 * does not know that bodies move away, nor where other heads are going.
 *
 * Protocol: "W H N M T" once, then H lines of W characters per turn; one line back, flushed.
 */
#include <stdio.h>
#include <string.h>

#define MAXT (150 * 150)

static int W, H, N, M, T;
static char grid[150][152];
static const char ARROWS[4] = {'^', '>', 'v', '<'};
static const int DX[4] = {0, 1, 0, -1}, DY[4] = {-1, 0, 1, 0};
static int queue[MAXT];
static int seen[MAXT], mark;

static int arrow_dir(char c) {
    for (int d = 0; d < 4; d++)
        if (ARROWS[d] == c) return d;
    return -1;
}

static int open_tile(char c) { return c == '.' || c == '+' || c == '-'; }

/* The number of tiles reachable from (x, y) through open tiles, (x, y) included. */
static int room(int x, int y) {
    int head = 0, tail = 0;
    mark++;
    queue[tail++] = y * W + x;
    seen[y * W + x] = mark;
    while (head < tail) {
        int u = queue[head++], ux = u % W, uy = u / W;
        for (int d = 0; d < 4; d++) {
            int vx = (ux + DX[d] + W) % W, vy = (uy + DY[d] + H) % H, v = vy * W + vx;
            if (seen[v] != mark && open_tile(grid[vy][vx])) {
                seen[v] = mark;
                queue[tail++] = v;
            }
        }
    }
    return tail;
}

int main(void) {
    if (scanf("%d %d %d %d %d", &W, &H, &N, &M, &T) != 5) return 0;
    char me = (char)('A' + M - 1);
    int heading = 0;
    for (int turn = 1;; turn++) {
        for (int y = 0; y < H; y++)
            if (scanf("%151s", grid[y]) != 1) return 0;
        int hx = 0, hy = 0;
        for (int y = 0; y < H; y++) {
            char *at = memchr(grid[y], me, (size_t)W);
            if (at) hx = (int)(at - grid[y]), hy = y;
        }
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
        int growth = turn % T == 0, best = -1, choice = heading;
        for (int k = 0; k < 4; k++) {
            int d = (heading + k) % 4; /* straight on first, so it wins ties */
            int x = (hx + DX[d] + W) % W, y = (hy + DY[d] + H) % H;
            char c = grid[y][x];
            int ok = c == '.' || c == '+' || (c == '-' && (length > 1 || growth));
            if (x == tx && y == ty && length > 2 && !growth) ok = 1;
            if (x == nx && y == ny) ok = 0;
            if (!ok) continue;
            int score = room(x, y);
            if (score > best) best = score, choice = d;
        }
        heading = choice;
        printf("%c\n", ARROWS[choice]);
        fflush(stdout);
    }
}
