/* The well-behaved opponent (and the twin of boardwriter): right along the top, then down. */
int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Steady";
