// voronoi: a Multisnake bot that plans with territory.
//
// Every turn it rebuilds each live snake from the map (walking back from the head along the body
// arrows that point into it) and works out when each body tile will be free: the tile i steps
// from a tail frees once that tail has advanced i + 1 times, and tails stand still on the turns
// every snake grows (turn t with t mod T == 0). For each of its four moves it then runs two
// time-aware breadth-first searches, one from where its head would be and one from every other
// live head, and counts the tiles it would reach strictly first (its territory) and how much room
// it would have at all. It picks the move with the most territory; moves that die for certain
// (walls, bodies that stay, reversing, a '-' at length 1) come last, moves that might meet
// another head on one tile or follow a tail that might not move come just before them. Once a
// move leads into a region no other head can reach, what counts is how long it can live there: it
// tries every path a few moves deep (deeper in smaller regions, within a fixed amount of work)
// and values each by the room left at its end. Ties go to the move that hugs walls and bodies.
//
// Protocol: "W H N M T" once, then H lines of W characters per turn; one line back each turn,
// flushed. Exits at the end of input.
#include <cstdio>
#include <cstring>
#include <vector>
#include <algorithm>

namespace {

constexpr int INF = 1 << 29;
const char ARROWS[4] = {'^', '>', 'v', '<'};
const int DX[4] = {0, 1, 0, -1};
const int DY[4] = {-1, 0, 1, 0};

int W, H, N, M, T;
std::vector<std::vector<int>> nb;  // nb[tile][d]
std::vector<char> grid;            // the map, row by row
std::vector<int> freeAt;           // the first step (1 = this turn) at which a tile may be entered

int arrowDir(char c) {
    for (int d = 0; d < 4; d++)
        if (ARROWS[d] == c) return d;
    return -1;
}

bool isHead(char c) { return c >= 'A' && c <= 'H'; }

// The body of the live snake whose head is at `head`, tail first.
std::vector<int> bodyOf(int head) {
    std::vector<int> body{head};
    std::vector<char> seen(W * H, 0);
    seen[head] = 1;
    for (;;) {
        int cur = body.back(), prev = -1;
        for (int d = 0; d < 4; d++) {
            int from = nb[cur][(d + 2) % 4];  // the neighbour whose arrow d points into cur
            if (!seen[from] && arrowDir(grid[from]) == d) prev = from;
        }
        if (prev < 0) break;
        seen[prev] = 1;
        body.push_back(prev);
    }
    std::reverse(body.begin(), body.end());
    return body;
}

// Breadth-first search over time: dist[v] is the step at which a head first stands on v, a tile
// being enterable at step s when freeAt[v] <= s. `blocked` tiles are never entered.
void search(const std::vector<int>& starts, int startStep, const std::vector<char>& blocked,
            std::vector<int>& dist) {
    dist.assign(W * H, INF);
    std::vector<int> queue;
    queue.reserve(W * H);
    for (int s : starts) {
        dist[s] = startStep;
        queue.push_back(s);
    }
    for (size_t q = 0; q < queue.size(); q++) {
        int u = queue[q], step = dist[u] + 1;
        for (int d = 0; d < 4; d++) {
            int v = nb[u][d];
            if (dist[v] != INF || blocked[v] || freeAt[v] > step) continue;
            dist[v] = step;
            queue.push_back(v);
        }
    }
}

// Filling a closed room: how many more moves a head on `u` at `step` can make, found by trying
// every path `depth` moves deep and counting the room left at its end. `budget` bounds the work
// (tiles visited); when it runs out a path is valued at `fallback`.
std::vector<char> onPath;
std::vector<int> seenAt;
int seenMark = 0;
long budget = 0;

int roomLeft(int u, int step, const std::vector<char>& blocked) {
    std::vector<std::pair<int, int>> queue{{u, step}};
    seenAt[u] = ++seenMark;
    for (size_t q = 0; q < queue.size(); q++) {
        auto [t, at] = queue[q];
        for (int d = 0; d < 4; d++) {
            int v = nb[t][d];
            if (seenAt[v] == seenMark || onPath[v] || blocked[v] || freeAt[v] > at + 1) continue;
            seenAt[v] = seenMark;
            queue.push_back({v, at + 1});
        }
    }
    budget -= static_cast<long>(queue.size());
    return static_cast<int>(queue.size()) - 1;
}

int fill(int u, int step, int depth, int fallback, const std::vector<char>& blocked) {
    if (budget <= 0) return fallback;
    if (depth == 0) return roomLeft(u, step, blocked);
    int best = 0;
    for (int d = 0; d < 4; d++) {
        int v = nb[u][d];
        if (onPath[v] || blocked[v] || freeAt[v] > step + 1) continue;
        onPath[v] = 1;
        best = std::max(best, 1 + fill(v, step + 1, depth - 1, fallback - 1, blocked));
        onPath[v] = 0;
    }
    return best;
}

}  // namespace

int main() {
    if (std::scanf("%d %d %d %d %d", &W, &H, &N, &M, &T) != 5) return 0;
    nb.assign(W * H, std::vector<int>(4));
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            for (int d = 0; d < 4; d++)
                nb[y * W + x][d] = ((y + DY[d] + H) % H) * W + (x + DX[d] + W) % W;
    const char me = static_cast<char>('A' + M - 1);
    grid.assign(W * H, '.');
    std::vector<char> line(W + 2);
    for (int turn = 1;; turn++) {
        for (int y = 0; y < H; y++) {
            if (std::scanf("%151s", line.data()) != 1) return 0;
            std::memcpy(&grid[y * W], line.data(), W);
        }
        // steps[k]: the least number of turns from now after which a tail has advanced k times.
        const int most = W * H + 2;
        std::vector<int> steps(most + 1, INF);
        steps[0] = 0;
        for (int s = 1, advanced = 0; s <= 2 * most && advanced < most; s++) {
            if ((turn + s - 1) % T != 0) steps[++advanced] = s;
        }
        freeAt.assign(W * H, INF);
        int myHead = -1;
        std::vector<int> myBody, heads;
        for (int i = 0; i < W * H; i++) {
            char c = grid[i];
            if (c == '.' || c == '+' || c == '-') freeAt[i] = 0;
            if (!isHead(c)) continue;
            std::vector<int> body = bodyOf(i);
            for (size_t k = 0; k < body.size(); k++) freeAt[body[k]] = steps[k + 1];
            if (c == me) {
                myHead = i;
                myBody = body;
            } else {
                heads.push_back(i);
            }
        }
        if (myHead < 0) {
            std::puts("^");
            std::fflush(stdout);
            continue;
        }
        const int length = static_cast<int>(myBody.size());
        const bool growth = turn % T == 0;
        const int neck = length > 1 ? myBody[length - 2] : -1;
        double best = -1e18;
        int choice = 0;
        std::vector<char> blocked(W * H, 0);
        onPath.assign(W * H, 0);
        seenAt.assign(W * H, 0);
        std::vector<int> mine, theirs;
        for (int d = 0; d < 4; d++) {
            int to = nb[myHead][d];
            char c = grid[to];
            double score;
            bool dies = to == neck || freeAt[to] > 1 || (c == '-' && length == 1 && !growth);
            if (to == myBody[0] && c != '+' && growth) dies = true;  // my tail stays this turn
            if (dies) {
                score = -1e12;
            } else {
                // A sign changes how fast my own tail moves away from now on.
                int shift = growth ? 0 : c == '+' ? 1 : c == '-' ? -1 : 0;
                for (int k = 0; k + 1 < length; k++)
                    freeAt[myBody[k]] = steps[std::min(most, std::max(1, k + 1 + shift))];
                blocked[to] = 1;
                blocked[myHead] = 1;
                std::vector<int> start{to};
                search(heads, 0, blocked, theirs);
                blocked[to] = 0;
                search(start, 1, blocked, mine);
                long room = 0, owned = 0, shared = 0, reachable = 0;
                for (int i = 0; i < W * H; i++) {
                    if (mine[i] == INF) continue;
                    room++;
                    if (theirs[i] != INF) reachable++;
                    if (mine[i] < theirs[i]) owned++;
                    else if (mine[i] == theirs[i]) shared++;
                }
                score = owned + 0.3 * shared;
                if (reachable == 0) {
                    // No other head can reach my room: what counts is how long I can fill it.
                    int depth = room <= 300 ? 10 : room <= 2000 ? 6 : room <= 6000 ? 3 : 1;
                    budget = 400000;
                    onPath[to] = 1;
                    score = fill(to, 1, depth, static_cast<int>(room) - 1, blocked);
                    onPath[to] = 0;
                    if (score < length + 2) score -= 1e6 - score * 1e3;  // a trap
                } else if (room < length + 2) {
                    score -= 1e6 - room * 1e3;  // a trap: room to die in
                }
                for (int k = 0; k + 1 < length; k++) freeAt[myBody[k]] = steps[k + 1];
                int hug = 0;
                for (int e = 0; e < 4; e++) hug += freeAt[nb[to][e]] != 0;
                score += 0.01 * hug;
                if (c == '-' && length > 1) score += 0.5;
                for (int h : heads) {  // another head next to my target might enter it too
                    for (int e = 0; e < 4; e++)
                        if (nb[h][e] == to) score -= 1e5;
                }
                if (freeAt[to] == 1 && to != myBody[0]) score -= 5e4;  // a tail that may stay
            }
            if (score > best) {
                best = score;
                choice = d;
            }
        }
        std::printf("%c\n", ARROWS[choice]);
        std::fflush(stdout);
    }
}
