// lookahead: a Domineering bot that looks two moves ahead.
//
// For each of its dominoes it tries every reply the opponent could make (dominoes, and the
// opponent's bomb only when the opponent would have no domino left) and assumes the reply worst
// for it; a position is scored "my places minus the opponent's", with the opponent's safe places
// (dominoes it can never be blocked from) counted against it twice. It plays the domino whose
// worst case is best. Like greedy it keeps its own bomb until no domino fits, then explodes it
// on the usable square that scores best one move ahead. The request does not say whether the
// opponent's bomb is spent; it assumes it is not.
//
// Protocol: started afresh for every move; reads one line of numbers: the orientation
// (1 horizontal, 2 vertical), the 169 cells row by row (0 empty, 1 horizontal domino,
// 2 vertical) and its bombs left; writes "type row col" and exits.
#include <array>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

namespace {

constexpr int N = 13;
constexpr unsigned kFull = (1u << N) - 1;
using Rows = std::array<unsigned, N>;  // bit c of row r: cell (r, c) is empty

int places(const Rows& f, int side) {
    int n = 0;
    if (side == 0) {
        for (int r = 0; r < N; ++r) n += __builtin_popcount(f[r] & (f[r] >> 1));
    } else {
        for (int r = 0; r + 1 < N; ++r) n += __builtin_popcount(f[r] & f[r + 1]);
    }
    return n;
}

int safe(const Rows& f, int side) {  // dominoes `side` can place that the other side can't block
    int n = 0;
    if (side == 0) {
        for (int r = 0; r < N; ++r) {
            unsigned m = f[r] & ~(r > 0 ? f[r - 1] : 0) & ~(r + 1 < N ? f[r + 1] : 0);
            for (int c = 0; c + 1 < N; ++c)
                if ((m >> c & 3) == 3) ++n, ++c;
        }
    } else {
        unsigned open = 0;
        for (int r = 0; r < N; ++r) {
            unsigned m = f[r] & ~(f[r] << 1) & ~(f[r] >> 1) & kFull;
            unsigned paired = open & m;
            n += __builtin_popcount(paired);
            open = m & ~paired;
        }
    }
    return n;
}

int score(const Rows& f, int me) {
    return places(f, me) - places(f, 1 - me) - 2 * safe(f, 1 - me) + safe(f, me);
}

std::vector<std::pair<int, int>> spots(const Rows& f, int side) {
    std::vector<std::pair<int, int>> out;
    int dr = side, dc = 1 - side;
    for (int r = 0; r + dr < N; ++r)
        for (int c = 0; c + dc < N; ++c)
            if ((f[r] >> c & 1) && (f[r + dr] >> (c + dc) & 1)) out.emplace_back(r, c);
    return out;
}

Rows place(Rows f, int side, int r, int c) {
    f[r] &= ~(1u << c);
    f[r + side] &= ~(1u << (c + 1 - side));
    return f;
}

struct Pairing {
    std::array<std::string, N> digits;
    std::array<std::array<int, N>, N> pr{}, pc{};

    void build() {
        std::array<std::array<bool, N>, N> done{};
        for (int r = 0; r < N; ++r)
            for (int c = 0; c < N; ++c) {
                if (digits[r][c] == '0' || done[r][c]) continue;
                int r2 = digits[r][c] == '1' ? r : r + 1, c2 = digits[r][c] == '1' ? c + 1 : c;
                pr[r][c] = r2, pc[r][c] = c2, pr[r2][c2] = r, pc[r2][c2] = c;
                done[r][c] = done[r2][c2] = true;
            }
    }

    // After dominoes were added to `f` (cells no longer empty but absent from `digits`), only
    // squares over cells the digits know are judged; new dominoes lie inside one square or not.
    bool usable(int r0, int c0) const {
        for (int r = r0; r < r0 + 5; ++r)
            for (int c = c0; c < c0 + 5; ++c) {
                if (digits[r][c] == '0') continue;
                int r2 = pr[r][c], c2 = pc[r][c];
                if (r2 < r0 || r2 >= r0 + 5 || c2 < c0 || c2 >= c0 + 5) return false;
            }
        return true;
    }
};

}  // namespace

int main() {
    int orientation = 0, bombs = 0;
    Pairing board;
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
    int me = orientation == 1 ? 0 : 1, them = 1 - me;
    Rows free{};
    for (int r = 0; r < N; ++r)
        for (int c = 0; c < N; ++c)
            if (board.digits[r][c] == '0') free[r] |= 1u << c;
    board.build();

    int best = -1000000, br = -1, bc = -1;
    for (auto [r, c] : spots(free, me)) {
        Rows after = place(free, me, r, c);
        auto replies = spots(after, them);
        int worst = 1000000;
        for (auto [r2, c2] : replies) {
            int s = score(place(after, them, r2, c2), me);
            if (s < worst) worst = s;
            if (worst <= best) break;  // this domino can no longer beat the best one
        }
        if (replies.empty()) {
            // The opponent has no domino left and must bomb: assume its best square. A square
            // is usable if it cuts none of the dominoes the request showed (board.usable) nor
            // the one just placed (checked here).
            worst = 500000;
            for (int r0 = 0; r0 + 5 <= N; ++r0)
                for (int c0 = 0; c0 + 5 <= N; ++c0) {
                    bool mine_inside = r >= r0 && r + me < r0 + 5 && c >= c0 && c + 1 - me < c0 + 5;
                    bool mine_outside = (r < r0 || r >= r0 + 5 || c < c0 || c >= c0 + 5) &&
                                        (r + me < r0 || r + me >= r0 + 5 || c + 1 - me < c0 ||
                                         c + 1 - me >= c0 + 5);
                    if (!(mine_inside || mine_outside) || !board.usable(r0, c0)) continue;
                    Rows f = after;
                    for (int i = r0; i < r0 + 5; ++i) f[i] |= 31u << c0;
                    int s = score(f, me);
                    if (s < worst) worst = s;
                }
        }
        if (worst > best) best = worst, br = r, bc = c;
    }
    if (br >= 0) {
        std::printf("1 %d %d\n", br, bc);
    } else {
        int bestb = -1000000, rr = -1, cc = -1;
        for (int r0 = 0; bombs > 0 && r0 + 5 <= N; ++r0)
            for (int c0 = 0; c0 + 5 <= N; ++c0) {
                if (!board.usable(r0, c0)) continue;
                Rows f = free;
                for (int i = r0; i < r0 + 5; ++i) f[i] |= 31u << c0;
                int s = score(f, me);
                if (s > bestb) bestb = s, rr = r0, cc = c0;
            }
        if (rr >= 0) {
            std::printf("2 %d %d\n", rr, cc);
        } else {
            std::printf("1 0 0\n");  // no legal move: the game is lost already
        }
    }
    std::fflush(stdout);
    return 0;
}
