"""The records published with the site, and restored from it (runner/site/publish.py): `koth site`
writes games.jsonl, standings.json and published.json beside the pages; `koth restore` takes
the records back only under the same results key, from a site served here on 127.0.0.1."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

import pytest
from serving import serve

from runner.cli.main import main
from runner.season import results
from runner.site.publish import GAMES, MANIFEST, STANDINGS

HERE = Path(__file__).parent
KEY = "results-snakes-v1-0123456789abcdef01234567"


def _regen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("regen_site", HERE / "regen_golden_site.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


regen = _regen()


@pytest.fixture
def site(tmp_path: Path) -> Path:
    """The Snakes fixture season's site, made by `koth site --results-key KEY`."""
    shutil.copytree(regen.FIXTURE, tmp_path / "season")
    (tmp_path / "season" / "tournament.yaml").write_text("entries: entries\n")
    config = str(tmp_path / "season" / "tournament.yaml")
    assert main(["site", "--config", config, "--results-key", KEY]) == 0
    return tmp_path / "season" / "_site"


@pytest.fixture
def served(site: Path) -> Iterator[str]:
    with serve(site.parent) as url:
        yield f"{url}{site.name}/"


def test_the_site_carries_its_records_and_standings(site: Path) -> None:
    records, problems = results.read_records(site / GAMES)
    assert not problems
    fixture, standings, _ = regen.load_fixture()
    # The records the site shows: those of the entries that play (the fixture's 6 games).
    assert [r["key"] for r in records] == [r["key"] for r in results.canonical(fixture)]
    assert json.loads((site / STANDINGS).read_text()) == standings
    manifest = json.loads((site / MANIFEST).read_text())
    assert manifest["results_key"] == KEY and manifest["games"]["records"] == len(records)
    assert manifest["games"]["sha256"] == hashlib.sha256((site / GAMES).read_bytes()).hexdigest()


def restore(tmp_path: Path, site: str, key: str, capsys: pytest.CaptureFixture[str]) -> str:
    out = tmp_path / "results" / "games.jsonl"
    assert main(["restore", "--site", site, "--key", key, "--out", str(out)]) == 0
    assert out.is_file(), "the results file exists afterwards, restored or not"
    return capsys.readouterr().err


def test_restore_takes_the_records_back_under_the_same_key(
    tmp_path: Path, site: Path, served: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "results" / "games.jsonl"
    out.parent.mkdir()
    # A record restored from the cache stays: one the site does not hold (another seed, so
    # another key, recomputed as every reader of records does).
    first = json.loads((site / GAMES).read_text().splitlines()[0])
    seats = [(s["entry"], s["hash"]) for s in first["seats"]]
    kept = {**first, "seed": first["seed"] + 1}
    kept["key"] = results.record_key(kept["game"], seats, kept["seed"])
    out.write_text(json.dumps(kept) + "\n")
    said = restore(tmp_path, served, KEY, capsys)
    assert "restored 6 record(s)" in said
    restored = results.read_records(out)[0]
    assert len(restored) == 7 and kept in restored


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("key", "not reused"),
        ("missing", "nothing is published at"),
        ("tampered", "does not match published.json (sha256): not reused"),
        ("foreign", "is not a koth publication"),
        ("unknown", "no published site is known"),
    ],
)
def test_restore_takes_nothing_it_cannot_trust(
    tmp_path: Path,
    site: Path,
    served: str,
    change: str,
    said: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    key, url = KEY, served
    if change == "key":  # the host code changed since the site was published
        key = KEY.replace("0123", "3210")
    elif change == "missing":
        url = served.rstrip("/") + "-nothing/"
    elif change == "tampered":
        (site / GAMES).write_text(
            (site / GAMES).read_text().replace('"points":[1.0', '"points":[0.0', 1)
        )
    elif change == "foreign":
        (site / MANIFEST).write_text('{"hello": 1}')
    else:
        url = ""
    text = restore(tmp_path, url, key, capsys)
    assert said in text and "restored nothing" in text, text
    assert results.read_records(tmp_path / "results" / "games.jsonl") == ([], [])


MALFORMED = {
    "status": b"HTTP/1.1 abc\r\n\r\n",
    "cut short": b'HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n\r\n{"format": ',
    "chunk cut short": b'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\n{"a"\r\n',
    "headers": b"HTTP/1.1 200 OK\r\n" + b"X: y\r\n" * 101 + b"\r\n",
}


@pytest.mark.parametrize("answer", sorted(MALFORMED))
def test_a_site_answering_malformed_http_restores_nothing(
    answer: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What a dropped transfer or a broken server sends is a fetch that failed, not a crash."""
    monkeypatch.setattr("runner.site.publish.time.sleep", lambda seconds: None)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(30)

    def answering() -> None:
        with listener:
            for _ in range(3):  # every attempt
                try:
                    connection, _ = listener.accept()
                except OSError:
                    return
                with connection:
                    connection.recv(65536)
                    connection.sendall(MALFORMED[answer])

    thread = threading.Thread(target=answering, daemon=True)
    thread.start()
    port = listener.getsockname()[1]
    text = restore(tmp_path, f"http://127.0.0.1:{port}/", KEY, capsys)
    with contextlib.suppress(OSError):  # closed already when every attempt was made
        listener.shutdown(socket.SHUT_RDWR)  # wakes the wait for attempts not made
    assert "restored nothing" in text and "Traceback" not in text, text
    # A body shorter than its length is what was read: then not a publication.
    assert "could not be fetched" in text or "not a koth publication" in text, text
    thread.join(30)


def test_an_unreachable_site_restores_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("runner.site.publish.time.sleep", lambda seconds: None)
    text = restore(tmp_path, "http://127.0.0.1:9/", KEY, capsys)
    assert "could not be fetched" in text and "restored nothing" in text
