# Asks what it may not know of the machine it runs on (tests/hostile/host.c says what);
# answers ESCAPED if any of it answers.
import ctypes

EXPECTED = "@HOSTNAME@"


def learned() -> bool:
    if EXPECTED and os.uname().nodename != EXPECTED:
        return True
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.sysinfo(ctypes.create_string_buffer(512)) == 0:
        return True
    for path in (".", "/"):
        try:
            os.statvfs(path)
            return True
        except OSError:
            pass
    return False


play(learned())
