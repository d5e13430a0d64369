# Half of a colluding pair, in Python (tests/hostile/collude.c says how it works; here the
# channels are names, CHANNEL 0, and pages of a file, CHANNEL 1).
import time

BITS, CHANNEL, SPACING = int("@BITS@"), int("@CHANNEL@"), int("@SPACING@")
MESSAGE = "@MESSAGE@"


def touch(bit: int, side: int, fd: int) -> int:
    start = time.perf_counter_ns()
    if CHANNEL == 0:
        try:
            os.stat(f"@PLACE@/koth-@NONCE@-{bit}-{side}")
        except OSError:
            pass
    else:
        try:
            os.pread(fd, 1, (2 * bit + side) * SPACING)
        except OSError:
            pass
    return time.perf_counter_ns() - start


def collude(seat: int) -> None:
    try:
        fd = os.open("@PLACE@", os.O_RDONLY) if CHANNEL == 1 else -1
    except OSError:
        fd = -1
    decoded = []
    for bit in range(BITS):
        if seat == 0:
            touch(bit, int(MESSAGE[bit]), fd)
            continue
        if bit % 2:
            one, zero = touch(bit, 1, fd), touch(bit, 0, fd)
        else:
            zero, one = touch(bit, 0, fd), touch(bit, 1, fd)
        decoded.append("1" if one < zero else "0")
    if seat == 1:
        sys.stderr.write(f"decoded {''.join(decoded)}\n")
        sys.stderr.flush()


block(7), block(7)
seat = block(2)[0][0]
block(2)
columns, hand = read_turn()
collude(seat)
answer(a_legal_move(columns, hand))
while True:
    answer(a_legal_move(*read_turn()))
