/* A blank for C-function bots, in C: what runner/jail/zygote.py's Python blank does for a bot
 * that is a shared object, without a Python interpreter in the bot's process.
 *
 * The zygote (zygote.py) clones it from its fork server (``cblank --serve ZYGOTE_PID``, at the
 * end of this file), or else starts it with posix_spawn, its channel to the zygote on fd 3:
 *
 *     cblank ZYGOTE_PID PRIVATE SETUID CGROUP
 *
 * PRIVATE: 0 none of these; 1 make a network, IPC and UTS namespace now (its host name koth's)
 * and chroot into the jail later; 2 only the chroot (the zygote made those namespaces for all its
 * bots once).
 * SETUID (0/1): take a uid of its own (UID_BASE + pid); CGROUP: the memory group to join now,
 * or "-".
 * Then it waits on the channel for its request, NUL-separated fields in this order:
 *
 *     jail, shared object, RLIMIT_AS, RLIMIT_CPU, function, name symbol, arguments, size
 *
 * (arguments: "w512,b1": each the way of reading it, w widen, b byte, i int32, and its size in
 * request bytes), then two compiled seccomp filters (both empty, or the first ``size`` bytes long:
 * runner/jail/walls.py's filter of a C function, and the one added once the bot is loaded, after
 * which no call may name a file). The bot's four channels (request, reply, identity, output) come
 * with the request, or alone in a second message when the request only primed the blank. It walls
 * itself in exactly as the Python blank does: own session, not dumpable, the parent-death signal,
 * namespaces, memory group, chroot, uid, rlimits, the first filter, its channels on fds 0, 3, 4, 1
 * and 2 (the identity byte sent and that socket closed), nothing else open. A wall that cannot be
 * built is reported on the channel, and it exits with EXIT_SETUP_FAILED. Then it closes the channel
 * (from there on nothing the bot does can pass for a set-up report), loads the bot, puts every page
 * of its library in its page tables (no page fault on a file it maps then tells or changes what the
 * page cache holds: ``read_through``), adds the second filter, says hello (its name) and answers
 * each request with one little-endian int32, its name pointer set back to its value at load before
 * every call (the one writable datum a bot may have carries nothing between calls).
 *
 * The function is called through a pointer taking six longs: every argument is a pointer or an
 * integer, passed in a register of its own by the x86-64 and AArch64 calling conventions (the
 * zygote uses this program only there; more arguments or other kinds go to the Python blank).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

enum {
    CHANNEL_FD = 3,
    REQUEST_FD = 3,
    REPLY_FD = 4,
    REPORT_FD = 5,
    EXIT_LOAD_FAILED = 97,
    EXIT_SETUP_FAILED = 98,
    NAME_CAP = 200,
    MAX_ARGS = 6,
    MAX_REQUEST = 1 << 16,
    UID_BASE = 1000000,
};

static int report_fd = CHANNEL_FD;

/* A wall could not be built: say which and why on the channel, and end. */
static void fail(const char *format, ...) {
    char text[1024];
    va_list args;
    va_start(args, format);
    int length = vsnprintf(text, sizeof text, format, args);
    va_end(args);
    if (length > (int)sizeof text - 1)
        length = (int)sizeof text - 1;
    if (length > 0 && write(report_fd, text, (size_t)length) < 0) {
        /* nobody to tell */
    }
    _exit(EXIT_SETUP_FAILED);
}

static void check(int result, const char *what) {
    if (result != 0)
        fail("OSError: %s: %s", what, strerror(errno));
}

static void set_limit(int kind, rlim_t soft, rlim_t hard, const char *what) {
    struct rlimit limit = {soft, hard};
    check(setrlimit(kind, &limit), what);
}

static void parent_death_signal(pid_t zygote) {
    check(prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0), "prctl(PR_SET_PDEATHSIG)");
    if (getppid() != zygote)
        _exit(1); /* the zygote is gone already: the signal would never come */
}

/* One message from the zygote: its bytes (0: the zygote let this blank go) and its fds. */
static size_t receive(char *buffer, size_t size, int *fds, int *count) {
    union {
        char space[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct iovec part = {buffer, size};
    struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
    message.msg_control = control.space;
    message.msg_controllen = sizeof control.space;
    ssize_t got;
    do
        got = recvmsg(CHANNEL_FD, &message, MSG_CMSG_CLOEXEC);
    while (got < 0 && errno == EINTR);
    if (got <= 0)
        _exit(0);
    *count = 0;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c; c = CMSG_NXTHDR(&message, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
            for (int i = 0; i < n && *count < 8; i++)
                memcpy(&fds[(*count)++], CMSG_DATA(c) + i * sizeof(int), sizeof(int));
        }
    return (size_t)got;
}

struct request {
    const char *jail, *so, *function, *name_symbol;
    rlim_t memory, cpu;
    int argc;
    char kinds[MAX_ARGS];
    size_t sizes[MAX_ARGS], size;
    const unsigned char *filter, *loaded; /* walls.py's two filters */
    size_t filter_size, loaded_size;
};

static rlim_t number(const char *text, const char *field) {
    char *end;
    errno = 0;
    unsigned long long value = strtoull(text, &end, 10);
    if (errno || end == text || *end)
        fail("ValueError: the request's %s is not a number", field);
    return (rlim_t)value;
}

static void parse(char *buffer, size_t length, struct request *r) {
    char *fields[8], *at = buffer, *end = buffer + length;
    for (int i = 0; i < 8; i++) {
        char *nul = memchr(at, '\0', (size_t)(end - at));
        if (!nul)
            fail("ValueError: the request has %d fields, not 8", i);
        fields[i] = at;
        at = nul + 1;
    }
    r->jail = fields[0];
    r->so = fields[1];
    r->memory = number(fields[2], "memory");
    r->cpu = number(fields[3], "cpu");
    r->function = fields[4];
    r->name_symbol = fields[5];
    r->argc = 0;
    r->size = 0;
    for (char *arg = strtok(fields[6], ","); arg; arg = strtok(NULL, ",")) {
        if (r->argc == MAX_ARGS || !strchr("wbi", arg[0]))
            fail("ValueError: the request's arguments are not ones this blank reads");
        size_t size = (size_t)number(arg + 1, "argument size");
        if (size == 0 || size > MAX_REQUEST || (arg[0] == 'b' && size != 1) ||
            (arg[0] == 'i' && size != 4))
            fail("ValueError: the request's argument %s has a size this blank cannot read", arg);
        r->kinds[r->argc] = arg[0];
        r->sizes[r->argc++] = size;
        r->size += size;
    }
    if (r->size == 0 || r->size > MAX_REQUEST)
        fail("ValueError: the request's arguments take %zu bytes", r->size);
    size_t filters = (size_t)(end - at);
    r->filter = (const unsigned char *)at;
    r->filter_size = (size_t)number(fields[7], "filter size");
    if (r->filter_size > filters || r->filter_size % sizeof(struct sock_filter) ||
        (filters - r->filter_size) % sizeof(struct sock_filter) ||
        (r->filter_size == 0) != (filters == 0))
        fail("ValueError: the seccomp filters are %zu bytes, the first %zu", filters,
             r->filter_size);
    r->loaded = r->filter + r->filter_size;
    r->loaded_size = filters - r->filter_size;
}

static void install_filter(const unsigned char *filter, size_t size) {
    if (!size)
        return;
    struct sock_fprog program = {
        .len = (unsigned short)(size / sizeof(struct sock_filter)),
        .filter = (struct sock_filter *)(uintptr_t)filter,
    };
    check(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(PR_SET_NO_NEW_PRIVS)");
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program, 0, 0) != 0)
        fail("SeccompUnavailable: prctl(PR_SET_SECCOMP): %s", strerror(errno));
}

/* The bot's channels on their fds (null on 0, request 3, reply 4, output 1 and 2), the report
 * channel on REPORT_FD, everything else closed; first the identity byte on the identity channel
 * (a socket): the kernel stamps it with this pid (SCM_CREDENTIALS), which no later write can
 * forge. That socket is then closed with the rest: the bot holds no socket, only pipes. */
static void take_channels(int devnull, const int *fds) {
    int sources[6], targets[4] = {0, REQUEST_FD, REPLY_FD, 1};
    int from[6] = {devnull, fds[0], fds[1], fds[3], report_fd, fds[2]};
    for (int i = 0; i < 6; i++) {
        sources[i] = fcntl(from[i], F_DUPFD_CLOEXEC, 64);
        if (sources[i] < 0)
            fail("OSError: fcntl(F_DUPFD_CLOEXEC): %s", strerror(errno));
    }
    for (int i = 0; i < 4; i++)
        if (dup2(sources[i], targets[i]) < 0)
            fail("OSError: dup2: %s", strerror(errno));
    if (dup2(1, 2) < 0)
        fail("OSError: dup2: %s", strerror(errno));
    if (dup3(sources[4], REPORT_FD, O_CLOEXEC) < 0)
        fail("OSError: dup3: %s", strerror(errno));
    report_fd = REPORT_FD;
    if (write(sources[5], "!", 1) != 1)
        fail("OSError: writing the identity byte: %s", strerror(errno));
    check(close_range(REPORT_FD + 1, ~0U, 0), "close_range");
}

static void write_all(int fd, const void *data, size_t size) {
    const char *at = data;
    while (size) {
        ssize_t done = write(fd, at, size);
        if (done < 0 && errno == EINTR)
            continue;
        if (done <= 0)
            _exit(1);
        at += done;
        size -= (size_t)done;
    }
}

static void load_failed(const char *what) {
    dprintf(2, "cannot load the bot: %s\n", what ? what : "unknown error");
    _exit(EXIT_LOAD_FAILED);
}

typedef long (*six_longs)(long, long, long, long, long, long);

/* A page fault on a file a bot has mapped would tell it, by its time, whether the page was in
 * the page cache every process shares, or bring it there for another bot to tell. So every page
 * of the files it maps is in the page cache before it runs: this program's own objects (it, the
 * C library, libm, the loader) are read through once, as the fork server starts (or a blank, if
 * there is none); the bot's library, which the blank loads, is put in the blank's page tables
 * (``populate``, below). */
struct objects {
    int from, seen; /* act on the objects from the from-th on; how many were seen */
};

/* dl_iterate_phdr's callback: the object read through into the page cache (its file is the
 * program itself for the first, unnamed one). */
static int read_through(struct dl_phdr_info *object, size_t size, void *data) {
    (void)size, (void)data;
    const char *name = object->dlpi_name[0] ? object->dlpi_name : "/proc/self/exe";
    int fd = open(name, O_RDONLY | O_CLOEXEC), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    struct stat found;
    if (fd >= 0 && null >= 0 && fstat(fd, &found) == 0)
        for (off_t at = 0; at < found.st_size;)
            if (sendfile(null, fd, &at, (size_t)(found.st_size - at)) <= 0)
                break;
    if (fd >= 0)
        close(fd);
    if (null >= 0)
        close(null);
    return 0;
}

/* dl_iterate_phdr's callback: every page of each loaded object from the ``from``-th on in the
 * page tables now (MADV_POPULATE_READ, Linux 5.14; before it, a byte of each page read). */
static int populate(struct dl_phdr_info *object, size_t size, void *data) {
    struct objects *objects = data;
    (void)size;
    if (objects->seen++ < objects->from)
        return 0;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (int i = 0; i < object->dlpi_phnum; i++) {
        const ElfW(Phdr) *segment = &object->dlpi_phdr[i];
        if (segment->p_type != PT_LOAD || !(segment->p_flags & PF_R))
            continue;
        uintptr_t start = (object->dlpi_addr + segment->p_vaddr) & ~(page - 1);
        uintptr_t end = (object->dlpi_addr + segment->p_vaddr + segment->p_memsz + page - 1) &
                        ~(page - 1);
        if (madvise((void *)start, end - start, 22 /* MADV_POPULATE_READ */) != 0)
            for (uintptr_t at = start; at < end; at += page)
                (void)*(volatile const char *)at;
    }
    return 0;
}

/* Load the bot (its objects populated: those from the ``loaded``-th on, the ones before were as
 * the blank started), name no file from then on (the second filter), say hello, answer requests
 * until the request channel ends. Never returns. */
static void serve(const char *so, const struct request *r, int loaded) {
    void *library = dlopen(so, RTLD_NOW | RTLD_LOCAL);
    if (!library)
        load_failed(dlerror());
    char *volatile *name_at = dlsym(library, r->name_symbol);
    if (!name_at)
        load_failed(dlerror());
    void *function = dlsym(library, r->function);
    if (!function)
        load_failed(dlerror());
    struct objects objects = {loaded, 0};
    dl_iterate_phdr(populate, &objects);
    install_filter(r->loaded, r->loaded_size);
    char *name = *name_at;
    size_t name_length = name ? strnlen(name, NAME_CAP) : 0;
    struct rlimit files = {REPLY_FD + 1, REPLY_FD + 1};
    if (setrlimit(RLIMIT_NOFILE, &files) != 0)
        _exit(1);
    unsigned char hello[4 + 2 + NAME_CAP];
    memcpy(hello, "KOTH", 4);
    hello[4] = (unsigned char)(name_length & 0xff);
    hello[5] = (unsigned char)(name_length >> 8);
    if (name_length)
        memcpy(hello + 6, name, name_length);
    write_all(REPLY_FD, hello, 6 + name_length);

    static unsigned char incoming[MAX_REQUEST];
    int *wide[MAX_ARGS] = {0};
    for (int i = 0; i < r->argc; i++)
        if (r->kinds[i] == 'w' && !(wide[i] = malloc(r->sizes[i] * sizeof(int))))
            _exit(1);
    six_longs call = (six_longs)function;
    for (;;) {
        size_t got = 0;
        while (got < r->size) {
            ssize_t count = read(REQUEST_FD, incoming + got, r->size - got);
            if (count == 0)
                _exit(0);
            if (count < 0) {
                if (errno == EINTR)
                    continue;
                _exit(1);
            }
            got += (size_t)count;
        }
        long args[MAX_ARGS] = {0};
        size_t offset = 0;
        for (int i = 0; i < r->argc; i++) {
            const unsigned char *bytes = incoming + offset;
            if (r->kinds[i] == 'w') { /* each byte one C int: the bot may have written them */
                for (size_t k = 0; k < r->sizes[i]; k++)
                    wide[i][k] = bytes[k];
                args[i] = (long)(intptr_t)wide[i];
            } else if (r->kinds[i] == 'b') {
                args[i] = (long)(char)bytes[0];
            } else {
                int32_t value;
                memcpy(&value, bytes, sizeof value);
                args[i] = (long)value;
            }
            offset += r->sizes[i];
        }
        *name_at = name; /* what the bot left there is gone: one store a call */
        int32_t move = (int32_t)call(args[0], args[1], args[2], args[3], args[4], args[5]);
        write_all(REPLY_FD, &move, sizeof move);
    }
}

/* What the fork server and a blank each do first: no fd open but the channel on fd 3, a write
 * to a closed channel fails (as under Python) instead of raising SIGPIPE, no other process of the
 * uid may trace it or read its memory, and it dies with the zygote. */
static void first_walls(pid_t zygote) {
    check(close_range(CHANNEL_FD + 1, ~0U, 0), "close_range");
    signal(SIGPIPE, SIG_IGN);
    check(prctl(PR_SET_DUMPABLE, 0, 0, 0, 0), "prctl(PR_SET_DUMPABLE)");
    parent_death_signal(zygote);
}

/* Build the walls (the blank's channel on fd 3), take the request, become the bot. */
static void blank(pid_t zygote, int private, int own_uid, const char *group, int served) {
    first_walls(zygote);
    signal(SIGXFSZ, SIG_IGN);
    if (!served) /* started alone: no fork server read this program's objects through */
        dl_iterate_phdr(read_through, NULL);
    struct objects objects = {INT_MAX, 0}; /* counted: the bot's library will come after them */
    dl_iterate_phdr(populate, &objects);
    if (setsid() < 0)
        fail("OSError: setsid: %s", strerror(errno));
    if (private == 1) {
        check(unshare(CLONE_NEWNET | CLONE_NEWIPC | CLONE_NEWUTS),
              "unshare(NEWNET|NEWIPC|NEWUTS)");
        check(sethostname("koth", 4), "sethostname");
    }
    if (strcmp(group, "-") != 0) { /* joined while waiting; the limit comes with the bot */
        char path[PATH_MAX], pid[32];
        int length = snprintf(pid, sizeof pid, "%d", (int)getpid());
        snprintf(path, sizeof path, "%s/cgroup.procs", group);
        int fd = open(path, O_WRONLY | O_CLOEXEC);
        if (fd < 0 || write(fd, pid, (size_t)length) != length)
            fail("OSError: joining %s: %s", path, strerror(errno));
        close(fd);
    }
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC); /* before the chroot */
    if (devnull < 0)
        fail("OSError: /dev/null: %s", strerror(errno));

    static char buffer[MAX_REQUEST];
    int fds[8], count;
    size_t length = receive(buffer, sizeof buffer, fds, &count);
    struct request r;
    parse(buffer, length, &r);

    /* Named from the jail: the root of a chroot, or else the working folder (the folders above
     * it may be closed to the bot, a Docker sandbox's: it has passed them here, not as the bot) */
    char so[PATH_MAX];
    const char *base = strrchr(r.so, '/');
    snprintf(so, sizeof so, "%s%s", private ? "/" : "./", base ? base + 1 : r.so);
    if (private)
        check(chroot(r.jail), "chroot");
    check(chdir(private ? "/" : r.jail), "chdir");
    if (own_uid) {
        uid_t uid = (uid_t)(UID_BASE + getpid());
        check(setgroups(0, NULL), "setgroups");
        check(setresgid(uid, uid, uid), "setresgid");
        check(setresuid(uid, uid, uid), "setresuid"); /* leaving root clears every capability */
        parent_death_signal(zygote);                   /* the uid change cleared it */
    }
    set_limit(RLIMIT_CORE, 0, 0, "setrlimit(CORE)");
    set_limit(RLIMIT_FSIZE, 0, 0, "setrlimit(FSIZE)");
    set_limit(RLIMIT_NPROC, 0, 0, "setrlimit(NPROC)");
    set_limit(RLIMIT_AS, r.memory, r.memory, "setrlimit(AS)");
    set_limit(RLIMIT_CPU, r.cpu, r.cpu + 1, "setrlimit(CPU)");
    install_filter(r.filter, r.filter_size);
    if (count == 0) { /* primed: the walls are up; now the channels */
        static char go[64];
        receive(go, sizeof go, fds, &count);
    }
    if (count != 4)
        fail("ValueError: %d channels came with the bot, not 4", count);
    take_channels(devnull, fds);
    set_limit(RLIMIT_NOFILE, REPLY_FD + 2, REPLY_FD + 2, "setrlimit(NOFILE)");
    close(REPORT_FD); /* from here on bot code may run: nothing it says is a set-up report */
    serve(so, &r, objects.seen);
}

/* The fork server (--serve): each message on fd 3 is PRIVATE, SETUID and CGROUP (NUL-separated)
 * with a blank's channel. The server clones a child with CLONE_PARENT, so the blank is the
 * zygote's child as if the zygote had started it (it reaps it, reads its rusage, is its
 * parent-death reference), and replies with its pid ("-errno" if the clone failed). The child
 * puts its channel on fd 3 and goes on as a blank started with those arguments: the exec and
 * the dynamic loader's start (cpuid probes that trap to the hypervisor in a VM) are paid once,
 * here. The server never runs bot code and keeps nothing a request said. */
static void serve_forks(pid_t zygote) {
    first_walls(zygote);
    dl_iterate_phdr(read_through, NULL);
    static char message[PATH_MAX + 16];
    for (;;) {
        int fds[8], count;
        memset(message, 0, sizeof message);
        size_t length = receive(message, sizeof message - 1, fds, &count); /* ends at EOF */
        char *fields[3], *at = message;
        int complete = 1;
        for (int i = 0; i < 3; i++) {
            char *nul = memchr(at, '\0', (size_t)(message + length - at));
            complete = complete && nul;
            fields[i] = at;
            at = nul ? nul + 1 : at;
        }
        long pid = -EINVAL;
        if (complete && count == 1) {
            pid = syscall(SYS_clone, CLONE_PARENT | SIGCHLD, 0, 0, 0, 0);
            if (pid == 0) {
                if (dup2(fds[0], CHANNEL_FD) < 0) /* over the server's own channel */
                    _exit(EXIT_SETUP_FAILED);
                blank(zygote, (int)number(fields[0], "private"), strcmp(fields[1], "1") == 0,
                      fields[2], 1);
            }
            if (pid < 0)
                pid = -errno;
        }
        for (int i = 0; i < count; i++)
            close(fds[i]);
        char reply[32];
        int size = snprintf(reply, sizeof reply, "%ld", pid);
        write_all(CHANNEL_FD, reply, (size_t)size);
    }
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--serve") == 0)
        serve_forks((pid_t)number(argv[2], "zygote pid"));
    if (argc != 5)
        fail("usage: cblank ZYGOTE_PID PRIVATE SETUID CGROUP | cblank --serve ZYGOTE_PID");
    blank((pid_t)number(argv[1], "zygote pid"), (int)number(argv[2], "private"),
          strcmp(argv[3], "1") == 0, argv[4], 0);
}
