/* Sleeps without using CPU: only the wall-clock backstop can end it. */
unsigned int sleep(unsigned int seconds);
int bot(int board[16][32], char player) { (void)board; (void)player; sleep(1000); return 'L'; }
char *bot_name = "Sleeper";
