"""`koth announce`: a new season's news posted to a Discord webhook, once, and never from a pull
request. A real HTTP server on this machine stands in for Discord's webhook and keeps what it is
sent; the entries' names are hostile (markdown, mentions, line breaks)."""

from __future__ import annotations

import http.server
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from webhook import Webhook

from runner.cli.main import main
from runner.rank import history
from runner.site import announce


@pytest.fixture
def webhook(monkeypatch: pytest.MonkeyPatch) -> Iterator[Webhook]:
    hook = Webhook()
    monkeypatch.setenv("KOTH_DISCORD_WEBHOOK", hook.url)
    monkeypatch.delenv("GITHUB_EVENT_NAME", raising=False)
    yield hook
    hook.close()


def season(date: str, ranked: list[tuple[str, str]], seed: int = 1) -> dict[str, Any]:
    """A history line: ``ranked`` (entry, content hash) in rank order."""
    return {
        "game": "snakes-v2",
        "season_seed": seed,
        "date": date,
        "games": 42,
        "entries": [
            {"entry": e, "name": e.title(), "hash": h, "rank": i, "rating": 1600.0 - 20 * i}
            for i, (e, h) in enumerate(ranked, 1)
        ],
    }


FIRST = season("2026-11-30T04:20:00Z", [("greedy", "g1"), ("turtle", "t1"), ("random", "r1")])
# A week later: random edited and up two places, boxer new.
SECOND = season(
    "2026-12-07T04:20:00Z",
    [("random", "r2"), ("boxer", "b1"), ("greedy", "g1"), ("turtle", "t1")],
)


def write(path: Path, *seasons: dict[str, Any]) -> Path:
    history.write(path, seasons)
    return path


def test_the_news_is_the_season_the_history_did_not_hold_before() -> None:
    found = announce.news([FIRST], [FIRST, SECOND])
    assert found is not None and found.season == SECOND and found.previous == FIRST
    assert announce.news([FIRST, SECOND], [FIRST, SECOND]) is None, "nothing new"
    again = {**SECOND, "date": "2026-12-08T09:00:00Z"}  # rendered again: the same season
    assert announce.news([FIRST, SECOND], [FIRST, again]) is None
    first = announce.news([], [FIRST])
    assert first is not None and first.previous is None


def test_the_message_names_the_top_the_movers_and_the_new_entries() -> None:
    found = announce.news([FIRST], [FIRST, SECOND])
    assert found is not None
    text = announce.message(found, "https://org.github.io/koth/")
    lines = text.splitlines()
    assert lines[0].startswith("**snakes\\-v2**: a new season, 42 game(s), 4 entries")
    assert lines[1:5] == [
        "1. Random · rating 1580",
        "2. Boxer · rating 1560",
        "3. Greedy · rating 1540",
        "4. Turtle · rating 1520",
    ]
    assert "Biggest movers: Random up 2 to 1st, Greedy down 2 to 3rd, Turtle down 2 to 4th" in (
        text
    )
    assert "New: Boxer" in text
    assert lines[-1] == "Results and replays: <https://org.github.io/koth/>"


@pytest.mark.parametrize(
    "name",
    ["@everyone", "**bold** _it_", "line\nbreak @here", "<@123456>", "[link](https://x.example)"],
)
def test_a_name_from_an_author_is_shown_as_written_and_mentions_nobody(name: str) -> None:
    line = season("2026-12-07T04:20:00Z", [("sly", "s1")])
    line["entries"][0]["name"] = name
    found = announce.news([], [line])
    assert found is not None
    text = announce.message(found, None)
    shown = text.splitlines()[1]
    assert "\n" not in shown.removeprefix("1. ") and len(text.splitlines()) == 2
    unescaped = shown.replace("\\", "")
    assert " ".join(name.split()) in unescaped, "every character still there, literally"
    for mark in "*_[]()<@":
        assert f"\\{mark}" in shown or mark not in name, f"{mark!r} is escaped"
    assert announce.payload(text)["allowed_mentions"] == {"parse": []}


def test_a_long_season_fits_discords_limit() -> None:
    ranked = [(f"e{i:03d}" + "x" * 200, f"h{i}") for i in range(500)]
    found = announce.news([], [season("2026-12-07T04:20:00Z", ranked)])
    assert found is not None
    text = announce.message(found, "https://org.github.io/koth/")
    assert len(text) <= announce.CONTENT_CAP
    assert all(len(line) < 120 for line in text.splitlines()), "names are cut"


def test_koth_announce_posts_a_new_season_once(tmp_path: Path, webhook: Webhook) -> None:
    before = write(tmp_path / "before.jsonl", FIRST)
    after = write(tmp_path / "after.jsonl", FIRST, SECOND)
    site = ["--site-url", "https://org.github.io/koth/"]
    assert main(["announce", "--before", str(before), "--after", str(after), *site]) == 0
    assert len(webhook.bodies) == 1
    body = webhook.bodies[0]
    assert body["allowed_mentions"] == {"parse": []} and body["username"] == "koth"
    assert "Random up 2 to 1st" in body["content"]
    # The next run renders the same season again: its history already holds it.
    assert main(["announce", "--before", str(after), "--after", str(after), *site]) == 0
    assert len(webhook.bodies) == 1, "a season is told once"
    # The first season a history holds (no history before): told.
    assert main(["announce", "--after", str(before)]) == 0
    assert len(webhook.bodies) == 2


def test_nothing_is_posted_without_a_webhook_or_from_a_pull_request(
    tmp_path: Path, webhook: Webhook, monkeypatch: pytest.MonkeyPatch, capsys: Any
) -> None:
    after = write(tmp_path / "after.jsonl", FIRST)
    monkeypatch.setenv("GITHUB_EVENT_NAME", "pull_request")
    assert main(["announce", "--after", str(after)]) == 0
    monkeypatch.setenv("GITHUB_EVENT_NAME", "push")
    monkeypatch.setenv("KOTH_DISCORD_WEBHOOK", "")
    assert main(["announce", "--after", str(after)]) == 0
    assert webhook.bodies == []
    said = capsys.readouterr().err
    assert "a pull request's run never posts" in said and "no webhook is set" in said
    assert main(["announce", "--after", str(after), "--dry-run"]) == 0
    assert capsys.readouterr().out.startswith("**snakes\\-v2**: a new season")
    assert webhook.bodies == []


def test_a_webhook_that_refuses_fails_the_step_without_showing_its_address(
    tmp_path: Path, webhook: Webhook, capsys: Any
) -> None:
    webhook.status = 404
    after = write(tmp_path / "after.jsonl", FIRST)
    assert main(["announce", "--after", str(after)]) == 1
    said = capsys.readouterr().err
    assert "the news was not posted: the webhook answered 404" in said
    assert "secret-token" not in said, "the webhook's address is a secret"


def test_a_webhook_that_never_answers_times_out() -> None:
    silent = http.server.HTTPServer(("127.0.0.1", 0), http.server.BaseHTTPRequestHandler)
    try:  # it accepts the connection (the listen backlog) and never answers
        url = f"http://127.0.0.1:{silent.server_address[1]}/hook"
        with pytest.raises(announce.PostError, match="could not be reached"):
            announce.post(url, {"content": "x"}, timeout=0.5)
    finally:
        silent.server_close()
    with pytest.raises(announce.PostError, match="not an https"):
        announce.post("file:///etc/passwd", {"content": "x"})


def test_a_history_from_a_cache_that_is_not_seasons_posts_nothing(
    tmp_path: Path, webhook: Webhook
) -> None:
    after = tmp_path / "after.jsonl"
    after.write_text('{"game": 1}\nnot json\n')
    assert main(["announce", "--after", str(after)]) == 0
    assert webhook.bodies == []
