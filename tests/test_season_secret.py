"""The season secret (issue 45): every seed and every deal is an HMAC, keyed by the organiser's
secret, of the public fixture data and the seated entries' content hashes
(runner/season/formats/base.py), so an entrant who knows everything public (tournament.yaml, the
entries, the rules and their board generator) can compute no board and choose no seating; the
records publish each seed after play and replay exactly; `koth schedule` shows no seed of an
unplayed game; the secret is written nowhere; without one, koth says the season's randomness is
public."""

from __future__ import annotations

import hashlib
import hmac
import json
import random
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from test_season import small_season

from runner.cli import stages
from runner.cli.main import main
from runner.games.egghunt import RULES as EGGHUNT
from runner.season import results
from runner.season.check import Lineup, Verdict
from runner.season.config import SECRET_VARIABLE, ConfigError, load_config
from runner.season.formats import FreeForAll, Seeds, fillers

SECRET = "5f0e6c2d9a8b47e1b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8"
HASHES = {name: hashlib.sha256(name.encode()).hexdigest() for name in "abcdefgh"}


def seeds(secret: str = "", season_seed: int = 1, **hashes: str) -> Seeds:
    found = {**HASHES, **hashes}
    return Seeds(season_seed, secret.encode(), tuple(sorted(found.items())))


def test_a_seed_is_an_hmac_of_the_public_data_keyed_by_the_secret() -> None:
    message = json.dumps(
        ["koth-seed-v2", 1, "snakes-v2", 2, ["x"], [["a", HASHES["a"]], ["b", HASHES["b"]]]],
        separators=(",", ":"),
    ).encode()
    digest = hmac.new(SECRET.encode(), message, hashlib.sha256).digest()
    expected = int.from_bytes(digest[:8], "big") & (2**63 - 1)
    assert seeds(SECRET).game_seed("snakes-v2", 2, ("a", "b"), ("x",)) == expected


def test_a_seed_changes_with_the_secret_and_with_an_entry_seated_in_the_game_only() -> None:
    base = seeds(SECRET).game_seed("snakes-v2", 1, ("a", "b"))
    assert seeds(SECRET).game_seed("snakes-v2", 1, ("a", "b")) == base, "deterministic"
    assert seeds(SECRET + "x").game_seed("snakes-v2", 1, ("a", "b")) != base
    assert seeds().game_seed("snakes-v2", 1, ("a", "b")) != base, "the public derivation differs"
    edited = seeds(SECRET, a="0" * 64).game_seed("snakes-v2", 1, ("a", "b"))
    assert edited != base, "an edited entry's games get new seeds"
    other = seeds(SECRET, c="0" * 64).game_seed("snakes-v2", 1, ("a", "b"))
    assert other == base, "an entry not seated in the game changes nothing of it"


# -- the oracle bot ----------------------------------------------------------------------------


def lineup(names: list[str]) -> Lineup:
    """A field of entries that all play (no build: the seeds need only names and hashes)."""
    return Lineup(
        [Verdict(n, HASHES.get(n, n * 2), True, "ok", "", n, "/nonexistent") for n in names]
    )


def egghunt_season(folder: Path, secret: str | None) -> Any:
    text = "game: egghunt-v1\nformat: free-for-all\nseed: 1\nfree_for_all: {seats: all, runs: 10}\n"
    if secret is not None:
        text += f"secret: {secret}\n"
    (folder / "tournament.yaml").write_text(text)
    return load_config(folder / "tournament.yaml")


def board(seed: int, seats: int) -> tuple[Any, ...]:
    state = EGGHUNT.initial_state(random.Random(seed), seats, {})
    return state.walls, state.eggs, state.positions


def oracle_seeds(config: Any, line: Lineup, fixture: Any) -> set[int]:
    """Every seed an entrant can compute for a game from what is public: tournament.yaml, the
    entries (so their content hashes), the schedule's tables, runs and setups, the old
    derivation (sha256 of the season seed, game, round, tags and seats) and the new one without
    its key."""
    tag = [f"free-for-all:table={fixture.slot[0]}", f"free-for-all:run={fixture.slot[1]}"]
    text = "|".join([str(config.seed), fixture.game, str(fixture.round), *tag, *fixture.seats])
    old = int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") & (2**63 - 1)
    public = stages.season_seeds(replace(config, secret=b""), line)
    return {old, public.game_seed(fixture.game, fixture.round, fixture.seats, tag)}


@pytest.mark.parametrize("secret", [None, SECRET])
def test_the_oracle_bot_finds_its_board_only_when_the_season_has_no_secret(
    tmp_path: Path, secret: str | None
) -> None:
    """The attack of issue 45: a bot carrying every board of the season, generated beforehand
    with the game's own generator from the public data, recognises its board. With a secret, no
    board it can generate is a board a run is played on."""
    config = egghunt_season(tmp_path, secret)
    line = lineup(list("abcdefg"))
    games = stages.plan_from(config, line, []).games
    assert len(games) == 10
    played = {board(g.fixture.seed, 7) for g in games}
    carried = {board(seed, 7) for g in games for seed in oracle_seeds(config, line, g.fixture)}
    if secret is None:
        assert played <= carried, "without a secret every board can be computed beforehand"
    else:
        assert played.isdisjoint(carried), "with a secret no board can be computed beforehand"


def together_every_round(fmt: FreeForAll, field: list[str], a: str, b: str) -> bool:
    games = fmt.known(field, NoResults()).games
    rounds = {g.round for g in games}
    return all(any(a in g.seats and b in g.seats for g in games if g.round == r) for r in rounds)


class NoResults:
    def places(self, fixture: Any) -> None:
        return None


def test_two_names_chosen_to_share_a_table_every_round_are_dealt_apart_with_a_secret() -> None:
    """The deal of issue 45: an entrant tries folder names until the public deal seats two of
    them at one Multisnake table in every round. With a secret the deal it computed is not the
    one played: the two are apart in some round."""
    field = [f"bot{k}" for k in range(10)]
    found = None
    for tries in range(20_000):
        a, b = f"sly{tries}", f"fox{tries}"
        hashes = tuple(sorted((n, hashlib.sha256(n.encode()).hexdigest()) for n in [*field, a, b]))
        public = FreeForAll("multisnake-v2", Seeds(1, b"", hashes), 4, 4, seat_counts=(2, 4, 8))
        if together_every_round(public, [*field, a, b], a, b):
            found = (a, b, hashes)
            break
    assert found is not None, "the public deal can be searched for two names that sit together"
    a, b, hashes = found
    secret = FreeForAll(
        "multisnake-v2", Seeds(1, SECRET.encode(), hashes), 4, 4, seat_counts=(2, 4, 8)
    )
    assert not together_every_round(secret, [*field, a, b], a, b)
    assert not fillers([*field, a, b])


# -- a season played with a secret ---------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return small_season(tmp_path, jobs=2)


def koth(folder: Path, *args: str) -> int:
    return main([args[0], "--config", str(folder / "tournament.yaml"), *args[1:]])


def test_a_secret_season_hides_unplayed_seeds_replays_exactly_and_writes_no_secret(
    folder: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(SECRET_VARIABLE, SECRET)
    assert koth(folder, "schedule", "--json") == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert len(rows) == 6 and all(r["seed"] is None for r in rows), "no seed before play"
    assert "randomness is public" not in err

    assert koth(folder, "play-season", "--max-games", "1", "--no-progress") == 0
    played = results.read_records(folder / "results" / results.MAIN_FILE)[0]
    assert len(played) == 1
    assert koth(folder, "schedule", "--json") == 0
    rows = json.loads(capsys.readouterr().out)
    shown = {r["key"]: r["seed"] for r in rows if r["seed"] is not None}
    assert shown == {played[0]["key"]: played[0]["seed"]}, "a played game's seed is published"

    assert koth(folder, "season", "--no-progress") == 0
    said = "".join(capsys.readouterr())
    records = results.read_records(folder / "results" / results.MAIN_FILE)[0]
    assert len(records) == 6

    # Exact reruns: `koth play --seed` with a record's seed plays the record's game again.
    record = records[0]
    seats = [s["entry"] for s in record["seats"]]
    assert koth(folder, "play", *seats, "--seed", str(record["seed"]), "--json") == 0
    again = json.loads(capsys.readouterr().out)
    assert (again["moves"], again["outcome"]) == (record["moves"], record["outcome"])

    # The secret is nowhere: no record, standings, cache, page or line printed holds it.
    assert SECRET not in said
    for path in folder.rglob("*"):
        if path.is_file() and "entries" not in path.parts:
            assert SECRET.encode() not in path.read_bytes(), f"{path} holds the secret"


def test_without_a_secret_koth_says_the_randomness_is_public(
    folder: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert koth(folder, "schedule", "--json") == 0
    out, err = capsys.readouterr()
    assert all(r["seed"] is not None for r in json.loads(out))
    notes = [line for line in err.splitlines() if "randomness is public" in line]
    assert len(notes) == 1 and notes[0].startswith("note: no season secret is set"), err


# -- the setting -----------------------------------------------------------------------------------


def test_a_short_secret_is_refused_without_being_shown(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tournament.yaml"
    path.write_text("secret: hunter2\n")
    with pytest.raises(ConfigError) as caught:
        load_config(path)
    assert caught.value.field == "secret" and "got 7 characters" in str(caught.value)
    assert "hunter2" not in str(caught.value)
    path.write_text("")
    monkeypatch.setenv(SECRET_VARIABLE, "hunter2")
    with pytest.raises(ConfigError, match="at least 32 characters, got 7") as caught:
        load_config(path)
    assert "hunter2" not in str(caught.value)


def test_the_environment_secret_takes_the_files_place(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "tournament.yaml"
    path.write_text(f"secret: {SECRET}\n")
    assert load_config(path).secret == SECRET.encode()
    monkeypatch.setenv(SECRET_VARIABLE, "  ")  # a workflow without the repository secret
    assert load_config(path).secret == SECRET.encode()
    monkeypatch.setenv(SECRET_VARIABLE, SECRET[::-1])
    config = load_config(path)
    assert config.secret == SECRET[::-1].encode() and SECRET[::-1] not in repr(config)
