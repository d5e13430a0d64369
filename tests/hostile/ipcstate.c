/* Keeps state between games in System V shared memory and a POSIX message queue: 'Q' when the
   previous game's segment or queue is there, else it leaves them behind for the next game. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <mqueue.h>
#include <sys/ipc.h>
#include <sys/shm.h>
int bot(int board[16][32], char player) {
    (void)player;
    int id = shmget(0x6b6f7468, 4096, IPC_CREAT | 0666);
    if (id >= 0) {
        char *memory = shmat(id, 0, 0);
        if (memory != (void *)-1) {
            if (memory[0] == 'K') return 'Q';
            memory[0] = 'K';
            shmdt(memory);
        }
    }
    mqd_t queue = mq_open("/koth-state", O_RDWR | O_CREAT | O_EXCL, 0666, 0);
    if (queue == (mqd_t)-1 && mq_open("/koth-state", O_RDWR) != (mqd_t)-1) return 'Q';
    return board[0][1] == '.' ? 'R' : 'D';
}
char *bot_name = "Keeps state in IPC";
