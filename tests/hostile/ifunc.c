/* `bot` is an indirect function: its resolver runs when the library is loaded, before `bot` is
   ever called (here it would keep a count of loads). Refused at build. */
static int real_bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
static void *pick_bot(void) { return (void *)real_bot; }
int bot(int board[16][32], char player) __attribute__((ifunc("pick_bot")));
char *bot_name = "Ifunc";
