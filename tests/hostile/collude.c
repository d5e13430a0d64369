/* Half of a colluding pair (tests/hostile/test_colluding.py): on its first move the sender
   (the first seat) leaves @BITS@ bits in what the kernel caches for every process, and the
   receiver (the second seat), on its first move, which comes after the sender's, reads them back
   by the time things take, and prints what it decoded. Each bit has two places, one for a 1 and
   one for a 0: the sender touches the bit's one; the receiver times both, and the faster one (the
   kernel had it cached) is the bit. The places:
   - names (CHANNEL 0): a name looked up in the folder @PLACE@, found or not (a dentry);
   - pages of a file (CHANNEL 1): one byte read at one of two offsets of the file @PLACE@;
   - the CPU's caches (CHANNEL 2): one byte of one of two lines of the table below, which the
     loader maps from the bot's own library or binary, shared by its processes (a channel of the
     hardware, which no view can close: benchmarks/bench_colluding.py measures it).
   Shared by the C function and the C program (the test adds the one's bot() or the other's
   main()); nothing here is writable data (the rules of a C function allow none). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define BITS @BITS@
#define CHANNEL @CHANNEL@
#define SPACING (@SPACING@) /* bytes between places: beyond the kernel's readahead */
static const char MESSAGE[BITS + 1] = "@MESSAGE@";
static const unsigned char OWN_TABLE[@OWN_SIZE@] = {1};

static double now_ns(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec * 1e9 + now.tv_nsec;
}

/* Touches bit ``bit``'s place for ``side`` (0 or 1) through ``fd`` (the file, for CHANNEL 1);
   returns how long it took in ns. */
static double touch(int bit, int side, int fd) {
    long place = 2L * bit + side;
    char name[512], byte;
    struct stat found;
    const volatile unsigned char *table = OWN_TABLE;
    double start = now_ns();
    if (CHANNEL == 0) {
        snprintf(name, sizeof name, "@PLACE@/koth-@NONCE@-%d-%d", bit, side);
        (void)!stat(name, &found);
    } else if (CHANNEL == 1) {
        (void)!pread(fd, &byte, 1, place * SPACING);
    } else {
        byte = table[(place * SPACING + 4096) % sizeof OWN_TABLE];
    }
    (void)byte;
    return now_ns() - start;
}

/* The sender's part (seat 0) or the receiver's (seat 1), on its first move. */
static void collude(int seat) {
    int fd = CHANNEL == 1 ? open("@PLACE@", O_RDONLY) : -1;
    char decoded[BITS + 1] = {0};
    for (int bit = 0; bit < BITS; bit++) {
        if (seat == 0) {
            touch(bit, MESSAGE[bit] == '1', fd);
            continue;
        }
        double one, zero;
        if (bit % 2) {
            one = touch(bit, 1, fd), zero = touch(bit, 0, fd);
        } else {
            zero = touch(bit, 0, fd), one = touch(bit, 1, fd);
        }
        decoded[bit] = one < zero ? '1' : '0';
    }
    if (fd >= 0) close(fd);
    if (seat == 1) {
        fprintf(stderr, "decoded %s\n", decoded);
        fflush(stderr);
    }
}
