# Never reads its input: shrinks its stdin pipe, then answers as fast as it can, for ever.
import fcntl

try:
    fcntl.fcntl(0, 1031, 4096)  # F_SETPIPE_SZ
except OSError:
    pass
while True:
    answer("ROTATE 1")
