/* A destructor runs when the library is unloaded, outside any move. Refused at build. */
#include <stdlib.h>
__attribute__((destructor)) static void late(void) { abort(); }
int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Destructor";
