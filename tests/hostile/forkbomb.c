/* Forks forever; returns 'Q' (an invalid move) if any fork succeeded in the parent. */
int fork(void);
int bot(int board[16][32], char player) {
    (void)board; (void)player;
    for (int i = 0; i < 100000; i++) {
        int pid = fork();
        if (pid == 0) for (;;) {}
        if (pid > 0) return 'Q';
    }
    for (;;) {}
}
char *bot_name = "Fork bomb";
