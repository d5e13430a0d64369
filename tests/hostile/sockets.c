/* Looks for a socket, any socket: one of its descriptors (its output was the host's socket once:
   the host's interfaces through ioctl SIOCGIFCONF, koth's pid through SO_PEERCRED), or one of its
   own (socketpair, with SO_PASSCRED set a send binds it to an abstract name, which another bot in
   the same network namespace may find and reach). It learned something (1) if it holds or makes
   one, or if ioctl SIOCGIFCONF answers on any descriptor. Shared by the C function and the C
   program (tests/hostile/test_reach.py adds the one's bot() or the other's main()). */
#define _GNU_SOURCE
#include <errno.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
static int learned(void) {
    int pair[2];
    if (socketpair(AF_UNIX, SOCK_DGRAM, 0, pair) == 0) return 1;
    if (socket(AF_UNIX, SOCK_DGRAM, 0) >= 0) return 1;
    for (int fd = 0; fd < 64; fd++) {
        char byte;
        struct iovec part = {&byte, 1};
        struct msghdr message = {.msg_iov = &part, .msg_iovlen = 1};
        if (recvmsg(fd, &message, MSG_DONTWAIT | MSG_PEEK) >= 0) return 1;
        if (errno != ENOTSOCK && errno != EBADF && errno != EPERM) return 1;  /* a socket */
        char space[4096];
        struct ifconf interfaces = {.ifc_len = sizeof space, .ifc_buf = space};
        if (ioctl(fd, SIOCGIFCONF, &interfaces) == 0) return 1;
        struct ucred peer;
        socklen_t size = sizeof peer;
        if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &peer, &size) == 0) return 1;
    }
    return 0;
}
