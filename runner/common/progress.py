"""A small progress report for long stages: done/total, rate, ETA.

On a terminal it is one bar redrawn in place (at most ten times a second). Otherwise (CI logs,
pipes) it prints a plain line at each tenth of the way and at least every 30 seconds, so a log
shows steady progress without thousands of lines.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import TextIO

from runner.common.safefiles import shown_text

BAR = 24


def _clock(seconds: float) -> str:
    seconds = int(seconds + 0.5)
    hours, rest = divmod(seconds, 3600)
    return f"{hours}:{rest // 60:02d}:{rest % 60:02d}" if hours else f"{rest // 60}:{rest % 60:02d}"


class Progress:
    def __init__(
        self, total: int, what: str = "games", stream: TextIO | None = None, enabled: bool = True
    ) -> None:
        self.total = total
        self.what = what
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and total > 0
        self.tty = self.enabled and self.stream.isatty()
        self.done = 0
        self.started = time.monotonic()
        self._drawn = 0.0
        self._last_line = self.started
        self._last_tenth = 0
        if self.enabled and not self.tty:
            self._line(f"progress: 0/{self.total} {self.what}")

    def text(self, now: float | None = None) -> str:
        elapsed = (now if now is not None else time.monotonic()) - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        text = f"{self.done}/{self.total} {self.what}  {rate:.1f}/s"
        if self.done < self.total and rate > 0:
            text += f"  ETA {_clock((self.total - self.done) / rate)}"
        elif self.done >= self.total:
            text += f"  in {_clock(elapsed)}"
        return text

    def _line(self, text: str) -> None:
        self.stream.write(text + "\n")
        self.stream.flush()

    def advance(self, n: int = 1) -> None:
        self.done += n
        if not self.enabled:
            return
        now = time.monotonic()
        if self.tty:
            if now - self._drawn >= 0.1 or self.done >= self.total:
                self._drawn = now
                filled = BAR * self.done // self.total
                bar = "#" * filled + "." * (BAR - filled)
                self.stream.write(f"\r[{bar}] {self.text(now)}\x1b[K")
                self.stream.flush()
            return
        tenth = 10 * self.done // self.total
        if tenth > self._last_tenth or now - self._last_line >= 30 or self.done >= self.total:
            self._last_tenth, self._last_line = tenth, now
            self._line(f"progress: {self.text(now)}")

    def close(self) -> None:
        """End the bar's line (on a terminal), so later output starts on a fresh line."""
        if self.tty and self.done:
            self.stream.write("\n")
            self.stream.flush()
        self.tty = False
        self.enabled = False


Say = Callable[[str], None]  # where a stage says what it does, one line at a time


def to_stderr(text: str) -> None:
    """A stage's default voice: one line on stderr, flushed (a warning may quote a cached
    file: no control character in it reaches the terminal)."""
    print(shown_text(text), file=sys.stderr, flush=True)
