/* random: the weakest baseline. Picks uniformly among the moves that stay on the board and do not
 * bump into the enemy head, using rand() (the host starts a fresh process per game, so the
 * sequence is the same every game and seasons stay reproducible). */
#include <stdlib.h>

#define W 32
#define H 16

static const int DX[4] = {-1, 1, 0, 0};
static const int DY[4] = {0, 0, -1, 1};
static const char MOVES[4] = {'L', 'R', 'U', 'D'};

int bot(int board[H][W], char player)
{
    int my_head = player == 'X' ? '*' : '@';
    int enemy_head = player == 'X' ? '@' : '*';
    int hx = 0, hy = 0;
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++)
            if (board[y][x] == my_head) {
                hx = x;
                hy = y;
            }

    int legal[4], n = 0;
    for (int d = 0; d < 4; d++) {
        int x = hx + DX[d], y = hy + DY[d];
        if (x >= 0 && x < W && y >= 0 && y < H && board[y][x] != enemy_head)
            legal[n++] = d;
    }
    if (n == 0)
        return MOVES[rand() % 4];
    return MOVES[legal[rand() % n]];
}

char *bot_name = "Random Walker";
