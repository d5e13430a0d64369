/* Puts a pointer in the old .ctors list, which the linker folds into .init_array. Refused. */
#include <stdlib.h>
static void early(void) { abort(); }
__attribute__((section(".ctors"), used)) static void (*run_early)(void) = early;
int bot(int board[16][32], char player) {
    (void)player;
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Ctors";
