/* Names its state section like the linker's read-only-after-relocation ones, `.data.rel.ro.*`:
   the linker does make it read-only, so the check lets it build, and the first write faults. */
__attribute__((section(".data.rel.ro.koth"))) int moves_played = 0;
int bot(int board[16][32], char player) {
    (void)player;
    if (((volatile int *)&moves_played)[0]++ > 0) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Relro write";
