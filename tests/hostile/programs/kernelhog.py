# Leaves about 100 MB of kernel objects charged to its memory group (its container's, under
# Docker) when it ends: the dentries of long names it looks up that do not exist (@NONCE@: fresh
# ones every run), which the kernel keeps. The next bot in that group would start that much short
# of the memory it is owed. It prints how many it looked up.
read_init()
columns, hand = read_turn()
prefix = "/usr/lib/" + "k" * 200 + "-@NONCE@-"
for number in range(int("@NAMES@")):
    try:
        os.stat(f"{prefix}{number}")
    except OSError:
        pass
sys.stderr.write("looked up @NAMES@ names\n")
answer(a_legal_move(columns, hand))
while True:
    answer(a_legal_move(*read_turn()))
