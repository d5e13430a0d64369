/* Exits with the code the sandbox's own set-up failure used to have (98): a host that reads a
   bot's exit status as its own voids the game instead of scoring the loss. */
#include <unistd.h>
int bot(int board[16][32], char player) { (void)board; (void)player; _exit(98); }
char *bot_name = "Exits 98";
