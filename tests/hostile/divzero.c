/* Integer division by zero on its first move (not 1/x: gcc turns that into a compare). */
int bot(int board[16][32], char player) {
    (void)player;
    volatile int zero = board[5][5] - '.';
    volatile int numerator = board[0][0] * 1000;
    return numerator / zero;
}
char *bot_name = "Divide by zero";
