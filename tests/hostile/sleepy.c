/* A well-behaved opponent that takes its time (sleeping, not computing) over its first moves:
   150 ms per move until it owns 8 cells, then at once. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>
int bot(int board[16][32], char player) {
    struct timespec pause = {0, 150 * 1000 * 1000};
    int mine = 0;
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++)
            mine += board[y][x] == player || board[y][x] == (player == 'X' ? '*' : '@');
    if (mine < 8) nanosleep(&pause, 0);
    if (player == 'X') return board[0][1] == '.' ? 'R' : 'D';
    return board[15][30] == '.' ? 'L' : 'U';
}
char *bot_name = "Sleepy";
