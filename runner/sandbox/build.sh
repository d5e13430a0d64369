#!/bin/sh
# Build one entry inside the build container: /src (read-only) holds the entry, /out (the only
# writable mount) receives the artefacts and log.txt. The one argument names a fixed recipe.
exec >/out/log.txt 2>&1
cd /src || exit 9
case "$1" in
    c-function)
        gcc -std=c11 -O2 -fPIC -Wall -c bot.c -o /out/bot.o || exit 10
        python3 /opt/koth/objcheck.py /out/bot.o || exit 11
        gcc -shared -o /out/bot.so /out/bot.o -lm || exit 12 ;;
    c)
        gcc -std=c11 -O2 -Wall -static -o /out/bot bot.c -lm || exit 10 ;;
    cpp)
        g++ -std=c++17 -O2 -Wall -static -o /out/bot bot.cpp || exit 10 ;;
    python)
        python3 -I -c 'import ast; ast.parse(open("bot.py", "rb").read(), "bot.py")' || exit 10
        cp bot.py /out/bot.py || exit 12 ;;
    *)
        echo "unknown build recipe: $1"; exit 9 ;;
esac
