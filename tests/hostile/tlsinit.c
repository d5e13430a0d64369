/* A thread-local with an initialiser (a TLS template the loader copies): refused at build. */
__thread int moves_played = 1;
int bot(int board[16][32], char player) {
    (void)player;
    if (moves_played++ > 1) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "TLS";
