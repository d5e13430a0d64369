// bomber: a Domineering bot that plays for safe places and times its bomb.
//
// Each domino is scored one move ahead by "mine minus the opponent's" over two counts: places
// (every spot a domino fits) and safe places (dominoes the opponent can never block, counted
// twice). Every usable bomb square is scored the same way. It explodes its bomb
//   - when no domino fits (it would lose otherwise),
//   - when it has at most three places left and the best square beats the best domino, or
//   - at any time when the best square beats the best domino by a wide margin (a big swing).
// A bomb is usable when no domino lies across the square's border; a run of 1s in a row (2s in
// a column) is whole dominoes end to end, so cells pair up from the run's start.
//
// Protocol: started afresh for every move; reads one line of numbers: the orientation
// (1 horizontal, 2 vertical), the 169 cells row by row (0 empty, 1 horizontal domino,
// 2 vertical) and its bombs left; writes "type row col" and exits.
#include <array>
#include <cstdio>
#include <iostream>
#include <string>

namespace {

constexpr int N = 13;
constexpr int kSwing = 8;      // a bomb this much better than the best domino is worth it now
constexpr int kLastPlaces = 3;  // this few places left: the bomb only has to beat the best domino

using Rows = std::array<unsigned, N>;  // bit c of row r: cell (r, c) is empty

int pairs(unsigned run_mask) {  // non-overlapping horizontal pairs in one row
    int total = 0, run = 0;
    for (int c = 0; c <= N; ++c) {
        if (c < N && (run_mask >> c & 1)) {
            ++run;
        } else {
            total += run / 2;
            run = 0;
        }
    }
    return total;
}

struct Counts {
    int places[2] = {0, 0};
    int safe[2] = {0, 0};
};

Counts count(const Rows& f) {
    Counts k;
    unsigned open = 0;  // vertical safe cells waiting for a partner below
    for (int r = 0; r < N; ++r) {
        unsigned up = r > 0 ? f[r - 1] : 0, down = r + 1 < N ? f[r + 1] : 0;
        k.places[0] += __builtin_popcount(f[r] & (f[r] >> 1));
        k.places[1] += __builtin_popcount(f[r] & down);
        k.safe[0] += pairs(f[r] & ~up & ~down);
        unsigned vsafe = f[r] & ~(f[r] << 1) & ~(f[r] >> 1) & ((1u << N) - 1);
        unsigned paired = open & vsafe;
        k.safe[1] += __builtin_popcount(paired);
        open = vsafe & ~paired;
    }
    return k;
}

int score(const Rows& f, int me) {
    Counts k = count(f);
    return (k.places[me] - k.places[1 - me]) + 2 * (k.safe[me] - k.safe[1 - me]);
}

struct Board {
    std::array<std::string, N> digits;
    std::array<std::array<int, N>, N> partner_r{}, partner_c{};

    void pair_up() {
        std::array<std::array<bool, N>, N> done{};
        for (int r = 0; r < N; ++r) {
            for (int c = 0; c < N; ++c) {
                if (digits[r][c] == '0' || done[r][c]) continue;
                int r2 = digits[r][c] == '1' ? r : r + 1, c2 = digits[r][c] == '1' ? c + 1 : c;
                partner_r[r][c] = r2, partner_c[r][c] = c2;
                partner_r[r2][c2] = r, partner_c[r2][c2] = c;
                done[r][c] = done[r2][c2] = true;
            }
        }
    }

    bool usable(int r0, int c0) const {
        auto inside = [&](int r, int c) { return r >= r0 && r < r0 + 5 && c >= c0 && c < c0 + 5; };
        for (int r = r0; r < r0 + 5; ++r)
            for (int c = c0; c < c0 + 5; ++c)
                if (digits[r][c] != '0' && !inside(partner_r[r][c], partner_c[r][c])) return false;
        return true;
    }
};

}  // namespace

int main() {
    int orientation = 0, bombs = 0;
    Board board;
    if (!(std::cin >> orientation)) return 0;
    for (auto& line : board.digits) {  // each row's cells as digits, '0' to '2'
        line.assign(N, '0');
        for (auto& digit : line) {
            int value = -1;
            if (!(std::cin >> value) || value < 0 || value > 2) return 0;
            digit = static_cast<char>('0' + value);
        }
    }
    if (!(std::cin >> bombs)) return 0;
    int me = orientation == 1 ? 0 : 1;
    Rows free{};
    for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c)
            if (board.digits[r][c] == '0') free[r] |= 1u << c;

    int dr = me, dc = 1 - me;
    int places = 0, best_place = -100000, pr = -1, pc = -1;
    for (int r = 0; r + dr < N; ++r) {
        for (int c = 0; c + dc < N; ++c) {
            if (!(free[r] >> c & 1) || !(free[r + dr] >> (c + dc) & 1)) continue;
            ++places;
            Rows f = free;
            f[r] &= ~(1u << c);
            f[r + dr] &= ~(1u << (c + dc));
            int s = score(f, me);
            if (s > best_place) best_place = s, pr = r, pc = c;
        }
    }
    int best_bomb = -100000, br = -1, bc = -1;
    if (bombs > 0) {
        board.pair_up();
        for (int r = 0; r + 5 <= N; ++r) {
            for (int c = 0; c + 5 <= N; ++c) {
                if (!board.usable(r, c)) continue;
                Rows f = free;
                for (int i = r; i < r + 5; ++i) f[i] |= 31u << c;
                int s = score(f, me);
                if (s > best_bomb) best_bomb = s, br = r, bc = c;
            }
        }
    }
    bool bomb = br >= 0 && (pr < 0 || (places <= kLastPlaces && best_bomb > best_place) ||
                            best_bomb >= best_place + kSwing);
    if (bomb) {
        std::printf("2 %d %d\n", br, bc);
    } else if (pr >= 0) {
        std::printf("1 %d %d\n", pr, pc);
    } else {
        std::printf("1 0 0\n");  // no legal move: the game is lost already
    }
    std::fflush(stdout);
    return 0;
}
