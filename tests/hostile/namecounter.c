/* Counts its calls in bot_name, the one writable datum the rules allow: the pointer moves one
   character along its own name each call. 'Q' if it finds it moved: something it wrote outlived
   the call that wrote it (the host sets bot_name back before every call). */
static const char NAME[] = "Counts in its name, and in its name, and in its name";
char *bot_name = (char *)NAME;
int bot(int board[16][32], char player) {
    (void)player;
    long calls = bot_name - NAME;
    if (calls < 0 || calls > 40) calls = 40;
    bot_name = (char *)NAME + calls + 1;
    if (calls > 0) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
