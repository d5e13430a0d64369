#!/usr/bin/env bash
# Makes a Docker engine available for the docker tests: installs Debian's docker.io, starts dockerd
# when none answers, and provides the base image `debian:bookworm-slim`. Where no registry can be
# reached (as on the CI machines), the base image is made locally with debootstrap and
# `docker import`, from the Debian mirror this machine's own apt sources name.
#   bash .ci/docker-engine.sh      (as root)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive
BASE=debian:bookworm-slim

need=()
command -v dockerd >/dev/null 2>&1 || need+=(docker.io)
command -v debootstrap >/dev/null 2>&1 || need+=(debootstrap)
if [ ${#need[@]} -gt 0 ]; then
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi

if ! docker info >/dev/null 2>&1; then
    nohup dockerd >/var/log/koth-dockerd.log 2>&1 &
    for _ in $(seq 1 60); do
        docker info >/dev/null 2>&1 && break
        sleep 1
    done
    docker info >/dev/null 2>&1 || { echo "docker-engine: dockerd did not start; see /var/log/koth-dockerd.log" >&2; exit 1; }
fi

if ! docker image inspect "$BASE" >/dev/null 2>&1 && ! timeout 60 docker pull -q "$BASE" >/dev/null 2>&1; then
    # The mirror is read from this machine's apt configuration, never written here.
    mirror=$(grep -hsE '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' | grep -v security | head -n1)
    [ -n "$mirror" ] || mirror=$(grep -hsE '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list | grep -v security | awk '{print $2}' | head -n1)
    [ -n "$mirror" ] || { echo "docker-engine: no Debian mirror found in the apt sources" >&2; exit 1; }
    rootfs=$(mktemp -d)
    trap 'rm -rf "$rootfs"' EXIT
    echo "docker-engine: making $BASE with debootstrap from the machine's apt mirror"
    debootstrap --variant=minbase bookworm "$rootfs" "$mirror" >/dev/null
    tar -C "$rootfs" -c . | docker import - "$BASE" >/dev/null
fi
echo "docker-engine: $(docker version --format 'server {{.Server.Version}}') with $BASE"
