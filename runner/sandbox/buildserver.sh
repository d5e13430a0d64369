#!/bin/sh
# The build container's driver (runner/sandbox/dockerbuild.py): it builds entries one at a time,
# each under a uid of its own, for as long as the host asks. A request is one line on stdin,
# "N RECIPE WALL": build number N (it picks the uid), build.sh's recipe, the wall-clock limit in
# seconds; the entry's private copy is at /inbox/N (read-only). The answer on stdout is one line,
# "SIZE STATUS" (the length of what follows; the status of the build under its time limit, 137
# when that limit killed it), then build.sh's tar stream. Before the answer, every process of the
# build's uid is killed and everything it wrote in /out, /tmp and /koth (the only places it may
# write) is removed; if anything is left, this driver ends, and the host starts another container
# for the next build. The one argument is the largest file a build may write, in bytes.
set -u
file_cap="$1"
while read -r n recipe wall; do
    case "$n$wall" in '' | *[!0-9]*) exit 2 ;; esac
    case "$recipe" in '' | *[!a-z-]*) exit 2 ;; esac
    uid=$((20000 + n % 40000))
    as_build() {
        setpriv --reuid="$uid" --regid="$uid" --clear-groups --inh-caps=-all "$@"
    }
    as_build env -i PATH=/usr/bin:/bin HOME=/nonexistent \
        prlimit --fsize="$file_cap" timeout -s KILL "$wall" \
        /bin/sh /opt/koth/build.sh "$recipe" "/inbox/$n" </dev/null >/result/tar 2>/dev/null
    status=$?
    # Every process of the build's uid but this shell (kill -1 spares its caller), twice: one
    # forked meanwhile is killed too; then what the build wrote. One shell for it all.
    as_build /bin/sh -c 'kill -KILL -1; kill -KILL -1; find /out /tmp /koth -mindepth 1 \
        -maxdepth 1 -exec chmod -R u+rwx {} + -exec rm -rf {} +' 2>/dev/null
    if [ -n "$(find /out /tmp /koth -mindepth 1 -maxdepth 1)" ]; then
        exit 4
    fi
    printf '%s %s\n' "$(stat -c %s /result/tar)" "$status"
    cat /result/tar
    rm -f /result/tar
done
