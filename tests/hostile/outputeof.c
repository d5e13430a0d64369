/* Closes its output (the host's end of that pipe then reads as ended at every poll), then takes
   300 ms over its first move: the host must wait for that reply without spinning. */
#define _POSIX_C_SOURCE 199309L
#include <time.h>
#include <unistd.h>
int bot(int board[16][32], char player) {
    struct timespec pause = {0, 300 * 1000 * 1000};
    int x = player == 'X', first = x ? board[0][1] == '.' : board[15][30] == '.';
    close(1);
    close(2);
    if (first) nanosleep(&pause, 0);
    if (x) return first ? 'R' : 'D';
    return first ? 'L' : 'U';
}
char *bot_name = "Output shut";
