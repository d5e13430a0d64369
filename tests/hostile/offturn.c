/* Thinks on its opponent's time: on its first call it writes its reply itself, then every call
   burns CPU until the host's next request arrives and only then returns (a move for a board it
   has not seen). Against a host that samples CPU only between request and reply, its record
   shows almost nothing. It prints the CPU it really used. */
#define _GNU_SOURCE
#include <poll.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}
int bot(int board[16][32], char player) {
    int mine = 0, reply = 'D';
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 32; x++)
            mine += board[y][x] == player || board[y][x] == (player == 'X' ? '*' : '@');
    if (mine == 1) (void)!write(4, &reply, sizeof reply);  /* first call: answer it ourselves */
    struct pollfd next = {3, POLLIN, 0};
    volatile unsigned long spin = 0;
    while (poll(&next, 1, 0) == 0) spin++;  /* the host is busy with the opponent: burn CPU */
    printf("cpu %.6f\n", cpu());
    fflush(stdout);
    return 'D';
}
char *bot_name = "Thinks off-turn";
