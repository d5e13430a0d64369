/* A helper is an indirect function: its resolver runs at load (an R_X86_64_IRELATIVE
   relocation) and here aborts the loader. Refused at build. */
#include <stdlib.h>
static int right(int cell) { return cell == '.' ? 'R' : 'D'; }
static void *pick(void) { abort(); return (void *)right; }
static int choose(int cell) __attribute__((ifunc("pick")));
int bot(int board[16][32], char player) {
    (void)player;
    return choose(board[0][1]);
}
char *bot_name = "Irelative";
