/* Calls what a bot has no business calling. Each must fail with EPERM and the bot plays on:
   'Q' if a call succeeded, 'E' if it failed some other way (the filter is not what stopped it). */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <time.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
static int verdict(long result) { return result >= 0 ? 'Q' : errno == EPERM ? 0 : 'E'; }
#define TRY(call) do { int v = verdict(call); if (v) return v; } while (0)
int bot(int board[16][32], char player) {
    (void)player;
    TRY(ptrace(PTRACE_TRACEME, 0, 0, 0));
    TRY(unshare(CLONE_NEWUSER));
    TRY(unshare(CLONE_NEWNET));
    TRY(mount("none", "/", "tmpfs", 0, 0));
    TRY(syscall(SYS_keyctl, 0, 0, 0, 0, 0));
    TRY(syscall(SYS_add_key, "user", "koth", "x", 1, -4));
    TRY(syscall(SYS_bpf, 0, 0, 0));
    TRY(syscall(SYS_perf_event_open, 0, 0, -1, -1, 0));
    TRY(syscall(SYS_userfaultfd, 0));
    TRY(syscall(SYS_io_uring_setup, 1, 0));
    TRY(syscall(SYS_shmget, 0x6b6f7468, 4096, 01000 | 0600));
    TRY(syscall(SYS_msgget, 0x6b6f7468, 01000 | 0600));
    TRY(syscall(SYS_semget, 0x6b6f7468, 1, 01000 | 0600));
    TRY(syscall(SYS_mq_open, "koth", 0100 | 02, 0600, 0));
    TRY(syscall(SYS_process_vm_readv, getppid(), 0, 0, 0, 0, 0));
    TRY(syscall(SYS_setns, 0, 0));
    TRY(syscall(SYS_socket, 2, 1, 0));  /* AF_INET, SOCK_STREAM */
    TRY(syscall(SYS_socket, 1, 1, 0));  /* AF_UNIX: a path like a Docker daemon's socket */
    TRY(syscall(SYS_openat, -100, "koth-state", 0100 | 01, 0600));  /* O_CREAT | O_WRONLY */
    TRY(syscall(SYS_mkdir, "koth-state", 0700));
    TRY(syscall(SYS_prctl, 1, 0, 0, 0, 0));  /* drop its parent-death signal */
    TRY(syscall(SYS_prctl, (1UL << 32) | 1, 0, 0, 0, 0));  /* the same, high bits set */
    TRY(syscall(SYS_kill, 1, 0));
    /* Have the kernel signal another process when fd 1 is ready (O_ASYNC): its owner. */
    int parent = getppid();
    struct f_owner_ex owner = {F_OWNER_PID, parent};
    TRY(syscall(SYS_fcntl, 1, F_SETOWN, parent));
    TRY(syscall(SYS_fcntl, 1, (1UL << 32) | F_SETOWN, parent));  /* the kernel drops the 1 */
    TRY(syscall(SYS_fcntl, 1, F_SETOWN_EX, &owner));
    TRY(syscall(SYS_fcntl, 1, F_SETSIG, 9));
    TRY(syscall(SYS_ioctl, 1, FIOSETOWN, &parent));
    TRY(syscall(SYS_ioctl, 1, SIOCSPGRP, &parent));
    /* Channels to other bots, and state that outlives the game, through what every bot shares:
       files watched, the page cache (evicted, or asked after), Linux AIO; another CPU; another
       process's CPU clock. */
    TRY(syscall(SYS_inotify_init1, 0));
    TRY(syscall(SYS_fcntl, 0, F_NOTIFY, DN_ACCESS));
    struct flock lock = {F_RDLCK, SEEK_SET, 0, 0, 0};
    TRY(syscall(SYS_flock, 0, LOCK_SH | LOCK_NB));
    TRY(syscall(SYS_fcntl, 0, F_SETLK, &lock));
    TRY(syscall(SYS_fcntl, 0, F_GETLK, &lock));
    TRY(syscall(SYS_fcntl, 0, F_OFD_SETLK, &lock));
    TRY(syscall(SYS_fcntl, 0, F_SETLEASE, F_RDLCK));
    unsigned long context = 0;
    TRY(syscall(SYS_io_setup, 1, &context));
    TRY(syscall(SYS_fadvise64, 0, 0, 4096, POSIX_FADV_DONTNEED));
    TRY(syscall(SYS_readahead, 0, 0, 4096));
    unsigned char resident[1];
    TRY(syscall(SYS_mincore, (void *)board, 4096, resident));
    TRY(syscall(SYS_madvise, (void *)board, 4096, 21)); /* MADV_PAGEOUT */
    TRY(syscall(SYS_madvise, (void *)board, 4096, 20)); /* MADV_COLD */
    char byte;
    struct iovec into = {&byte, 1};
    TRY(syscall(SYS_preadv2, 0, &into, 1, 0, 0, 8)); /* RWF_NOWAIT */
    cpu_set_t cpus;
    CPU_ZERO(&cpus);
    CPU_SET(0, &cpus);
    TRY(syscall(SYS_sched_setaffinity, 0, sizeof cpus, &cpus));
    struct timespec now;
    TRY(syscall(SYS_clock_gettime, (~parent << 3) | 2, &now)); /* the parent's CPU clock */
    /* The filter denies by default: what is not on its list fails with EPERM, a call this kernel
       does not have (999) and one newer than the list (fchmodat2) included. Sockets of its own;
       the machine's state (its block reads and faults, load, memory, free space); sync. */
    TRY(syscall(999, 0, 0, 0));
    TRY(syscall(452, -100, "koth-state", 0777, 0)); /* fchmodat2 */
    int pair[2];
    TRY(syscall(SYS_socketpair, 1, 2, 0, pair)); /* AF_UNIX, SOCK_DGRAM */
    char space[512];
    TRY(syscall(SYS_getrusage, 0, space));
    TRY(syscall(SYS_getrusage, 1, space)); /* RUSAGE_THREAD */
    TRY(syscall(SYS_sysinfo, space));
    TRY(syscall(SYS_statfs, "/", space));
    TRY(syscall(SYS_sync));
    TRY(syscall(SYS_syncfs, 0));
    TRY(syscall(SYS_memfd_create, "koth", 0));
    TRY(syscall(SYS_madvise, (void *)board, 4096, 12)); /* MADV_MERGEABLE: merged with others' */
    TRY(syscall(SYS_ioctl, 1, 0x8912, space)); /* SIOCGIFCONF */
    TRY(syscall(SYS_prctl, 22, 2, space, 0, 0)); /* PR_SET_SECCOMP: filters of its own */
    /* Once loaded, a C function names no file: found or not, a name leaves a trace. */
    TRY(syscall(SYS_openat, -100, "/", 0));
    TRY(syscall(SYS_newfstatat, -100, "koth-missing", space, 0));
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Forbidden calls";
