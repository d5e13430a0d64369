// wary: a Multisnake bot that keeps room to live and stays out of other snakes' way.
//
// It knows that bodies move on: a tile k places from a live snake's tail frees after k + 1 turns
// (more on the turns every snake grows, when tails stand still), so it counts the room reachable
// from each move with a breadth-first search that lets its head pass a tile once it has freed.
// It takes the move with the most room, but never one that dies for certain (walls, bodies that
// stay, reversing, a '-' at length 1), and not, if it can help it, one onto a tile another head
// could also enter this turn or into another snake's tail (it might eat a '+' and stay).
// It does not think about where the others are going beyond that.
//
// Protocol: "W H N M T" once, then H lines of W characters per turn; one line back, flushed.
#include <cstdio>
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

namespace {

const std::string ARROWS = "^>v<";
const int DX[4] = {0, 1, 0, -1};
const int DY[4] = {-1, 0, 1, 0};
constexpr int NEVER = 1 << 29;

struct Map {
    int w = 0, h = 0;
    std::string tiles;
    int step(int tile, int d) const {
        int x = tile % w, y = tile / w;
        return ((y + DY[d] + h) % h) * w + (x + DX[d] + w) % w;
    }
};

// The tiles of the snake with its head at `head`, head first, following arrows backwards.
std::vector<int> snake(const Map& map, int head) {
    std::vector<int> tiles{head};
    for (;;) {
        int at = tiles.back(), before = -1;
        for (int d = 0; d < 4; d++) {
            int from = map.step(at, (d + 2) % 4);
            if (map.tiles[from] == ARROWS[d] && from != head &&
                (tiles.size() < 2 || from != tiles[tiles.size() - 2]))
                before = from;
        }
        if (before < 0 || static_cast<int>(tiles.size()) > map.w * map.h) return tiles;
        tiles.push_back(before);
    }
}

// How many tiles a head that steps onto `from` now can reach, passing a tile once it is open.
// `behind` (the tile the head leaves) is never passed: the head cannot turn back onto its neck.
int room(const Map& map, const std::vector<int>& opensAt, int from, int behind,
         std::vector<int>& when) {
    when.assign(map.tiles.size(), -1);
    std::vector<int> queue{from};
    when[from] = 1;
    when[behind] = 0;
    for (size_t i = 0; i < queue.size(); i++) {
        int u = queue[i];
        for (int d = 0; d < 4; d++) {
            int v = map.step(u, d);
            if (when[v] < 0 && opensAt[v] <= when[u] + 1) {
                when[v] = when[u] + 1;
                queue.push_back(v);
            }
        }
    }
    return static_cast<int>(queue.size());
}

}  // namespace

int main() {
    int n, m, period;
    Map map;
    if (std::scanf("%d %d %d %d %d", &map.w, &map.h, &n, &m, &period) != 5) return 0;
    const char me = static_cast<char>('A' + m - 1);
    char row[160];
    for (int turn = 1;; turn++) {
        map.tiles.clear();
        for (int y = 0; y < map.h; y++) {
            if (std::scanf("%159s", row) != 1) return 0;
            map.tiles.append(row, map.w);
        }
        const int size = map.w * map.h;
        // afterAdvances[k]: turns from now until a tail has moved k times.
        // With T = 1 tails never move; otherwise at least every other turn.
        std::vector<int> afterAdvances(size + 2, NEVER);
        afterAdvances[0] = 0;
        for (int s = 1, moved = 0; s <= 2 * size + 4 && moved <= size; s++)
            if ((turn + s - 1) % period != 0) afterAdvances[++moved] = s;
        std::vector<int> opensAt(size, NEVER), others;
        std::vector<int> mine;
        for (int i = 0; i < size; i++) {
            char c = map.tiles[i];
            if (c == '.' || c == '+' || c == '-') opensAt[i] = 0;
            if (c < 'A' || c > 'H') continue;
            std::vector<int> body = snake(map, i);  // head first
            for (size_t k = 0; k < body.size(); k++)
                opensAt[body[k]] = afterAdvances[body.size() - k];
            if (c == me) mine = body;
            else others.push_back(i);
        }
        if (mine.empty()) mine.push_back(0);
        const int head = mine[0], length = static_cast<int>(mine.size());
        long best = -(1L << 62);
        int choice = 0;
        std::vector<int> when;
        for (int d = 0; d < 4; d++) {
            int to = map.step(head, d);
            char c = map.tiles[to];
            long score;
            bool dies = (length > 1 && to == mine[1]) || opensAt[to] > 1 ||
                        (c == '-' && length == 1 && turn % period != 0);
            if (dies) {
                score = -(1L << 60);
            } else {
                // A sign changes how fast my own tail moves away from now on.
                int shift = turn % period == 0 ? 0 : c == '+' ? 1 : c == '-' ? -1 : 0;
                std::vector<int> opens = opensAt;
                for (int k = 1; k < length; k++) {
                    int advances = std::max(1, length - k + shift);
                    opens[mine[k]] = afterAdvances[std::min<size_t>(advances, size)];
                }
                score = room(map, opens, to, head, when);
                for (int other : others)
                    for (int e = 0; e < 4; e++)
                        if (map.step(other, e) == to) score -= 1L << 40;
                if (opensAt[to] == 1 && to != mine.back()) score -= 1L << 39;
            }
            if (score > best) best = score, choice = d;
        }
        std::printf("%c\n", ARROWS[choice]);
        std::fflush(stdout);
    }
}
