/* Dereferences NULL on its first move. */
int bot(int board[16][32], char player) { (void)board; (void)player; *(volatile int *)0 = 1; return 'L'; }
char *bot_name = "Segfault";
