# Reads what would tell it exactly which pages of the files every bot shares are cached
# (tests/hostile/readings.c says what), and what else of the machine its view would show;
# answers ESCAPED if any of it answers.
import resource

PATHS = (
    "/proc/self/io",
    "/proc/self/stat",
    "/proc/self/smaps",
    "/proc/meminfo",
    "/proc/vmstat",
    "/sys/fs/cgroup/memory.stat",
    "/sys/fs/cgroup/memory/memory.stat",
    "/etc/hostname",
)


def learned() -> bool:
    try:
        resource.getrusage(resource.RUSAGE_SELF)
        return True
    except OSError:
        pass
    for path in PATHS:
        try:
            with open(path, "rb"):
                return True
        except OSError:
            pass
    return False


play(learned())
