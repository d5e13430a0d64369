#!/usr/bin/env bash
# Installs the compilers and runtimes of every language bots may be written in, the packages
# runner/common/languages.py names (that file imports nothing of koth's: no install needed to
# read it), unless they are installed already. tests/test_languages.py builds and plays a bot in
# each with them in the local sandbox (the Docker sandbox's image installs its own).
#   sudo bash .ci/languages.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

read -r -a packages <<<"$(python3 runner/common/languages.py)"
missing=()
for package in "${packages[@]}"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ ${#missing[@]} -gt 0 ]; then
    apt_get=(apt-get)
    [ "$(id -u)" -eq 0 ] || apt_get=(sudo apt-get)
    "${apt_get[@]}" update -qq
    "${apt_get[@]}" install -y -qq --no-install-recommends "${missing[@]}"
fi
echo "languages: ${packages[*]}"
