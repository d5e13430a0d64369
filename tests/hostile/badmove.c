int bot(int board[16][32], char player) { (void)board; (void)player; return 'Q'; }
char *bot_name = "Returns Q";
