# Race to Twenty's built-in bot: runs 1 + its seat number mod 3 every turn.
import sys

seats, me = (int(w) for w in sys.stdin.readline().split()[1::2])
while sys.stdin.readline():
    sys.stdin.readline()
    sys.stdout.write(f"{1 + me % 3}\n")
    sys.stdout.flush()
