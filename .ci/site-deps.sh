#!/usr/bin/env bash
# Installs the browser tests/test_site_browser.py drives: Debian's chromium (and a font), unless
# a chromium is on PATH already (GitHub's Ubuntu runners have one). Playwright for Python, which
# drives it, comes with the test extra: pip install -e '.[test]'. Playwright's own browser
# download (`playwright install`) is never used.
#   sudo bash .ci/site-deps.sh
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive

if ! command -v chromium >/dev/null 2>&1 && ! command -v chromium-browser >/dev/null 2>&1; then
    apt_get=(apt-get)
    [ "$(id -u)" -eq 0 ] || apt_get=(sudo apt-get)
    "${apt_get[@]}" update -qq
    "${apt_get[@]}" install -y -qq --no-install-recommends chromium fonts-dejavu-core
fi
browser=$(command -v chromium || command -v chromium-browser)
echo "site-deps: $("$browser" --version 2>/dev/null || echo "$browser")"
