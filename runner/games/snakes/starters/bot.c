/* A Snakes bot: a C function koth calls once a move (runner/games/snakes/rules.md).
 * board[y][x]: '.', 'X', 'O', '*' (X's head), '@' (O's head); player is 'X' or 'O'.
 * Return 'L', 'R', 'U' or 'D'. Keep no writable global or static data besides bot_name. */
int bot(int board[16][32], char player) {
    (void)board;
    (void)player;
    return 'R';
}

char *bot_name = "My Bot";
