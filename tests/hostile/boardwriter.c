/* Scribbles over the board it is given, then plays like tests/hostile/steady.c: harmless. */
int bot(int board[16][32], char player) {
    (void)player;
    int right = board[0][1] == '.';
    for (int y = 0; y < 16; y++) for (int x = 0; x < 32; x++) board[y][x] = 'X';
    return right ? 'R' : 'D';
}
char *bot_name = "Board writer";
