/* Tries to keep state between games in /tmp, /dev/shm or the working directory: 'Q' if a file
   from an earlier game is there, or if it can create one. */
#include <stdio.h>
static int exists(const char *path) { FILE *f = fopen(path, "r"); if (f) { fclose(f); return 1; } return 0; }
static int create(const char *path) { FILE *f = fopen(path, "w"); if (f) { fputs("state", f); fclose(f); return 1; } return 0; }
int bot(int board[16][32], char player) {
    (void)player;
    const char *paths[] = {"/tmp/koth-state", "/dev/shm/koth-state", "koth-state", "/koth-state"};
    for (int i = 0; i < 4; i++) if (exists(paths[i]) || create(paths[i])) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Keeps state";
