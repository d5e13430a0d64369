/* Floods stdout and stderr without end. */
#include <stdio.h>
int bot(int board[16][32], char player) {
    (void)board; (void)player;
    for (;;) { fputs("flood flood flood flood flood flood flood flood\n", stdout); fputs("err err err\n", stderr); }
}
char *bot_name = "Flood";
