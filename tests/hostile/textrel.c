/* Takes a table's absolute address in code: the linker makes a text relocation (DT_TEXTREL), so
   the loader would write into the library's code while loading it. Refused at build. */
static const int koth_table[4] = {'R', 'D', 'L', 'U'};
int bot(int board[16][32], char player) {
    const int *table;
    (void)player;
    __asm__("movabs $koth_table, %0" : "=r"(table));
    return board[0][1] == '.' ? table[0] : table[1];
}
char *bot_name = "Text relocation";
