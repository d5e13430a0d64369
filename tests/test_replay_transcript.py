"""``koth replay`` without a bot: what each seat of a record was sent and answered, found by any
name of its game, shown byte for byte (runner/tools/replay/transcript.py, wire.py, records.py).
No bot runs here: the rules and the codecs rebuild everything from the records."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import podium
import pytest
from serving import serve

from runner.cli.main import main
from runner.games import find_game
from runner.games.base import ENDINGS
from runner.games.cluster import ClusterStdio
from runner.games.snakes import SnakesCall
from runner.play.playback import final_state
from runner.site.render import replay_command
from runner.tools.replay import wire
from runner.tools.replay.records import RecordError, find_record
from runner.tools.replay.transcript import seat_asks, transcript

REPO = Path(__file__).resolve().parents[1]
GOLDEN = REPO / "tests" / "golden" / "records"


def golden(name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (GOLDEN / f"{name}.jsonl").read_text().splitlines()]


# -- bytes shown exactly -----------------------------------------------------------------------


def test_every_byte_shown_reads_back_as_itself() -> None:
    data = bytes(range(256)) + b"\n\n  spaces at the end  \nno newline at the end\\"
    shown = wire.byte_lines(data)
    assert wire.unescaped(shown) == data, "what is shown gives back the bytes exactly"
    assert all(line.isprintable() for line in shown), "nothing shown is a control character"
    assert wire.byte_lines(b"ab\n\ncd") == ["    ab⏎", "    ⏎", "    cd"]
    assert wire.byte_lines(b"") == ["    (nothing)"] and wire.unescaped(["    (nothing)"]) == b""


def test_a_c_functions_request_is_shown_as_its_call() -> None:
    record = golden("snakes-default")[0]
    spec = find_game("snakes-v2")
    ask = next(seat_asks(transcript(spec, record), 1))
    lines = wire.call_lines(SnakesCall.abi, ask.request)
    assert lines[0] == "    bot(board, player) with", "the names of the C declaration"
    rows = spec.rules.render_text(ask.state).split("\n")
    assert lines[1:17] == [f'    board[{y:>2}] = "{row}"' for y, row in enumerate(rows)]
    assert lines[17] == "    player = 'O' (79)"
    assert wire.returned(82) == "returns 82 ('R')" and wire.returned(-1) == "returns -1"


def test_parameters_the_declaration_leaves_unnamed_are_numbered() -> None:
    abi = SnakesCall.abi
    unnamed = type(abi)("int bot(int[16][32], char);", abi.function, abi.name_symbol, abi.args)
    assert wire.parameter_names(unnamed) == ["arg1", "arg2"]


# -- the transcript ------------------------------------------------------------------------------


def test_every_step_of_a_two_seat_record_asks_the_seat_to_move_with_the_codecs_bytes() -> None:
    spec = find_game("snakes-v2")
    for record in golden("snakes-default")[:5]:
        moments = list(transcript(spec, record))
        assert len(moments) == len(record["moves"]), "one step per recorded move"
        for moment, move in zip(moments, record["moves"], strict=True):
            [ask] = moment.asks
            assert ask.seat == moment.index % 2, "X and O take turns"
            assert ask.request == SnakesCall().request(moment.before, ask.seat)
            assert ask.greeting == b"", "a C function is only called"
            assert spec.rules.move_text(ask.move) == move and ask.fault is None
        for a, b in zip(moments, moments[1:], strict=False):
            assert a.after == b.before, "each step starts where the one before ended"
        assert moments[-1].after == final_state(spec, record)


def test_a_program_for_the_whole_game_reads_its_greeting_once() -> None:
    spec, codec = find_game("cluster-v2"), ClusterStdio()
    record = golden("cluster-example")[0]
    for seat in (0, 1):
        asks = list(seat_asks(transcript(spec, record), seat))
        initial = next(transcript(spec, record)).before
        assert asks[0].greeting == codec.greeting(initial, seat), "the first message first"
        assert all(a.greeting == b"" for a in asks[1:]), "and only once"
        assert all(a.request.endswith(b"\n\n") for a in asks), "turn messages end empty"


def test_a_two_seat_game_ended_by_a_fault_ends_with_the_faulting_ask() -> None:
    spec = find_game("snakes-v2")
    record = dict(golden("snakes-default")[0])
    record["moves"] = record["moves"][:73]  # O is to move at turn 37
    record["outcome"] = {
        **record["outcome"],
        "faulty": 1,
        "termination": "crash",
        "detail": "O (x) SIGSEGV at turn 37",
    }
    *_, last = transcript(spec, record)
    assert last.after is None and last.index == 73 and last.turn == 37
    [ask] = last.asks
    assert ask.seat == 1 and ask.move is None and not ask.at_start
    assert ask.fault is not None and ask.fault.detail == "O (x) SIGSEGV at turn 37"
    record["moves"] = ""  # O failed while loading: X was to move, O was asked nothing
    [moment] = transcript(spec, record)
    [ask] = moment.asks[:1]
    assert ask.seat == 1 and ask.at_start and ask.request == b"", moment.asks


def test_a_seat_with_a_stand_in_move_is_asked_every_turn_and_its_fault_is_at_its_turn() -> None:
    found = podium.season()
    record = next(r for r in found if r["outcome"]["faults"])
    [fault] = record["outcome"]["faults"]
    with podium.registered():
        spec = find_game(podium.Podium.id)
        asks = list(seat_asks(transcript(spec, record), fault["seat"]))
    assert len(asks) == podium.TURNS, "asked every turn, the faulty one too"
    faulty = asks[fault["at"]]
    assert faulty.fault is not None and faulty.fault.detail == fault["detail"]
    assert spec.rules.move_text(faulty.move) == "0", "its stand-in move is the recorded one"


def test_a_retired_seat_is_asked_at_its_fault_and_never_again(monkeypatch: Any) -> None:
    from toy import SPEC

    from runner.games import GAMES

    monkeypatch.setitem(GAMES, SPEC.id, SPEC)
    moves = [
        ["1", "3", "2", "1"],
        ["2", "3", "1", "3"],
        ["3", None, "2", "1"],
        ["1", None, "3", "2"],
    ]
    record = {
        "key": "0" * 64,
        "game": SPEC.id,
        "seed": 1,
        "seats": [{"entry": e, "hash": "0" * 64} for e in "abcd"],
        "moves": moves,
        "outcome": {
            "faulty": None,
            "termination": "normal",
            "faults": [
                {"seat": 1, "turn": 3, "at": 2, "termination": "crash", "detail": "B crashed"}
            ],
        },
    }
    asks = list(seat_asks(transcript(SPEC, record), 1))
    assert [a.index for a in asks] == [0, 1, 2], "asked until it crashed, then out"
    assert asks[2].move is None and asks[2].fault is not None
    assert asks[0].greeting == b"SEATS 4 ME 1\n" and asks[1].greeting == b""
    others = list(seat_asks(transcript(SPEC, record), 0))
    assert len(others) == 4 and all(a.fault is None for a in others), "the others play on"


# -- finding the record --------------------------------------------------------------------------


@pytest.fixture
def results_file(tmp_path: Path) -> Path:
    path = tmp_path / "games.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in golden("snakes-default")))
    return path


def test_a_game_is_found_by_its_key_a_prefix_a_page_or_a_line(results_file: Path) -> None:
    record = golden("snakes-default")[5]
    key = record["key"]
    said: list[str] = []
    for name in (
        key,
        key[:12].upper(),
        f"_site/games/{key[:12]}.html",
        f"https://example.org/season/games/{key[:12]}.html",
        json.dumps(record),
    ):
        assert find_record(name, [results_file], said.append)["key"] == key, name


def test_a_prefix_that_fits_several_games_or_none_says_what_to_do(results_file: Path) -> None:
    keys = [r["key"] for r in golden("snakes-default")]
    shared = next(k[0] for k in keys if sum(o.startswith(k[0]) for o in keys) > 1)
    with pytest.raises(RecordError, match="give more characters of the key"):
        find_record(shared, [results_file], print)
    with pytest.raises(RecordError, match="--results FILE"):
        find_record("ffffffffffff0", [results_file], print)
    with pytest.raises(RecordError, match="names no game"):
        find_record("not a key", [results_file], print)
    with pytest.raises(RecordError, match="numbered by the site"):
        find_record("_site/games/game-3.html", [results_file], print)
    with pytest.raises(RecordError, match="not a valid record"):
        find_record('{"key": "x"}', [results_file], print)


def test_a_game_pages_address_finds_the_records_published_beside_its_site(
    tmp_path: Path,
) -> None:
    site = tmp_path / "site"
    (site / "games").mkdir(parents=True)
    records = golden("cluster-example")
    (site / "games.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    said: list[str] = []
    with serve(site) as address:
        found = find_record(f"{address}games/{records[3]['key'][:12]}.html", [], said.append)
    assert found == records[3], "the published record, as published"
    assert any("published at" in line for line in said), said


# -- the command, without a bot --------------------------------------------------------------------


def run(capsys: Any, *args: str) -> tuple[int, str, str]:
    code = main(["replay", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_game_is_shown_with_every_byte_each_seat_read_and_answered(
    results_file: Path, tmp_path: Path, capsys: Any
) -> None:
    cluster = tmp_path / "cluster.jsonl"
    record = golden("cluster-example")[2]
    cluster.write_text(json.dumps(record) + "\n")
    config = REPO / "examples" / "cluster" / "tournament.yaml"
    code, out, _ = run(
        capsys, record["key"][:10], "--config", str(config), "--results", str(cluster)
    )
    assert code == 0
    assert out.startswith(f"game {record['key'][:16]} · cluster-v2 · seed {record['seed']}")
    spec, codec = find_game("cluster-v2"), ClusterStdio()
    first = next(seat_asks(transcript(spec, record), 0))
    block = out.split("Blue (", 1)[1].split("\n")
    greeting = block[1 : block.index("  then its request, " + f"{len(first.request)} bytes:")]
    assert wire.unescaped(greeting) == codec.greeting(first.state, 0), "the greeting, exactly"
    assert first.move is not None
    assert f"  and answers {len(codec.reply(first.move))} bytes: " in out
    assert out.count("── turn ") == len(record["moves"]), "every step is shown"
    outcome = record["outcome"]
    assert out.rstrip().endswith(f"ended: {ENDINGS[outcome['termination']]} — {outcome['detail']}")
    assert "ended by normal" not in out, "the ending in words, as the site says it"


def test_one_seat_and_some_turns_only(results_file: Path, capsys: Any) -> None:
    key = golden("snakes-default")[0]["key"]
    config = REPO / "tournament.yaml"
    args = (key[:8], "--config", str(config), "--results", str(results_file))
    code, out, _ = run(capsys, *args, "--seat", "O", "--from", "3", "--until", "4")
    assert code == 0
    assert (
        out.count("── turn ") == 2 and "── turn 3 · step 6 " in out and "── turn 4 · step 8 " in out
    )
    assert "O (greedy) is called:" in out and "X (boxer)" not in out.split("── turn 3")[1]
    assert "    player = 'O' (79)" in out and "  and returns " in out


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["0123456789ab"], "no recorded game's key starts with '0123456789ab'"),
        (["{KEY}", "--exec-prefix", "gdb --args"], "give the tool"),
        (["{KEY}", "--seat", "3"], "--seat 3 names no seat of this game. Fix: give --seat as"),
        (["{KEY}", "--bot", "nobody"], "--bot nobody names no seat"),
    ],
)
def test_mistakes_get_one_paragraph_and_exit_2(
    results_file: Path, capsys: Any, args: list[str], says: str
) -> None:
    key = golden("snakes-default")[0]["key"]
    config = REPO / "tournament.yaml"
    filled = [a.replace("{KEY}", key) for a in args]
    code, out, err = run(capsys, *filled, "--config", str(config), "--results", str(results_file))
    assert code == 2, out + err
    assert says in err and "Traceback" not in err, err


def test_a_bot_fed_under_another_games_configuration_is_refused(
    results_file: Path, capsys: Any
) -> None:
    key = golden("snakes-default")[0]["key"]
    config = REPO / "examples" / "cluster" / "tournament.yaml"
    code, _, err = run(
        capsys, key, "--config", str(config), "--results", str(results_file), "--bot", "greedy"
    )
    assert code == 2 and "is a snakes-v2 game, but" in err and "is for cluster-v2" in err, err


def test_from_is_refused_for_a_program_that_plays_the_whole_game(
    capsys: Any, tmp_path: Path
) -> None:
    cluster = tmp_path / "cluster.jsonl"
    record = golden("cluster-example")[0]
    cluster.write_text(json.dumps(record) + "\n")
    config = REPO / "examples" / "cluster" / "tournament.yaml"
    entry = record["seats"][0]["entry"]
    code, _, err = run(
        capsys,
        record["key"],
        "--config",
        str(config),
        "--results",
        str(cluster),
        "--bot",
        entry,
        "--from",
        "3",
    )
    assert code == 2 and "must read every turn before the one asked for" in err, err


# -- the site ------------------------------------------------------------------------------------


def test_each_game_page_shows_the_command_for_each_seat(tmp_path: Path) -> None:
    found = podium.season()
    podium.render_season(tmp_path / "site")
    for record in found:
        page = (tmp_path / "site" / "games" / f"{record['key'][:12]}.html").read_text()
        for seat, held in enumerate(record["seats"], 1):
            command = f"koth replay {record['key'][:12]} --seat {seat} --bot {held['entry']}"
            assert f"<code>{command}</code>" in page, command


def test_the_command_is_quoted_for_the_shell_and_a_filler_seat_only_shown() -> None:
    assert replay_command("3f2a", 1, "a b'c") == "koth replay 3f2a --seat 2 --bot 'a b'\"'\"'c'"
    assert replay_command("3f2a", 0, None) == "koth replay 3f2a --seat 1"


def test_transcript_bytes_match_what_the_referee_sends(results_file: Path) -> None:
    """The transcript and the referee compute a seat's bytes the same way: the codec, on the
    state before the step (checked here on a game played by the rules alone)."""
    spec = find_game("cluster-v2")
    rules, codec = spec.rules, ClusterStdio()
    rng = random.Random(3)
    state = rules.initial_state(random.Random(7), 2, {})
    moves: list[str] = []
    sent: list[tuple[int, bytes]] = []
    while rules.outcome(state) is None and len(moves) < 30:
        [seat] = rules.to_move(state)
        sent.append((seat, codec.request(state, seat)))
        move = rng.choice(list(rules.legal_moves(state, seat)))
        moves.append(rules.move_text(move))
        state = rules.apply(state, {seat: move})
    record = {"key": "0" * 64, "seed": 7, "seats": [{}, {}], "moves": moves, "outcome": {}}
    asks = [a for m in transcript(spec, record) for a in m.asks]
    assert [(a.seat, a.request) for a in asks] == sent
