"""The season's records published with its site, and restored from it.

``koth site`` writes, beside the pages, the data they were rendered from, for readers to
download and for the next run to start from:

- ``games.jsonl``: the records the site shows (the current season's, canonical order);
- ``standings.json``: the standings it ranks;
- ``published.json``: what these are: how many records, their sha256, and the *results key*
  they were played under (``koth site --results-key``; the season workflow's cache key
  prefix: the rules version and a hash of the host code that decides outcomes).

``koth restore --site URL --key KEY --out results/games.jsonl`` is the season workflow's way
back when its cache is gone (GitHub evicts a cache unused for 7 days): it fetches the published
records and adds them to OUT, but only when they were played under the same key — records of
another host version may differ in outcome and are never reused. A site that is missing,
unreachable or does not match restores nothing: the run then plays every game, which is slower
but right, and says so. The records are read like any results file (runner/season/results.py:
malformed lines skipped), after their sha256 is checked against published.json.

``koth restore-history --site URL --out FILE`` does the same for the history of seasons
(``site: history:``, published as ``seasons.jsonl``; runner/rank/history.py) when its cache is gone.
Past seasons do not depend on the host code, so no key is asked; every line is checked as a
season's (a bad one is left out, and said) and the seasons already in FILE are kept.
"""

from __future__ import annotations

import hashlib
import http.client
import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from runner.common.documents import load_json
from runner.season import results

GAMES = "games.jsonl"
SEASONS = "seasons.jsonl"
SEASONS_CAP = 16 << 20
STANDINGS = "standings.json"
MANIFEST = "published.json"
FORMAT = "koth-published"
VERSION = 1
MANIFEST_CAP = 64 << 10
GAMES_CAP = 1 << 30  # GitHub Pages' own limit for a whole site
ATTEMPTS = 3

Say = Callable[[str], None]
Fetch = Callable[[str, int], bytes | None]  # url, cap → body; None: not there (404)


def publish(
    site: Path,
    records: Sequence[Mapping[str, Any]],
    standings: Mapping[str, Any] | None,
    key: str | None,
    lines: Mapping[str, bytes] | None = None,
) -> None:
    """Write the data files beside a rendered site (records already in canonical order; a
    record ``lines`` holds, by key, as the line it was read from)."""
    results.write_atomic(site / GAMES, records, lines)
    data = (site / GAMES).read_bytes()
    if standings is not None:
        (site / STANDINGS).write_text(json.dumps(standings, indent=2, ensure_ascii=False) + "\n")
    manifest = {
        "format": FORMAT,
        "version": VERSION,
        "results_key": key,
        "games": {"file": GAMES, "records": len(records), "sha256": _sha256(data)},
        "standings": STANDINGS if standings is not None else None,
    }
    (site / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def fetch_url(url: str, cap: int) -> bytes | None:
    """GET ``url`` (http or https only), at most ``cap`` bytes; None on 404. Raises OSError
    (or ValueError) on anything else, after retrying network errors."""
    if not url.startswith(("https://", "http://")):
        raise ValueError(f"{url!r} is not an http(s) address")
    for attempt in range(1, ATTEMPTS + 1):
        try:
            with urllib.request.urlopen(url, timeout=60) as response:
                body: bytes = response.read(cap + 1)
            if len(body) > cap:
                raise ValueError(f"{url} is larger than {cap} bytes")
            return body
        except urllib.error.HTTPError as exc:
            if exc.code == 404:
                return None
            if attempt == ATTEMPTS or exc.code < 500:
                raise OSError(f"{url}: HTTP {exc.code}") from None
        except (OSError, http.client.HTTPException) as exc:  # a dropped transfer included
            if attempt == ATTEMPTS:
                raise OSError(f"{url}: {getattr(exc, 'reason', None) or exc!r}") from None
        time.sleep(2 * attempt)
    raise AssertionError("unreachable")


def _manifest(body: bytes) -> dict[str, Any] | None:
    try:
        doc = load_json(body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError):
        return None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT or doc.get("version") != VERSION:
        return None
    games = doc.get("games")
    if not isinstance(games, dict) or games.get("file") != GAMES:
        return None
    if not isinstance(games.get("sha256"), str):
        return None
    return doc


def restore(site: str, key: str, out: Path, say: Say, fetch: Fetch = fetch_url) -> int:
    """Add the records published at ``site`` to ``out`` if they were played under ``key``;
    returns how many were restored. ``out`` exists afterwards (empty when nothing was found)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    known, problems = results.read_records(out)
    for problem in problems:
        say(f"warning: {problem}")
    found = _published(site.strip(), key, say, fetch)
    if found is None:
        say("restored nothing: every game whose record is not in the cache will be played")
        records: list[Mapping[str, Any]] = list(known)
    else:
        records = [*known, *found]
    results.write_atomic(out, results.canonical(records))
    return 0 if found is None else len(found)


def _published(site: str, key: str, say: Say, fetch: Fetch) -> list[dict[str, Any]] | None:
    """The records published at ``site`` under ``key``, or None (said why)."""
    if not site:
        say("no published site is known (is GitHub Pages enabled?)")
        return None
    base = site.rstrip("/") + "/"
    try:
        body = fetch(base + MANIFEST, MANIFEST_CAP)
        manifest = _manifest(body) if body is not None else None
        if body is None:
            say(f"nothing is published at {base} yet ({MANIFEST} not found)")
            return None
        if manifest is None:
            say(f"{base}{MANIFEST} is not a koth publication")
            return None
        if manifest.get("results_key") != key:
            say(
                f"the records at {base} were played under the results key "
                f"{manifest.get('results_key')!r}, not {key!r} (the rules or the host code "
                "changed): they are not reused"
            )
            return None
        data = fetch(base + GAMES, GAMES_CAP)
    except (OSError, ValueError) as exc:
        say(f"warning: the published records could not be fetched: {exc}")
        return None
    if data is None or _sha256(data) != manifest["games"]["sha256"]:
        say(f"{base}{GAMES} is missing or does not match {MANIFEST} (sha256): not reused")
        return None
    records, problems = _parse(data)
    for problem in problems:
        say(f"warning: {problem}")
    say(f"restored {len(records)} record(s) published at {base} under {key}")
    return records


def restore_history(site: str, out: Path, say: Say, fetch: Fetch = fetch_url) -> int:
    """Add the seasons published at ``site`` (its ``seasons.jsonl``) to the history file
    ``out``; returns how many lines were read from the site. ``out`` exists afterwards."""
    from runner.rank import history

    kept = history.read(out, lambda problem: say(f"warning: {problem}"))
    base = site.strip().rstrip("/") + "/"
    found: list[history.Season] = []
    if not site.strip():
        say("no published site is known (is GitHub Pages enabled?): no past seasons restored")
    else:
        try:
            data = fetch(base + SEASONS, SEASONS_CAP)
        except (OSError, ValueError) as exc:
            say(f"warning: the published seasons could not be fetched: {exc}")
            data = None
        if data is None:
            say(f"no past seasons restored: {base}{SEASONS} is not there or not reachable")
        else:
            text = data.decode("utf-8", errors="replace")
            found = history.parse(text, base + SEASONS, lambda p: say(f"warning: {p}"))
            say(f"restored {len(found)} season(s) published at {base}")
    seasons = kept
    for season in found:
        seasons = history.merged(seasons, season)
    history.write(out, seasons)
    return len(found)


def _parse(data: bytes) -> tuple[list[dict[str, Any]], list[str]]:
    """Records from JSONL bytes, read as a results file is (malformed lines skipped, said)."""
    import tempfile

    with tempfile.TemporaryDirectory(prefix="koth-restore-") as folder:
        path = Path(folder) / GAMES
        path.write_bytes(data)
        records, problems = results.read_records(path)
    return records, [p.replace(str(path), GAMES) for p in problems]


__all__ = [
    "GAMES",
    "MANIFEST",
    "SEASONS",
    "STANDINGS",
    "fetch_url",
    "publish",
    "restore",
    "restore_history",
]
