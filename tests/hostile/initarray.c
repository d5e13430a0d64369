/* Puts a pointer in .init_array by hand (no constructor attribute): the loader would call it.
   Refused at build. */
#include <stdlib.h>
static void early(void) { abort(); }
__attribute__((section(".init_array"), used)) static void (*run_early)(void) = early;
int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Init array";
