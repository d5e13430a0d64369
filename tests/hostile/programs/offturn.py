# Thinks on its opponent's time: after each reply it burns CPU until its next turn message
# arrives. It prints the CPU it really used.
import select
import time

read_init()
while True:
    columns, hand = read_turn()
    answer(a_legal_move(columns, hand))
    while not select.select([0], [], [], 0)[0]:
        pass
    sys.stderr.write(f"cpu {time.process_time():.6f}\n")
