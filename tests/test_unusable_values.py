"""Values koth cannot use, in files it reads (issue 46): a number beyond ±2**63 (a 401-digit
integer passes "is it a number", then ``math.isfinite`` raises OverflowError), text that is not
Unicode (a lone surrogate passes "is it text", then raises UnicodeEncodeError where it is
written) and a path that is not a regular file (a FIFO: ``open()`` waits for a writer for
ever). Every reader refuses them as it refuses any bad input, with its usual one line (a bad line
of records or history skipped with a warning; a bad configuration: exit 2), never a traceback
and never a hang (runner/common/documents.py, runner/common/safefiles.py)."""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from runner.cli.main import main
from runner.common.documents import load_json, load_yaml
from runner.season import results, verdicts
from runner.season.config import ConfigError, load_config
from runner.site import publish
from runner.site.render import render_from_config

FIXTURE = Path(__file__).parent / "fixtures" / "site"
HUGE = 10**400  # 401 digits
LONE = "\ud800"  # a lone surrogate: no UTF-8 holds it


def records() -> list[dict[str, Any]]:
    return [
        json.loads(line) for line in (FIXTURE / "results" / "games.jsonl").read_text().splitlines()
    ]


def huge_wall(record: dict[str, Any]) -> None:
    record["measured"]["wall_s"] = HUGE


def lone_name(record: dict[str, Any]) -> None:
    record["seats"][0]["name"] = LONE


BAD = {"a 401-digit number": huge_wall, "a lone surrogate": lone_name}


def results_file(path: Path, edit: Callable[[dict[str, Any]], None]) -> dict[str, Any]:
    """A results file of a good record then a bad one (``edit`` of another); the good one."""
    good, bad = records()[:2]
    edit(bad)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(good) + "\n" + json.dumps(bad) + "\n")  # "\ud800" as its escape
    return good


# -- the parsers -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"a": ' + str(HUGE) + "}",
        '{"a": -' + str(HUGE) + "}",
        '{"a": 1e400}',
        '{"a": [NaN]}',
        '{"a": "\\ud800"}',
        '{"\\udfff": 1}',
        '["a\\ud800\\ud800"]',
    ],
)
def test_json_holding_a_value_koth_cannot_use_is_refused(text: str) -> None:
    for given in (text, text.encode()):
        with pytest.raises(ValueError):
            load_json(given)


def test_json_keeps_the_largest_seed_and_a_surrogate_pair() -> None:
    assert load_json('[9223372036854775807, -1.5e18, "\\ud83d\\ude00"]') == [
        2**63 - 1,
        -1.5e18,
        "\U0001f600",
    ]


@pytest.mark.parametrize(
    ("text", "place"),
    [
        ("points: [" + str(HUGE) + ", 0]", "`points[0]` is a number of 401 digits"),
        ('site: {repository: "\\ud800"}', "`site.repository` is text that is not Unicode"),
        ("a: " + "9" * 5000, "cannot be read"),
    ],
)
def test_yaml_holding_a_value_koth_cannot_use_is_refused_naming_its_place(
    text: str, place: str
) -> None:
    with pytest.raises(ValueError, match=re.escape(place)):
        load_yaml(text)


# -- the commands ----------------------------------------------------------------------------


@pytest.mark.parametrize("case", sorted(BAD))
def test_merge_skips_the_line_with_a_warning(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "shard.jsonl"
    good = results_file(path, BAD[case])
    out = tmp_path / "games.jsonl"
    assert main(["merge", str(path), "--out", str(out)]) == 0
    err = capsys.readouterr().err
    assert f"{path}: line 2 is skipped because" in err, err
    assert results.read_records(out) == ([good], [])


@pytest.mark.parametrize("case", sorted(BAD))
def test_restore_skips_the_cached_line_and_exits_0(
    tmp_path: Path, case: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results" / "games.jsonl"
    good = results_file(out, BAD[case])
    assert main(["restore", "--site", "", "--key", "k", "--out", str(out)]) == 0
    assert "line 2 is skipped because" in capsys.readouterr().err
    assert results.read_records(out) == ([good], [])


@pytest.mark.parametrize("case", sorted(BAD))
def test_restore_skips_the_published_line(tmp_path: Path, case: str) -> None:
    published = tmp_path / "published.jsonl"
    good = results_file(published, BAD[case])
    data = published.read_bytes()
    manifest = {
        "format": publish.FORMAT,
        "version": publish.VERSION,
        "results_key": "k",
        "games": {"file": publish.GAMES, "records": 2, "sha256": publish._sha256(data)},
    }
    site = {publish.MANIFEST: json.dumps(manifest).encode(), publish.GAMES: data}
    said: list[str] = []
    out = tmp_path / "games.jsonl"
    found = publish.restore(
        "https://example.org/", "k", out, said.append, lambda url, cap: site[url.rsplit("/")[-1]]
    )
    assert found == 1 and any("line 2 is skipped" in s for s in said), said
    assert results.read_records(out) == ([good], [])


def history_line(entry: str = "greedy", name: str = "Greedy", rating: Any = 1500.0) -> str:
    season = {
        "game": "snakes-v2",
        "season_seed": 1,
        "date": "2025-01-18T12:05:31.5Z",
        "games": 6,
        "entries": [{"entry": entry, "name": name, "hash": "0" * 64, "rank": 1, "rating": rating}],
    }
    return json.dumps(season) + "\n"


@pytest.mark.parametrize(("bad", "what"), [({"rating": HUGE}, "401 digits"), ({"name": LONE}, "")])
def test_restore_history_leaves_the_line_out_and_exits_0(
    tmp_path: Path, bad: dict[str, Any], what: str, capfd: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "seasons.jsonl"
    path.write_text(history_line() + history_line(**bad))
    assert main(["ci", "restore-history", "--site", "", "--out", str(path)]) == 0
    out = "".join(capfd.readouterr())  # `ci` joins stderr to stdout
    assert f"{path}:2: not a season's line" in out and what in out, out
    assert "Traceback" not in out
    assert [json.loads(line) for line in path.read_text().splitlines()] == [
        json.loads(history_line())
    ]


def preview(folder: Path, rows: list[dict[str, Any]], display_name: str = "Greedy") -> None:
    folder.mkdir()
    doc = {
        "version": 1,
        "sandbox": "local",
        "game": "snakes-v2",
        "season_seed": 1,
        "rounds": 1,
        "changed": [
            {
                "entry": "greedy",
                "ok": True,
                "stage": "ok",
                "summary": "ok",
                "message": "passed",
                "display_name": display_name,
            }
        ],
        "excluded_others": [],
        "games_scheduled": 2,
        "games_played": 2,
        "not_played": [],
        "results": "results.jsonl",
        "standings": "standings.json",
        "site": None,
    }
    (folder / "preview.json").write_text(json.dumps(doc))
    standings = {"entries": rows, "game": "snakes-v2"}
    (folder / "standings.json").write_text(json.dumps(standings))


def row(points: Any) -> dict[str, Any]:
    return {
        "entry": "greedy",
        "name": "Greedy",
        "content_hash": "0" * 64,
        "rank": 1,
        "points": points,
        "games": 2,
        "wins": 2,
        "draws": 0,
        "losses": 0,
        "faults": {},
        "excluded": None,
        "detail": "",
    }


def test_report_leaves_out_standings_with_a_huge_number(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    preview(tmp_path / "preview", [row(HUGE)])
    summary = tmp_path / "summary.md"
    code = main(["ci", "report", "--preview", str(tmp_path / "preview"), "--summary", str(summary)])
    assert code == 0 and "Traceback" not in "".join(capfd.readouterr())
    text = summary.read_text()
    assert "entry check ✅ passed" in text and "Preview standings" not in text, text


def test_report_refuses_a_preview_with_text_that_is_not_unicode(
    tmp_path: Path, capfd: pytest.CaptureFixture[str]
) -> None:
    preview(tmp_path / "preview", [row(2)], display_name=LONE)
    summary = tmp_path / "summary.md"
    code = main(["ci", "report", "--preview", str(tmp_path / "preview"), "--summary", str(summary)])
    assert code == 1 and "Traceback" not in "".join(capfd.readouterr())
    assert "the entry check did not finish" in summary.read_text()


def test_plan_refuses_points_of_401_digits_naming_the_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "tournament.yaml"
    config.write_text(f"game: multisnake-v2\nformat: free-for-all\npoints: [{HUGE}, 0]\n")
    assert main(["plan", "--config", str(config)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"koth: {config}: field `points`:") and "401 digits" in err, err
    assert err.count("\n") == 1, err


def season_folder(tmp_path: Path) -> Path:
    for name in ("entries",):
        (tmp_path / name).symlink_to(FIXTURE / name)
    (tmp_path / "tournament.yaml").write_text("entries: entries\n")
    return tmp_path / "tournament.yaml"


def test_site_skips_a_record_with_text_that_is_not_unicode(tmp_path: Path) -> None:
    config = load_config(season_folder(tmp_path))
    good = results_file(config.output.results / "games.jsonl", lone_name)
    warned: list[str] = []
    render_from_config(config, warn=warned.append)
    assert any("line 2 is skipped because" in w for w in warned), warned
    assert results.read_records(config.output.site / "games.jsonl")[0] == [good]


def test_site_leaves_out_a_season_whose_names_are_not_unicode(tmp_path: Path) -> None:
    config_path = season_folder(tmp_path)
    config_path.write_text("entries: entries\nsite: {history: seasons.jsonl}\n")
    (tmp_path / "seasons.jsonl").write_text(history_line(name=LONE))
    config = load_config(config_path)
    results_file(config.output.results / "games.jsonl", lambda record: None)
    warned: list[str] = []
    render_from_config(config, warn=warned.append)
    assert any("seasons.jsonl:1: not a season's line" in w for w in warned), warned
    assert len((tmp_path / "seasons.jsonl").read_text().splitlines()) == 1  # this season's


# -- FIFOs: refused, never waited on ------------------------------------------------------------


def finishes(fifo: Path, work: Callable[[], Any]) -> Any:
    """``work()``'s value, or a failed test if it is still waiting on ``fifo`` after 20 s (then
    its reader is let go by a writer, so the test run does not hang)."""
    done: list[Any] = []
    failed: list[BaseException] = []

    def run() -> None:
        try:
            done.append(work())
        except BaseException as exc:  # handed to the test
            failed.append(exc)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(20)
    if thread.is_alive():
        fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)  # lets a reader blocked in open() go
        os.close(fd)
        thread.join(5)
        pytest.fail(f"reading {fifo} waited for a writer: a FIFO must be refused, not opened")
    if failed:
        raise failed[0]
    return done[0]


def test_a_map_file_that_is_a_fifo_is_a_configuration_error(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "maze.map")
    config = tmp_path / "tournament.yaml"
    config.write_text(
        "game: multisnake-v2\nformat: free-for-all\nfree_for_all:\n  seats: 4\n"
        "  setups: [{name: maze, map_file: maze.map}]\n"
    )

    def load() -> ConfigError:
        with pytest.raises(ConfigError) as caught:
            load_config(config)
        return caught.value

    error = finishes(tmp_path / "maze.map", load)
    assert error.field == "free_for_all.setups" and "a FIFO (named pipe)" in str(error)


def test_a_tournament_file_that_is_a_fifo_is_a_configuration_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    os.mkfifo(tmp_path / "tournament.yaml")
    code = finishes(
        tmp_path / "tournament.yaml",
        lambda: main(["plan", "--config", str(tmp_path / "tournament.yaml")]),
    )
    assert code == 2 and "a FIFO (named pipe)" in capsys.readouterr().err


def test_a_verdicts_file_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "verdicts.json")
    config = load_config(season_folder(tmp_path))

    def read() -> str:
        with pytest.raises(verdicts.VerdictsError) as caught:
            verdicts.read(tmp_path / "verdicts.json", config)
        return str(caught.value)

    assert "a FIFO (named pipe)" in finishes(tmp_path / "verdicts.json", read)


def test_a_preview_that_is_a_fifo_is_reported_as_unfinished(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "preview").mkdir()
    os.mkfifo(tmp_path / "preview" / "preview.json")
    code = finishes(
        tmp_path / "preview" / "preview.json",
        lambda: main(["report", "--preview", str(tmp_path / "preview")]),
    )
    assert code == 1 and "did not finish" in capsys.readouterr().out


def test_standings_that_are_a_fifo_stop_the_site_with_one_paragraph(tmp_path: Path) -> None:
    config = load_config(season_folder(tmp_path))
    os.mkfifo(config.output.standings)

    def render() -> ConfigError:
        with pytest.raises(ConfigError) as caught:
            render_from_config(config, warn=lambda _: None)
        return caught.value

    error = finishes(config.output.standings, render)
    assert "a FIFO (named pipe)" in str(error)
