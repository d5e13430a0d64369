#!/bin/sh
# Build one entry inside the build container (run by buildserver.py under the build's own uid).
# The first argument names a fixed recipe; the second is the folder holding a private copy of the
# entry (read-only). /out, /tmp and /koth are size-capped tmpfs mounts, the only writable places.
# Everything the host gets back leaves through this script's stdout as one tar stream, which the
# host reads up to a cap: log.txt (the compiler's messages, capped), status (this script's
# verdict, a number) and the artefacts in /out. The compiler's passes never hold that stdout
# (3>&-). The host checks bot.o and bot.so itself (runner/season/objcheck.py), as it does for the
# local sandbox's.
exec 3>&1 >/koth/log.txt 2>&1
finish() {
    truncate -s '<65536' /koth/log.txt  # frees room in /koth if the messages filled it
    echo "$1" >/koth/status
    tar -cf - -C /koth log.txt status -C /out . >&3
    exit 0
}
cd "$2" || finish 9
case "$1" in
    c-function)
        # koth-bot.h: the game's declarations (runner/sandbox/local.py HEADER), the host's.
        gcc -std=c11 -O2 -fPIC -Wall -include koth-bot.h -c bot.c -o /out/bot.o 3>&- || finish 10
        gcc -shared -nostartfiles -Wl,-z,relro,-z,now,-z,noexecstack \
            -o /out/bot.so /out/bot.o -lm 3>&- || finish 12 ;;
    *)
        # A language's recipe, made from its row (runner/common/languages.py) with the image:
        # its steps run in a writable copy of the entry in /tmp, its artefacts go to /out.
        case "$1" in *[!a-z0-9-]*|'') echo "unknown build recipe: $1"; finish 9 ;; esac
        [ -f "/opt/koth/recipes/$1.sh" ] || { echo "unknown build recipe: $1"; finish 9; }
        mkdir /tmp/build && cp -R . /tmp/build/ && cd /tmp/build || finish 9
        . "/opt/koth/recipes/$1.sh" ;;
esac
finish 0
