/* Keeps state in a static local: refused at build. */
int bot(int board[16][32], char player) { static int counter; (void)board; (void)player; counter++; return counter % 2 ? 'R' : 'D'; }
char *bot_name = "Static local";
