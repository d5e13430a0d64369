# A well-behaved opponent: the first open column, the first pellet in hand.
read_init()
while True:
    answer(a_legal_move(*read_turn()))
