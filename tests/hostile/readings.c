/* Reads what would tell it exactly which pages of the files every bot shares are cached: its own
   block reads and major faults (getrusage), its I/O counters and faults in /proc, the machine's
   (/proc/meminfo, /proc/vmstat) and its container's (memory.stat). It learned something (1) if
   any of them answers. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>
static int learned(void) {
    struct rusage usage;
    if (getrusage(RUSAGE_SELF, &usage) == 0 || getrusage(RUSAGE_THREAD, &usage) == 0) return 1;
    const char *paths[] = {"/proc/self/io", "/proc/self/stat", "/proc/self/smaps", "/proc/meminfo",
                           "/proc/vmstat", "/sys/fs/cgroup/memory.stat",
                           "/sys/fs/cgroup/memory/memory.stat"};
    for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++) {
        int fd = open(paths[i], O_RDONLY);
        if (fd >= 0) {
            close(fd);
            return 1;
        }
    }
    return 0;
}
