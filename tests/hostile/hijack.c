/* Tries to take over its supervisor: ptrace it, read its memory, stop it, signal every process
   it can find. Answers 'Q' (an invalid move) if any attempt worked, so a hole shows as a loss
   instead of passing silently; otherwise plays on. */
#define _GNU_SOURCE
#include <signal.h>
#include <sys/ptrace.h>
#include <sys/uio.h>
#include <unistd.h>
static int reached(pid_t pid) {
    char byte;
    struct iovec local = {&byte, 1}, remote = {(void *)0x400000, 1};
    if (ptrace(PTRACE_SEIZE, pid, 0, 0) == 0) {
        ptrace(PTRACE_DETACH, pid, 0, 0);
        return 1;
    }
    if (process_vm_readv(pid, &local, 1, &remote, 1, 0) >= 0) return 1;
    if (kill(pid, SIGCONT) == 0) return 1;  /* harmless, but a signal that lands is a hole */
    return 0;
}
int bot(int board[16][32], char player) {
    (void)player;
    pid_t me = getpid(), parent = getppid();
    int escaped = reached(parent);
    /* The supervisor's other children (its pre-forked blanks) have pids near its own and ours. */
    for (pid_t pid = 1; pid < 64; pid++)
        if (pid != me && reached(pid)) escaped = 1;
    for (pid_t pid = me - 64; pid < me + 64; pid++)
        if (pid > 64 && pid != me && reached(pid)) escaped = 1;
    if (escaped) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Hijacker";
