#!/usr/bin/env bash
# Installs what tests/test_site_browser.py needs: Debian's chromium and Playwright for Python.
# Idempotent: does nothing when both are already there. Playwright's own browser download
# (`playwright install`) is never used; the tests drive /usr/bin/chromium instead.
#   bash .ci/site-deps.sh          (as root, or with sudo available for apt-get)
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive PIP_DISABLE_PIP_VERSION_CHECK=1
PYTHON="${PYTHON:-python}"

if ! command -v chromium >/dev/null 2>&1 && [ ! -x /usr/bin/chromium ]; then
    apt_get=(apt-get)
    [ "$(id -u)" -eq 0 ] || apt_get=(sudo apt-get)
    "${apt_get[@]}" update -qq
    "${apt_get[@]}" install -y -qq --no-install-recommends chromium fonts-dejavu-core
fi

if ! "$PYTHON" -c "import playwright.sync_api" >/dev/null 2>&1; then
    "$PYTHON" -m pip install -q "playwright>=1.40"
fi
echo "site-deps: $(/usr/bin/chromium --version 2>/dev/null || echo 'chromium ?'); playwright" \
     "$("$PYTHON" -c 'import importlib.metadata as m; print(m.version("playwright"))')"
