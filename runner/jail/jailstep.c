/* One step of a jailed build (runner/sandbox/buildjail.py): what its forked Python child did
 * before it ran the compiler, in a small program the jail starts with posix_spawn. A fork of the
 * jail's Python process cost ~0.8 ms of CPU a step more (the copy-on-write faults of a Python
 * child, its page tables and its exit).
 *
 *     jailstep PARENT UID CPU ADDRESS FILESIZE FILES PROCESSES LOG -- PROGRAM [ARGS...]
 *     jailstep --sweep UID
 *
 * A session of its own; with a UID (not "-"): no supplementary groups, that gid and uid (real,
 * effective and saved: no way back to root, every capability gone); the parent-death signal
 * (SIGKILL when PARENT, the jail, dies; it ends at once if PARENT is gone already); the rlimits
 * (CPU seconds, address space, file size, descriptors, no core dumps, and with a UID the number
 * of that uid's processes); stdin on /dev/null, stdout and stderr on LOG, no other descriptor
 * open; then PROGRAM, found on PATH. A wall that cannot be built is reported on LOG and ends it
 * with 125 (the jail's EXIT_SETUP_FAILED); a PROGRAM that cannot be run, with 127.
 *
 * With --sweep, it kills every process of UID, as UID (real, effective and saved: a kill(-1)
 * then reaches exactly the processes that uid may signal, the build's) and ends: the jail stays
 * root throughout, so no process of the build can ever signal it. (The jail once took the uid
 * for a moment itself to save the fork: a build process sending SIGSTOP in a loop stopped it in
 * that moment every time.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

enum { EXIT_SETUP_FAILED = 125, EXIT_CANNOT_RUN = 127, FIELDS = 8 };

extern char **environ;
static int log_fd = 2;

static void say(int fd, const char *format, const char *what, int error) {
    char text[512];
    int length = snprintf(text, sizeof text, format, what, strerror(error));
    if (length > (int)sizeof text - 1)
        length = (int)sizeof text - 1;
    if (length > 0 && write(fd, text, (size_t)length) < 0) {
        /* nobody to tell */
    }
}

static void fail(const char *what) {
    say(log_fd, "koth: the build sandbox could not start: %s: %s\n", what, errno);
    _exit(EXIT_SETUP_FAILED);
}

static long number(const char *text) {
    char *end;
    errno = 0;
    long value = strtol(text, &end, 10);
    if (errno || end == text || *end || value < 0)
        _exit(EXIT_SETUP_FAILED);
    return value;
}

static void limit(int kind, rlim_t soft, rlim_t hard, const char *what) {
    struct rlimit value = {soft, hard};
    if (setrlimit(kind, &value) != 0)
        fail(what);
}

static int sweep(const char *text) {
    uid_t uid = (uid_t)number(text);
    if (setresuid(uid, uid, uid) != 0)
        return EXIT_SETUP_FAILED;
    kill(-1, SIGKILL); /* ESRCH: none left */
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--sweep") == 0)
        return sweep(argv[2]);
    if (argc < FIELDS + 3 || strcmp(argv[FIELDS + 1], "--") != 0)
        _exit(EXIT_SETUP_FAILED);
    pid_t parent = (pid_t)number(argv[1]);
    long uid = strcmp(argv[2], "-") == 0 ? -1 : number(argv[2]);
    rlim_t cpu = (rlim_t)number(argv[3]), address = (rlim_t)number(argv[4]);
    rlim_t file_size = (rlim_t)number(argv[5]), files = (rlim_t)number(argv[6]);
    rlim_t processes = (rlim_t)number(argv[7]);
    log_fd = (int)number(argv[8]);
    if (setsid() < 0)
        fail("setsid");
    if (uid >= 0) {
        if (setgroups(0, NULL) != 0)
            fail("setgroups");
        if (setresgid((gid_t)uid, (gid_t)uid, (gid_t)uid) != 0)
            fail("setresgid");
        if (setresuid((uid_t)uid, (uid_t)uid, (uid_t)uid) != 0)
            fail("setresuid");
    }
    /* after the uid change, which clears it */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0)
        fail("prctl(PR_SET_PDEATHSIG)");
    if (getppid() != parent)
        _exit(EXIT_SETUP_FAILED); /* the jail is gone: the signal would never come */
    limit(RLIMIT_CPU, cpu, cpu + 1, "setrlimit(CPU)");
    limit(RLIMIT_AS, address, address, "setrlimit(AS)");
    limit(RLIMIT_FSIZE, file_size, file_size, "setrlimit(FSIZE)");
    limit(RLIMIT_CORE, 0, 0, "setrlimit(CORE)");
    limit(RLIMIT_NOFILE, files, files, "setrlimit(NOFILE)");
    if (uid >= 0) /* counts the processes of the build's own uid only */
        limit(RLIMIT_NPROC, processes, processes, "setrlimit(NPROC)");
    int null = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null < 0)
        fail("/dev/null");
    if (dup2(null, 0) < 0 || dup2(log_fd, 1) < 0 || dup2(log_fd, 2) < 0)
        fail("dup2");
    if (close_range(3, ~0U, 0) != 0)
        fail("close_range");
    log_fd = 2;
    execvpe(argv[FIELDS + 2], argv + FIELDS + 2, environ);
    say(2, "koth: cannot run %s: %s\n", argv[FIELDS + 2], errno);
    _exit(EXIT_CANNOT_RUN);
}
