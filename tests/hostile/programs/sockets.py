# Looks for a socket, any socket (tests/hostile/sockets.c says why): one of its descriptors, or
# one of its own; answers ESCAPED if it holds or makes one.
import fcntl
import socket
import stat
import struct


def found_socket() -> bool:
    try:
        socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
        return True
    except OSError:
        pass
    for fd in range(64):
        try:
            if stat.S_ISSOCK(os.fstat(fd).st_mode):
                return True
        except OSError:
            continue
        try:
            fcntl.ioctl(fd, 0x8912, struct.pack("iL", 4096, 0))  # SIOCGIFCONF
            return True
        except OSError:
            pass
    return False


play(found_socket())
