/* Tries to connect to a TCP listener the test runs on the host's loopback; 'Q' if it connected. */
#include <string.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>
int bot(int board[16][32], char player) {
    (void)player;
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd >= 0) {
        struct sockaddr_in addr;
        memset(&addr, 0, sizeof addr);
        addr.sin_family = AF_INET;
        addr.sin_port = htons(@PORT@);
        addr.sin_addr.s_addr = htonl(0x7f000001);
        if (connect(fd, (struct sockaddr *)&addr, sizeof addr) == 0) return 'Q';
    }
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Network";
