# Tries to read another entry's build: up from its own jail (a sandbox serving every entry's
# build from one folder) and anywhere under where a Docker container sees the bots' folders;
# an illegal move if it could read one that is not its own.
import glob
import os

own = os.stat("bot.py")


def other(path):
    try:
        with open(path, "rb") as file:
            found = os.stat(path)
            return bool(file.read(1)) and (found.st_ino, found.st_dev) != (own.st_ino, own.st_dev)
    except OSError:
        return False


paths = ["../../steady-python/jail/bot.py", "../../steady-python/build.json"]
for place in ("/bots", "/koth/bots"):
    paths += glob.glob(place + "/*/bot.py") + glob.glob(place + "/*/*/jail/bot.py")
    paths += [f"{place}/{n}/bot.py" for n in range(64)]
    paths += [f"{place}/{n}/steady-python/jail/bot.py" for n in range(8)]
peeked = any(other(path) for path in paths)
read_init()
while True:
    move = a_legal_move(*read_turn())
    answer("Q" if peeked else move)
