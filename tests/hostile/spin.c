/* Never returns: an infinite loop on the CPU. */
int bot(int board[16][32], char player) { (void)player; volatile int x = 0; for (;;) x += board[0][0]; }
char *bot_name = "Spin";
