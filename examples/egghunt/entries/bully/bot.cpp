// bully: an Easter Egg Hunt bot that takes the eggs it can have and attacks everything else.
//
// In sight of an egg it steps toward the nearest one. If no other player is next to that egg it
// collects it (N); if one is, a tie or a lost fight is likely, so it smashes the egg instead (A):
// what it cannot have, nobody gets. With no egg in sight it goes after the nearest player it sees,
// attacking (A beats a player doing nothing), and with nobody in sight it walks straight on,
// turning clockwise at walls. Its memory is its heading, a keypad digit.
#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

namespace {

// the keypad 1 2 3 / 8 9 4 / 7 6 5 as steps (y grows downwards); 9 stays
const int DX[10] = {0, -1, 0, 1, 1, 1, 0, -1, -1, 0};
const int DY[10] = {0, -1, -1, -1, 0, 1, 1, 1, 0, 0};
const int CLOCKWISE[8] = {2, 3, 4, 5, 6, 7, 8, 1};

struct Window {
    std::vector<std::string> rows;

    char at(int dx, int dy) const { return rows[2 + dy][2 + dx]; }
    bool open(int d) const { return at(DX[d], DY[d]) == ' ' || at(DX[d], DY[d]) == 'o'; }

    // The nearest tile showing `what` (not the centre): found, and its offset.
    bool nearest(char what, int &gx, int &gy) const {
        int best = 100;
        for (int dy = -2; dy <= 2; dy++)
            for (int dx = -2; dx <= 2; dx++) {
                int d = std::max(std::abs(dx), std::abs(dy)) * 10 + std::abs(dx) + std::abs(dy);
                if ((dx || dy) && at(dx, dy) == what && d < best) best = d, gx = dx, gy = dy;
            }
        return best < 100;
    }

    // The open step that brings (gx, gy) nearest, or 9 when none brings it nearer.
    int toward(int gx, int gy) const {
        int choice = 9, best = std::max(std::abs(gx), std::abs(gy)) * 10;
        for (int d = 1; d <= 8; d++) {
            int rx = gx - DX[d], ry = gy - DY[d];
            int score = std::max(std::abs(rx), std::abs(ry)) * 10 + std::abs(rx) + std::abs(ry);
            if (open(d) && score < best) choice = d, best = score;
        }
        return choice;
    }

    bool player_next_to(int x, int y) const {
        for (int dy = y - 1; dy <= y + 1; dy++)
            for (int dx = x - 1; dx <= x + 1; dx++)
                if (std::abs(dx) <= 2 && std::abs(dy) <= 2 && (dx || dy) && at(dx, dy) == '*')
                    return true;
        return false;
    }
};

}  // namespace

int main() {
    Window w;
    std::string line, memory;
    for (int i = 0; i < 5; i++) {
        if (!std::getline(std::cin, line)) line.clear();
        line.resize(5, 'X');
        w.rows.push_back(line);
    }
    std::getline(std::cin, memory);
    int heading = memory.size() == 1 && memory[0] >= '1' && memory[0] <= '8' ? memory[0] - '0' : 4;

    int gx = 0, gy = 0, choice = 9;
    char action = 'A';
    if (w.nearest('o', gx, gy)) {
        choice = w.toward(gx, gy);
        if (choice != 9 && w.at(DX[choice], DY[choice]) == 'o')
            action = w.player_next_to(DX[choice], DY[choice]) ? 'A' : 'N';
    } else if (w.nearest('*', gx, gy)) {
        choice = w.toward(gx, gy);
    }
    if (choice == 9) {
        int start = 0;
        while (CLOCKWISE[start] != heading) start++;
        for (int k = 0; k < 8 && choice == 9; k++)
            if (w.open(CLOCKWISE[(start + k) % 8])) choice = CLOCKWISE[(start + k) % 8];
    }
    if (choice != 9) heading = choice;
    std::cout << choice << '\n' << action << '\n' << heading << '\n' << std::flush;
    return 0;
}
