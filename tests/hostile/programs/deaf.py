# Shrinks its stdin pipe below the size of the game's first message and never reads it.
import fcntl
import time

try:
    fcntl.fcntl(0, 1031, 4096)  # F_SETPIPE_SZ
except OSError:
    pass
time.sleep(3600)
