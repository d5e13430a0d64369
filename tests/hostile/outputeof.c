/* Shuts its output down (the host's end of that channel then reads as ended at every poll), then
   takes 300 ms over its first move: the host must wait for that reply without spinning. */
#define _POSIX_C_SOURCE 199309L
#include <sys/socket.h>
#include <time.h>
int bot(int board[16][32], char player) {
    struct timespec pause = {0, 300 * 1000 * 1000};
    int x = player == 'X', first = x ? board[0][1] == '.' : board[15][30] == '.';
    shutdown(1, SHUT_WR);
    shutdown(2, SHUT_WR);
    if (first) nanosleep(&pause, 0);
    if (x) return first ? 'R' : 'D';
    return first ? 'L' : 'U';
}
char *bot_name = "Output shut";
