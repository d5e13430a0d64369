/* Defines `_init`, which the linker makes the library's DT_INIT: the loader would call it.
   Refused at build. */
#include <stdlib.h>
void _init(void) { abort(); }
int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Init function";
