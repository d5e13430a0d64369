"""A published season's news where the community lives: its top entries, the biggest movers since
the season before and the entries new to it, posted to a Discord webhook.

A season is news once: the news is read from the history of seasons (runner/rank/history.py)
before and after the site was rendered, and only a season the history did not hold before is
told. A season rendered again (the same game, seed and entries: a host change, a re-run by hand,
a cache restored from the published site) is not told twice.

Everything in the message comes from entries' names, which their authors choose: Discord's
markdown in them is escaped, nobody is mentioned (``allowed_mentions``), and each name and the
whole message are cut to Discord's limits.
"""

from __future__ import annotations

import json
import unicodedata
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from runner.common import web
from runner.rank import history as seasons_file
from runner.rank.standings import ordinal

TOP = 5  # entries listed from the top of the leaderboard
MOVERS = 3  # entries listed among the biggest movers
NAME_CAP = 40  # characters of a name shown
CONTENT_CAP = 2000  # characters of a Discord message's content
USERNAME = "koth"
TIMEOUT_S = 15.0


@dataclass(frozen=True)
class News:
    """A season new to the history: its line and the line of its game's season before."""

    season: dict[str, Any]
    previous: dict[str, Any] | None


class PostError(Exception):
    """The webhook did not take the message (said in one line, without the webhook's address:
    it is a secret)."""


def news(before: Sequence[dict[str, Any]], after: Sequence[dict[str, Any]]) -> News | None:
    """The newest season in ``after`` that ``before`` does not hold, or None: nothing new."""
    known = {seasons_file.key(s) for s in before}
    fresh = [s for s in after if seasons_file.key(s) not in known]
    if not fresh:
        return None
    season = max(fresh, key=lambda s: str(s["date"]))
    older = [
        s for s in after if s["game"] == season["game"] and str(s["date"]) < str(season["date"])
    ]
    return News(season, max(older, key=lambda s: str(s["date"])) if older else None)


def plain(text: str, cap: int = NAME_CAP) -> str:
    """``text`` (an entry's name, from its author) as Discord shows it literally: one line, no
    control characters, markdown escaped, at most ``cap`` characters before escaping."""
    kept = "".join(c if unicodedata.category(c)[0] != "C" else " " for c in text)
    kept = " ".join(kept.split())
    if len(kept) > cap:
        kept = kept[: cap - 1] + "…"
    return "".join("\\" + c if c in "\\*_~`|>#[]()<@:-" else c for c in kept) or "?"


def message(found: News, site_url: str | None) -> str:
    """The message's text: the game and date, the top entries with their ratings, the biggest
    movers since the season before, the entries new to this one, and the site's address."""
    season = found.season
    entries = sorted(season["entries"], key=lambda e: (int(e["rank"]), str(e["entry"])))
    lines = [
        f"**{plain(str(season['game']))}**: a new season, {int(season['games'])} game(s), "
        f"{len(entries)} entr{'y' if len(entries) == 1 else 'ies'} "
        f"({plain(str(season['date'])[:10])})"
    ]
    lines += [
        f"{int(e['rank'])}. {plain(str(e['name']))} · rating {float(e['rating']):.0f}"
        for e in entries[:TOP]
    ]
    if found.previous is not None:
        changes = seasons_file.changes(found.previous, [_Row(e) for e in entries])
        rose = {e["entry"]: changes[e["entry"]]["rose"] or 0 for e in entries}
        movers = sorted(
            (e for e in entries if rose[e["entry"]]),
            key=lambda e: (-abs(rose[e["entry"]]), int(e["rank"])),
        )[:MOVERS]
        if movers:
            told = ", ".join(
                f"{plain(str(e['name']))} {'up' if rose[e['entry']] > 0 else 'down'} "
                f"{abs(rose[e['entry']])} to {ordinal(int(e['rank']))}"
                for e in movers
            )
            lines.append(f"Biggest movers: {told}")
        new = [plain(str(e["name"])) for e in entries if changes[e["entry"]]["new"]]
        if new:
            lines.append(f"New: {', '.join(new)}")
    if site_url:
        lines.append(f"Results and replays: <{site_url}>")
    text = "\n".join(lines)
    return text if len(text) <= CONTENT_CAP else text[: CONTENT_CAP - 1] + "…"


@dataclass(frozen=True)
class _Row:
    """A history line's entry as runner.rank.history.changes reads a standings row."""

    line: dict[str, Any]

    @property
    def entry(self) -> str:
        return str(self.line["entry"])

    @property
    def rank(self) -> int:
        return int(self.line["rank"])

    @property
    def content_hash(self) -> str:
        return str(self.line["hash"])


def payload(text: str) -> dict[str, Any]:
    """Discord's webhook body for ``text``: shown as koth, mentioning nobody."""
    return {"content": text, "username": USERNAME, "allowed_mentions": {"parse": []}}


def post(webhook: str, body: dict[str, Any], timeout: float = TIMEOUT_S) -> None:
    """POST ``body`` to the webhook; PostError if it is not an http(s) address or does not take
    it (any status but 2xx, no answer within ``timeout``)."""
    scheme = urllib.parse.urlsplit(webhook).scheme
    if scheme not in ("https", "http"):
        raise PostError("the webhook is not an https:// address")
    request = urllib.request.Request(
        webhook,
        data=json.dumps(body).encode("utf-8"),
        headers={"Content-Type": "application/json", "User-Agent": "koth"},
        method="POST",
    )
    try:
        web.send(request, timeout, 1 << 16)  # what it answers is not read
    except web.RequestError as exc:
        raise PostError(f"the webhook {exc}") from None
