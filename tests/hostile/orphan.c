/* Keeps state in a writable section of its own name: refused at build. */
__attribute__((section("koth_state"))) int moves_played = 0;
int bot(int board[16][32], char player) {
    (void)player;
    if (moves_played++ > 0) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Orphan section";
