/* Names files, found or not: each lookup leaves a trace in the kernel's caches (a dentry, a page
   read) that a later lookup, by another bot or in a later game, is faster for. A C function
   once loaded, and a program of its own build, name nothing: it learned something (1) if any
   call naming a file answers other than EPERM. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
static int learned(void) {
    struct stat found;
    const char *names[] = {".", "/", "bot.so", "/bot.so", "koth-missing-name", "/usr"};
    for (unsigned i = 0; i < sizeof names / sizeof *names; i++) {
        if (stat(names[i], &found) == 0 || errno != EPERM) return 1;
        if (access(names[i], F_OK) == 0 || errno != EPERM) return 1;
        int fd = open(names[i], O_RDONLY);
        if (fd >= 0 || errno != EPERM) return 1;
        char target[64];
        if (readlink(names[i], target, sizeof target) >= 0 || errno != EPERM) return 1;
    }
    return 0;
}
