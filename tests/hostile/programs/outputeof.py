# Closes its output (stderr: the host's end of that channel then reads as ended at every poll),
# then takes 0.3 s over its first reply: the host must wait for it without spinning.
import os
import time

os.close(2)
read_init()
columns, hand = read_turn()
time.sleep(0.3)
answer(a_legal_move(columns, hand))
while True:
    answer(a_legal_move(*read_turn()))
