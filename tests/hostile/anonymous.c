/* Keeps state in writable bytes that no symbol names: refused at build. */
__asm__(".data\n.balign 8\nkoth_slot_label_local:\n.quad 0\n.text");
int bot(int board[16][32], char player) {
    long *slot;
    (void)player;
    __asm__("leaq koth_slot_label_local(%%rip), %0" : "=r"(slot));
    if ((*slot)++ > 0) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Anonymous";
