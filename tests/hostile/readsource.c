/* Tries to read another entry's source file; 'Q' if it could. */
#include <stdio.h>
int bot(int board[16][32], char player) {
    (void)player;
    FILE *f = fopen("@SECRET@", "r");
    if (f && fgetc(f) != EOF) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Reads sources";
