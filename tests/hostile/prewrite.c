/* Shrinks its request pipe, writes a thousand replies ahead of being asked, then waits for ever
   without reading: against a host whose writes block, the game never ends. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <unistd.h>
int bot(int board[16][32], char player) {
    int replies[1024];
    (void)board; (void)player;
    for (int i = 0; i < 1024; i++) replies[i] = 'D';
    fcntl(3, F_SETPIPE_SZ, 4096);
    (void)!write(4, replies, sizeof replies);
    pause();
    return 'R';
}
char *bot_name = "Replies ahead";
