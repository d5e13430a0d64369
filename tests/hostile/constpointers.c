/* A genuine table of pointers to constants: the compiler puts it in .data.rel.ro, which the
   loader makes read-only after relocation. Allowed, and it plays. */
const char *const koth_moves[] = {"R", "D", "L", "U"};
int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? koth_moves[0][0] : koth_moves[1][0];
}
char *bot_name = "Const pointers";
