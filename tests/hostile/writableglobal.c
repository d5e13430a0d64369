/* Keeps state in a writable global: refused at build. */
int state = 0;
int bot(int board[16][32], char player) { (void)board; (void)player; state++; return state % 2 ? 'R' : 'D'; }
char *bot_name = "Writable global";
