// blocker: a Cluster bot that plays defence first.
//
// For each column it asks what the opponent would make there: the longest line either of the
// opponent's colours would get on the cell a pellet lands on. It takes a four of its own when it
// has one, else fills the cell where the opponent's line would be longest (a would-be four above
// all), and only when no opponent line of three is in reach does it build its own line. It avoids
// drops that let the opponent complete a four on the cell just above. It never rotates.
//
// Protocol: init message once, then one turn message per move; one reply line each, flushed.
// Exits on end of input.
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

int ncells = 0, ncols = 0, me = 0;
std::vector<std::vector<int>> nb;   // nb[cell][direction], -1 off the board
std::vector<std::vector<int>> tops; // tops[column][gravity]
std::vector<unsigned char> board;   // colour + 1, 0 empty
std::vector<int> pcell, pcolour;

bool rd(int &v) { return std::scanf("%d", &v) == 1; }

void need(bool ok) {
    if (!ok) std::exit(0);
}

int run_through(int x, int axis) {
    int v = board[x], run = 1;
    for (int d = axis; d <= axis + 3; d += 3)
        for (int n = nb[x][d]; n >= 0 && board[n] == v; n = nb[n][d]) run++;
    return run;
}

// The longest line colour would have through x if it stood there.
int line_if(int x, int colour) {
    unsigned char old = board[x];
    board[x] = static_cast<unsigned char>(colour + 1);
    int best = 0;
    for (int a = 0; a < 3; a++) best = std::max(best, run_through(x, a));
    board[x] = old;
    return best;
}

// Windows of four through x (on the three axes) holding only colour and empty cells, weighted by
// the square of how many of colour they hold, counting x as colour.
int potential(int x, int colour) {
    unsigned char old = board[x];
    board[x] = static_cast<unsigned char>(colour + 1);
    int total = 0;
    for (int axis = 0; axis < 3; axis++) {
        std::vector<int> cells;
        std::vector<int> back;
        for (int c = nb[x][axis + 3]; c >= 0 && back.size() < 3; c = nb[c][axis + 3]) back.push_back(c);
        cells.assign(back.rbegin(), back.rend());
        cells.push_back(x);
        int ahead = 0;
        for (int c = nb[x][axis]; c >= 0 && ahead < 3; c = nb[c][axis], ahead++) cells.push_back(c);
        for (size_t s = 0; s + 4 <= cells.size(); s++) {
            int own = 0;
            bool open = true;
            for (int j = 0; j < 4; j++) {
                int c = board[cells[s + j]];
                if (c == colour + 1) own++;
                else if (c) open = false;
            }
            if (open) total += own * own;
        }
    }
    board[x] = old;
    return total;
}

int landing(int g, int col) {
    int c = tops[col][g];
    if (board[c]) return -1;
    while (nb[c][g] >= 0 && !board[nb[c][g]]) c = nb[c][g];
    return c;
}

std::string choose(int g, const std::vector<int> &hand) {
    const int opp = 1 - me;
    long best = -(1L << 60);
    std::string move = "ROTATE 1"; // only if nothing can be placed
    for (size_t h = 0; h < hand.size(); h++) {
        int colour = hand[h];
        if (colour < 0 || colour > 3 || colour % 2 != me) continue;
        for (int i = 0; i < ncols; i++) {
            int x = landing(g, i);
            if (x < 0) continue;
            int mine = line_if(x, colour);
            if (mine >= 4) return "PLACE " + std::to_string(i) + " " + std::to_string(colour);
            int theirs = std::max(line_if(x, opp), line_if(x, opp + 2));
            long score = 0;
            if (theirs >= 4) score += 10000000; // they would win there next move
            else if (theirs == 3) score += 100000;
            else if (theirs == 2) score += 1000;
            score += 10L * (potential(x, opp) + potential(x, opp + 2));
            score += 20L * mine * mine + 5L * potential(x, colour);
            // The cell above x becomes playable: a four for them there would be our gift.
            int above = nb[x][(g + 3) % 6];
            if (above >= 0) {
                board[x] = static_cast<unsigned char>(colour + 1);
                if (std::max(line_if(above, opp), line_if(above, opp + 2)) >= 4) score -= 5000000;
                board[x] = 0;
            }
            score -= std::abs(i - ncols / 2);
            if (score > best) {
                best = score;
                move = "PLACE " + std::to_string(i) + " " + std::to_string(colour);
            }
        }
    }
    return move;
}

} // namespace

int main() {
    int n;
    need(rd(ncells));
    if (ncells <= 0 || ncells > 100000) return 0;
    nb.assign(ncells, std::vector<int>(6, -1));
    for (int i = 0; i < ncells; i++) {
        int idx;
        need(rd(idx));
        for (int d = 0; d < 6; d++) need(rd(nb[i][d]));
    }
    need(rd(ncols));
    if (ncols <= 0 || ncols > 100000) return 0;
    tops.assign(ncols, std::vector<int>(6, -1));
    for (int i = 0; i < ncols; i++) {
        int idx;
        need(rd(idx));
        for (int d = 0; d < 6; d++) need(rd(tops[i][d]));
    }
    for (int who = 0; who < 2; who++) {
        need(rd(n));
        for (int i = 0; i < n; i++) {
            int colour, amount;
            need(rd(colour) && rd(amount));
            if (who == 0 && i == 0) me = colour % 2;
        }
    }
    board.assign(ncells, 0);
    for (;;) {
        int g, k, col, top, m;
        if (!rd(g)) return 0;
        need(rd(k));
        for (int i = 0; i < k; i++) need(rd(col) && rd(top));
        need(rd(n));
        for (int i = 0; i < n; i++) {
            int p, cell, colour, mine;
            need(rd(p) && rd(cell) && rd(colour) && rd(mine));
            if (p < 0 || p > 100000) continue;
            if (static_cast<size_t>(p) >= pcell.size()) {
                pcell.resize(p + 1, -1);
                pcolour.resize(p + 1, 0);
            }
            pcell[p] = cell;
            pcolour[p] = colour;
        }
        need(rd(m));
        for (int i = 0; i < m; i++) {
            int p, cell;
            need(rd(p) && rd(cell));
            if (p >= 0 && static_cast<size_t>(p) < pcell.size()) pcell[p] = cell;
        }
        need(rd(n));
        std::vector<int> hand;
        for (int i = 0; i < n; i++) {
            int colour;
            need(rd(colour));
            hand.push_back(colour);
        }
        board.assign(ncells, 0);
        for (size_t p = 0; p < pcell.size(); p++)
            if (pcell[p] >= 0 && pcell[p] < ncells) board[pcell[p]] = static_cast<unsigned char>(pcolour[p] + 1);
        std::string move = choose(g, hand);
        std::printf("%s\n", move.c_str());
        std::fflush(stdout);
    }
}
