# Tries to take over its supervisor (ptrace, its memory, signals) and every process near it;
# answers ESCAPED if any attempt worked.
import ctypes

libc = ctypes.CDLL(None, use_errno=True)
PTRACE_SEIZE, PTRACE_DETACH = 0x4206, 17


def reached(pid: int) -> bool:
    if libc.ptrace(PTRACE_SEIZE, pid, 0, 0) == 0:
        libc.ptrace(PTRACE_DETACH, pid, 0, 0)
        return True
    try:
        with open(f"/proc/{pid}/mem", "rb") as memory:
            memory.read(1)
        return True
    except OSError:
        pass
    return libc.kill(pid, 18) == 0  # SIGCONT: harmless, but a signal that lands is a hole


read_init()
me = os.getpid()
escaped = reached(os.getppid()) or any(
    reached(pid) for pid in [*range(1, 64), *range(me - 64, me + 64)] if pid not in (me, 0)
)
while True:
    columns, hand = read_turn()
    answer("ESCAPED" if escaped else a_legal_move(columns, hand))
