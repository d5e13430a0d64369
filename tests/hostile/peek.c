/* Tries to read another entry's build: up from its own jail (a sandbox serving every entry's
   build from one folder) and anywhere under where a Docker container sees the bots' folders;
   'Q' if it could read one that is not its own. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>
static int other(const char *path, const struct stat *own) {
    struct stat found;
    FILE *f = fopen(path, "r");
    int read = f && fgetc(f) != EOF && stat(path, &found) == 0 &&
               (found.st_ino != own->st_ino || found.st_dev != own->st_dev);
    if (f) fclose(f);
    return read;
}
int bot(int board[16][32], char player) {
    (void)player;
    close(0); /* descriptors to open files with (2 is a copy of 1) */
    close(2);
    struct stat own;
    stat("bot.so", &own);
    if (other("../../steady-c/jail/bot.so", &own) || other("../../steady-c/build.json", &own))
        return 'Q';
    const char *places[] = {"/bots", "/koth/bots"};
    char path[512];
    int found = 0;
    for (int i = 0; i < 2 && !found; i++) {
        DIR *top = opendir(places[i]);
        struct dirent *each;
        while (top && !found && (each = readdir(top))) {
            snprintf(path, sizeof path, "%s/%s/bot.so", places[i], each->d_name);
            found = other(path, &own);
            snprintf(path, sizeof path, "%s/%s/steady-c/jail/bot.so", places[i], each->d_name);
            found = found || other(path, &own);
        }
        if (top) closedir(top);
    }
    if (found) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Peeks";
