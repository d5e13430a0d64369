"""Headless Chromium (Debian's, tests/needs.py) driven by Playwright, for the site's browser
tests, and a page that keeps what went wrong in it."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import needs

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]


@contextmanager
def chromium() -> Iterator[Any]:
    """A browser, closed after the block."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=needs.chromium(), args=CHROMIUM_ARGS)
        try:
            yield launched
        finally:
            launched.close()


@contextmanager
def checked_page(browser: Any) -> Iterator[Any]:
    """A new page of a 1280 × 900 window; after the block, it fails if the console reported an
    error, a script raised or a dialog opened (an untrusted script ran)."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    opened = context.new_page()
    errors: list[str] = []
    opened.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    opened.on("pageerror", lambda e: errors.append(str(e)))

    def dialog(shown: Any) -> None:
        errors.append(f"a dialog: {shown.message}")
        shown.dismiss()

    opened.on("dialog", dialog)
    yield opened
    context.close()
    assert not errors, f"the browser console reported errors: {errors}"
