/* Tries to create files (absolute path and working directory); 'Q' if either open succeeded. */
#include <stdio.h>
int bot(int board[16][32], char player) {
    (void)player;
    FILE *a = fopen("@OUTFILE@", "w");
    FILE *b = fopen("koth-hostile-write.txt", "w");
    if (a || b) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Writes files";
