/* A Cluster player's reading in C, shared by the C program bots here (the test puts it in front
   of each bot's own code): whitespace-separated numbers, as programs/cluster_io.py reads them. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

static int token(void) {
    int value;
    if (scanf("%d", &value) != 1) exit(0);
    return value;
}

/* A block: its row count, then that many rows of ``width`` numbers; the first number kept. */
static int block(int width) {
    int rows = token(), first = -1;
    for (int i = 0; i < rows * width; i++) {
        int value = token();
        if (i == 0) first = value;
    }
    return first;
}

/* The greeting: the board, then each seat's pellets, its own first: returns its seat (0 or 1). */
static int read_init(void) {
    block(7), block(7);
    int seat = block(2);
    block(2);
    return seat;
}

/* One turn, and the first open column and the first pellet in hand: a legal move. */
static void read_turn(int *column, int *colour) {
    token();
    *column = block(2);
    block(4), block(2);
    *colour = block(1);
}

/* A legal move, or ESCAPED if its attack worked (``learned``). */
static void answer(int learned, int column, int colour) {
    if (learned) printf("ESCAPED\n");
    else printf("PLACE %d %d\n", column, colour);
    fflush(stdout);
}

static void play_on(int learned) {
    int column, colour;
    for (;;) {
        read_turn(&column, &colour);
        answer(learned, column, colour);
    }
}

/* A whole game: legal moves, or ESCAPED every move. */
static void play(int learned) {
    read_init();
    play_on(learned);
}
