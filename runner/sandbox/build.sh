#!/bin/sh
# Compile, check and link one entry inside the build container: /src (read-only) holds the entry,
# /out (the only writable mount) receives bot.o, bot.so and log.txt. Fixed: no argument is used.
exec >/out/log.txt 2>&1
cd /src || exit 9
gcc -std=c11 -O2 -fPIC -Wall -c bot.c -o /out/bot.o || exit 10
python3 /opt/koth/objcheck.py /out/bot.o || exit 11
gcc -shared -o /out/bot.so /out/bot.o -lm || exit 12
