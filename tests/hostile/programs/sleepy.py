# A well-behaved opponent that takes its time: it sleeps 0.2 s before each of its first five
# replies.
import time

read_init()
turn = 0
while True:
    columns, hand = read_turn()
    turn += 1
    if turn <= 5:
        time.sleep(0.2)
    answer(a_legal_move(columns, hand))
