/* Allocates 1 GiB and touches every page. */
#include <stdlib.h>
int bot(int board[16][32], char player) {
    (void)board; (void)player;
    size_t size = (size_t)1 << 30;
    volatile char *p = malloc(size);
    for (size_t i = 0; i < size; i += 4096) p[i] = 1;
    return 'L';
}
char *bot_name = "Memory hog";
