/* Closes and writes to fds 0-2, then plays on: harmless, the protocol uses other descriptors. */
int close(int fd);
long write(int fd, const void *buf, unsigned long n);
int bot(int board[16][32], char player) {
    (void)player;
    write(0, "x", 1); write(1, "hello\n", 6); write(2, "oops\n", 5);
    close(0); close(1); close(2);
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Close fds";
