/* The results site's ``changes`` string (runner/site/frames.py's encode_edits, character for
 * character: tests/test_snakes_quick.py holds the two together) for a replay kept as runs, as a
 * game's C replay makes it (runner/games/snakes/step.c's step_replay): per step, ``runs[step]``
 * runs, each replacing ``length[r]`` characters at ``at[r]`` by as many of ``text``, in order.
 * Compiled with the game's C code (runner/common/native.py); pure: no I/O.
 */
#include <string.h>

static int number(char *out, int n, int digits, const char *alphabet)
{
    for (int k = digits - 1; k >= 0; k--)
        *out++ = alphabet[(n >> (6 * k)) & 63];
    return digits;
}

/* Writes the string to ``out`` and returns its length, or -1 when it needs more than ``cap``
 * characters. ``digits``: base-64 digits a number; ``alphabet`` (64 characters) and ``splice``
 * are replay.py's ALPHABET and SPLICE. */
int changes_of_runs(const int *runs, int steps, const int *at, const int *length,
                    const unsigned char *text, int digits, const char *alphabet, int splice,
                    char *out, int cap)
{
    int used = 0, run = 0, put = 0;
    for (int step = 0; step < steps; step++) {
        if (step > 0) {
            if (used == cap)
                return -1;
            out[used++] = ',';
        }
        for (int i = 0; i < runs[step]; i++, run++) {
            int n = length[run], offset = at[run];
            /* replay.py: a character at a time while that is no longer than one splice */
            int each = n * (digits + 1), whole = 3 * digits + 1 + n;
            if (used + (each <= whole ? each : whole) > cap)
                return -1;
            if (each <= whole) {
                for (int c = 0; c < n; c++) {
                    used += number(out + used, offset + c, digits, alphabet);
                    out[used++] = (char)text[put + c];
                }
            } else {
                out[used++] = (char)splice;
                used += number(out + used, offset, digits, alphabet);
                used += number(out + used, n, digits, alphabet);
                used += number(out + used, n, digits, alphabet);
                memcpy(out + used, text + put, (size_t)n);
                used += n;
            }
            put += n;
        }
    }
    return used;
}
