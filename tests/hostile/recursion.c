/* Unbounded recursion: overflows the stack. */
static int dive(volatile int depth) { volatile char pad[512]; pad[0] = (char)depth; return dive(depth + 1) + pad[0]; }
int bot(int board[16][32], char player) { (void)player; return dive(board[0][0]); }
char *bot_name = "Recursion";
