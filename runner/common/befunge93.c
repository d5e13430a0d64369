/* A Befunge-93 interpreter with its program built in: koth's build of a Befunge entry compiles
 * this file beside the entry's bot.bf93 (.incbin below), so the bot is one static program that
 * names no file, like a C bot (runner/common/languages.py).
 *
 * Befunge-93 as its 1993 specification gives it: an 80x25 torus of cells, the program counter
 * starting at the top left going right, a stack of integers (popping an empty one gives 0).
 * Where the specification leaves a point open: division or remainder by zero gives 0 (the
 * specification's reference asked the user); `&` reads an optionally signed decimal integer,
 * skipping anything before it, and `&` and `~` give -1 at the end of the input; `g` outside the
 * torus gives 0 and `p` outside it does nothing; `?` draws from the kernel's random bytes; cells
 * hold any integer `p` puts there. Output is flushed before each read and at the end, so a bot
 * that answers and then reads the next message is heard. A stack deeper than STACK_CAP ends the
 * program with status 3 and a message on stderr.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#define WIDTH 80
#define HEIGHT 25
#define STACK_CAP (1 << 22)

#ifndef KOTH_BEFUNGE_NO_PROGRAM
__asm__(
    ".section .rodata\n"
    ".global koth_program\n"
    "koth_program:\n"
    ".incbin \"bot.bf93\"\n"
    ".global koth_program_end\n"
    "koth_program_end:\n"
    ".byte 0\n"
    ".previous\n");
extern const char koth_program[], koth_program_end[];
#endif

static long cells[HEIGHT][WIDTH];
static long *stack;
static size_t depth, room;

static void push(long value) {
    if (depth == room) {
        if (room >= STACK_CAP) {
            fputs("befunge: the stack is deeper than 4194304 values\n", stderr);
            fflush(stdout);
            exit(3);
        }
        room = room ? room * 2 : 1024;
        stack = realloc(stack, room * sizeof *stack);
        if (!stack) {
            fputs("befunge: out of memory\n", stderr);
            exit(3);
        }
    }
    stack[depth++] = value;
}

static long pop(void) { return depth ? stack[--depth] : 0; }

static void load(const char *text, size_t size) {
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++) cells[y][x] = ' ';
    int x = 0, y = 0;
    for (size_t i = 0; i < size && y < HEIGHT; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c == '\n') {
            x = 0;
            y++;
        } else if (c == '\r') {
            if (i + 1 < size && text[i + 1] == '\n') continue;
            x = 0;
            y++;
        } else if (x < WIDTH) {
            cells[y][x++] = c;
        }
    }
}

static long read_number(void) {
    fflush(stdout);
    int c = getchar();
    while (c != EOF && !(c >= '0' && c <= '9') && c != '-') c = getchar();
    if (c == EOF) return -1;
    int negative = 0;
    if (c == '-') {
        negative = 1;
        c = getchar();
    }
    long value = 0;
    while (c >= '0' && c <= '9') {
        value = value * 10 + (c - '0');
        if (value > 1000000000000L) value = 1000000000000L;
        c = getchar();
    }
    if (c != EOF) ungetc(c, stdin);
    return negative ? -value : value;
}

static int random_direction(void) {
    unsigned char byte = 0;
    if (getrandom(&byte, 1, 0) != 1) byte = (unsigned char)rand();
    return byte & 3;
}

/* Runs the program in ``cells`` until `@`; returns the exit status. */
static int run(void) {
    static const int dx[4] = {1, 0, -1, 0}, dy[4] = {0, 1, 0, -1};
    int x = 0, y = 0, dir = 0, strings = 0;
    for (;;) {
        long c = cells[y][x];
        if (strings && c != '"') {
            push(c);
        } else if (c >= '0' && c <= '9') {
            push(c - '0');
        } else {
            long a, b;
            switch (c) {
            case '"': strings = !strings; break;
            case '+': a = pop(); b = pop(); push(b + a); break;
            case '-': a = pop(); b = pop(); push(b - a); break;
            case '*': a = pop(); b = pop(); push(b * a); break;
            case '/': a = pop(); b = pop(); push(a ? b / a : 0); break;
            case '%': a = pop(); b = pop(); push(a ? b % a : 0); break;
            case '!': push(!pop()); break;
            case '`': a = pop(); b = pop(); push(b > a); break;
            case '>': dir = 0; break;
            case 'v': dir = 1; break;
            case '<': dir = 2; break;
            case '^': dir = 3; break;
            case '?': dir = random_direction(); break;
            case '_': dir = pop() ? 2 : 0; break;
            case '|': dir = pop() ? 3 : 1; break;
            case ':': a = pop(); push(a); push(a); break;
            case '\\': a = pop(); b = pop(); push(a); push(b); break;
            case '$': pop(); break;
            case '.': printf("%ld ", pop()); break;
            case ',': putchar((int)(unsigned char)pop()); break;
            case '#': x = (x + dx[dir] + WIDTH) % WIDTH; y = (y + dy[dir] + HEIGHT) % HEIGHT; break;
            case 'g':
                a = pop(); b = pop();  /* y, then x */
                push(a >= 0 && a < HEIGHT && b >= 0 && b < WIDTH ? cells[a][b] : 0);
                break;
            case 'p': {
                long row = pop(), column = pop(), value = pop();
                if (row >= 0 && row < HEIGHT && column >= 0 && column < WIDTH)
                    cells[row][column] = value;
                break;
            }
            case '&': push(read_number()); break;
            case '~': fflush(stdout); a = getchar(); push(a == EOF ? -1 : a); break;
            case '@': fflush(stdout); return 0;
            default: break;  /* a space, or any other character: nothing */
            }
        }
        x = (x + dx[dir] + WIDTH) % WIDTH;
        y = (y + dy[dir] + HEIGHT) % HEIGHT;
    }
}

#ifndef KOTH_BEFUNGE_NO_PROGRAM
int main(void) {
    load(koth_program, (size_t)(koth_program_end - koth_program));
    return run();
}
#else
/* For tests: the program comes from the file named on the command line. */
int main(int argc, char **argv) {
    if (argc != 2) return 2;
    FILE *file = fopen(argv[1], "rb");
    if (!file) return 2;
    static char text[1 << 16];
    size_t size = fread(text, 1, sizeof text, file);
    fclose(file);
    load(text, size);
    return run();
}
#endif
