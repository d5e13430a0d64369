/* The quick loop: the usual moves of a game between two C-function bots taking turns, asked,
 * judged and applied here instead of in Python. It is compiled with a game's rules in C (the
 * ``step_*`` functions below: runner/games/snakes/step.c) into one shared object, which the
 * game's quick.py loads; the referee (runner/play/referee.py) calls it through runner/play/quick.py.
 *
 * A move is played here only while everything about it is usual, by the same tests as the
 * referee's quick way (runner/play/watchdog.py, WatchedBot.exchange_alone): the bot's clock within
 * its move's and its game's CPU limits and no reply waiting before the request; the request
 * taken whole by the pipe; one wake-up with the reply channel readable and nothing else; one
 * read of exactly the reply's four bytes; a reply the rules take as a move; the bot's clock then
 * still within its limits. The move is then charged (the bot's clock from the end of its last
 * move), applied and recorded.
 *
 * At anything else it stops and says where: before a move (nothing sent: the referee asks it
 * its usual way), or within one (``handed``: what was written and read, and what woke the poll),
 * which an Exchange takes on from there. So every fault, and every word about one, is the Python
 * referee's; this file only ever plays a move that has none.
 *
 * Everything a bot can reach here is bounded: one read of at most HANDED_CAP bytes into a
 * buffer of that size; its clock and its reply are numbers compared with limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <time.h>
#include <unistd.h>

#define MOVES_CAP 4096   /* moves one call may record */
#define REQUEST_CAP 8192 /* the longest request a game may make */
#define HANDED_CAP 4096  /* runner/play/watchdog.py's READ_CHUNK */
#define REPLY 4          /* one C int, little-endian */

/* What the game's rules in C give the loop (the state is the game's own). */
void step_open(void *state);
void step_close(void *state);
int step_to_move(const void *state);
int step_request(const void *state, int seat, unsigned char *out, int cap);
int step_is_move(int value);
void step_apply(void *state, int value);

enum stop { OVER = 0, BEFORE = 1, HANDED = 2 };

struct seat {
    int request_fd, reply_fd, output_fd, zygote_fd;
    int clock; /* the kernel's CPU clock of the bot's process (a clockid_t) */
    int moves; /* out: moves this call played for it */
    double mark;     /* in/out: its clock when its last move ended */
    double cpu_used; /* in/out: CPU charged for its moves so far */
    double move_cpu, game_cpu, move_wall;
};

struct quick {
    struct seat seats[2];
    void *state; /* the game's, in and out */
    /* out */
    int moves[MOVES_CAP];
    int count;
    int stop;
    /* where a move was handed over (stop == HANDED): watch.py's Progress and its poll */
    int handed_seat, written, handed_len, events;
    double handed_mark, seen_cpu, deadline;
    int event_fd[3], event_what[3];
    unsigned char handed[HANDED_CAP];
};

static int clock_of(int clock, double *seconds)
{
    struct timespec now;
    if (clock_gettime((clockid_t)clock, &now) != 0)
        return 0;
    *seconds = (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
    return 1;
}

static double monotonic(void)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)now.tv_sec + (double)now.tv_nsec * 1e-9;
}

static int poll_again(struct pollfd *fds, int count, int timeout)
{
    int n;
    do
        n = poll(fds, (nfds_t)count, timeout);
    while (n < 0 && errno == EINTR);
    return n;
}

/* One move of ``seat``: 0 when it was played (charged; ``*reply`` its int), else BEFORE or
 * HANDED with ``q`` saying where. */
static int exchange(struct quick *q, int seat, const unsigned char *request, int length,
                    int *reply)
{
    struct seat *s = &q->seats[seat];
    double start_cpu, end_cpu;
    if (!clock_of(s->clock, &start_cpu))
        return BEFORE;
    double used = start_cpu - s->mark;
    double game_left = s->game_cpu - s->cpu_used - used;
    struct pollfd waiting = {s->reply_fd, POLLIN | POLLPRI, 0};
    if (used > s->move_cpu || game_left < 0 || poll_again(&waiting, 1, 0) != 0)
        return BEFORE; /* the referee's Exchange says what is wrong */
    q->handed_seat = seat;
    q->handed_mark = s->mark;
    q->seen_cpu = start_cpu;
    q->deadline = monotonic() + s->move_wall;
    q->handed_len = q->events = 0;
    ssize_t written = write(s->request_fd, request, (size_t)length);
    q->written = written > 0 ? (int)written : 0;
    if (written != length)
        return HANDED;
    double wait = s->move_cpu - used;
    wait = s->move_wall < wait ? s->move_wall : wait;
    wait = (game_left < wait ? game_left : wait) * 1000.0; /* ms, rounded up as Python's poll */
    int timeout = wait < 1.0 ? 1 : wait > 1e9 ? 1000000000 : (int)wait;
    struct pollfd fds[3] = {{s->reply_fd, POLLIN | POLLPRI, 0},
                            {s->output_fd, POLLIN | POLLPRI, 0},
                            {s->zygote_fd, POLLIN | POLLPRI, 0}};
    int n = poll_again(fds, 3, timeout < wait ? timeout + 1 : timeout);
    for (int i = 0; i < 3 && n > 0; i++)
        if (fds[i].revents) {
            q->event_fd[q->events] = fds[i].fd;
            q->event_what[q->events++] = fds[i].revents;
        }
    if (q->events != 1 || q->event_fd[0] != s->reply_fd || q->event_what[0] != POLLIN)
        return HANDED;
    ssize_t got = read(s->reply_fd, q->handed, HANDED_CAP);
    if (got < 0)
        return HANDED; /* the Exchange reads again */
    q->handed_len = (int)got;
    q->events = 0;
    if (got != REPLY)
        return HANDED;
    int value = (int)((unsigned)q->handed[0] | (unsigned)q->handed[1] << 8 |
                      (unsigned)q->handed[2] << 16 | (unsigned)q->handed[3] << 24);
    if (!step_is_move(value))
        return HANDED; /* not a move: the referee's words for it */
    if (!clock_of(s->clock, &end_cpu))
        return HANDED;
    used = end_cpu - s->mark;
    if (used > s->move_cpu || s->cpu_used + used > s->game_cpu)
        return HANDED;
    s->mark = end_cpu;
    s->cpu_used += used;
    *reply = value;
    return 0;
}

/* The game's usual moves from its state until it ends (OVER) or a move is not usual (BEFORE,
 * HANDED), or MOVES_CAP are recorded (BEFORE: the referee calls again). */
int quick_play(struct quick *q)
{
    unsigned char request[REQUEST_CAP];
    step_open(q->state);
    q->count = 0;
    q->stop = OVER;
    q->seats[0].moves = q->seats[1].moves = 0;
    int seat;
    while ((seat = step_to_move(q->state)) >= 0) {
        int move, length = step_request(q->state, seat, request, REQUEST_CAP);
        if (seat > 1 || length < 0 || q->count == MOVES_CAP) {
            q->stop = BEFORE;
            break;
        }
        int stop = exchange(q, seat, request, length, &move);
        if (stop) {
            q->stop = stop;
            break;
        }
        q->seats[seat].moves++;
        q->moves[q->count++] = move;
        step_apply(q->state, move);
    }
    step_close(q->state);
    return q->stop;
}
