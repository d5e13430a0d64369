/* Puts code in a writable and executable section: refused at build. */
__attribute__((section(".wx_code,\"awx\",@progbits#"))) int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Writable code";
