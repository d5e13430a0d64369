/* Keeps state in a section named like the linker's read-only-after-relocation ones; the linker
   keeps only `.data.rel.ro` and `.data.rel.ro.*` read-only, so this is writable: refused. */
__attribute__((section(".data.rel.rostate"))) int moves_played = 0;
int bot(int board[16][32], char player) {
    (void)player;
    if (moves_played++ > 0) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Rostate";
