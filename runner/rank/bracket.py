"""A knockout season's bracket as data, and the standings a bracket gives.

``bracket_document`` writes the bracket as the recorded results take it
(runner/season/formats/knockout.py computes it) into standings.json under ``bracket``: every match
of every round reached, byes included, with its sides, its games (result key, seats, winner) and the
games each side won, plus the champion and, per entry, the round it reached. The site draws the
bracket page from it and the leaderboard's "Reached" column; it may travel as an artefact, so
``bracket_problem`` checks it wherever it is read.

How a bracket ranks its entries (``knockout_order``; standings.json's ``tie_break`` says it):

1. the champion (the final's winner) first, then the final's loser;
2. then the semi-finals' losers: with a third-place match its winner 3rd and its loser 4th,
   without one both share 3rd; then the quarter-finals' losers, all sharing 5th; and so on: an
   entry's place is 1 + the number of entries that went further;
3. entries knocked out in the same round share their place (the bracket does not compare them:
   they never met); the list shows them by the games they won in the match that knocked them
   out, most first (a 1–2 loss before a 0–2), then by seed.

A bracket still being played ranks the same way: an entry still in its match has reached that
round, level with its opponent. Points, W/D/L and ratings are counted from the games as in any
season; they only inform, they do not rank.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from runner.rank.standings import Row
from runner.season.formats.base import Fixture, Results
from runner.season.formats.knockout import Knockout, MatchState, game_winner

KNOCKOUT_ORDER = (
    "the bracket: the champion first, then the final's loser, then by the round each entry was "
    "knocked out in (a third-place match, when played, orders its two); entries out in the same "
    "round share the place, listed by the games they won in the match that knocked them out, "
    "then by seed"
)


def round_name(round_: int, rounds: int) -> str:
    """What people call round ``round_`` of a bracket of ``rounds`` rounds: the last is the final,
    then the semi-finals and the quarter-finals; earlier ones by the entries they start with."""
    from_last = rounds - round_
    if from_last < 3:
        return ("final", "semi-finals", "quarter-finals")[from_last]
    return f"round of {2 ** (from_last + 1)}"


def stage_name(round_: int, rounds: int) -> str:
    """The round an entry reached, in the singular ("semi-final")."""
    name = round_name(round_, rounds)
    return name.removesuffix("s") if name.endswith("finals") else name


def rounds_of(field: int) -> int:
    """How many rounds a bracket of ``field`` entries has (the slots: the next power of two)."""
    return max(0, field - 1).bit_length()


def bracket_document(
    fmt: Knockout, entries: Sequence[str], results: Results, key_of: Callable[[Fixture], str]
) -> dict[str, Any]:
    """The bracket as far as ``results`` take it, as JSON data (see the module's docstring)."""
    seeds = fmt.seeds(entries)
    rounds = rounds_of(len(seeds))
    bracket = fmt.bracket(entries, results)
    matches = [_match(state, results, key_of) for state in bracket.matches]
    final = [m for m in matches if m["round"] == rounds and m["what"] == "final"]
    champion = final[0]["winner"] if final and final[0]["decided"] else None
    if rounds == 0 and seeds:
        champion = seeds[0]  # a field of one: no match to play
    return {
        "best_of": fmt.best_of,
        "third_place": fmt.third_place,
        "rounds": rounds,
        "round_names": [round_name(r, rounds) for r in range(1, rounds + 1)],
        "seeds": list(seeds),
        "champion": champion,
        "waiting": bracket.then,
        "matches": matches,
        "reached": _reached(matches, seeds, rounds, champion),
    }


def _match(state: MatchState, results: Results, key_of: Callable[[Fixture], str]) -> dict[str, Any]:
    pairing = state.pairing
    assert pairing is not None, "a bracket's match knows its pairing"
    sides = [pairing.a, pairing.b]
    games = []
    wins = [0, 0]
    for number, fixture in enumerate(state.games, 1):
        places = results.places(fixture)
        winner = game_winner(fixture.seats, places) if places is not None else None
        if winner is not None:
            wins[sides.index(winner)] += 1
        games.append(
            {
                "number": number,
                "key": key_of(fixture),
                "seats": list(fixture.seats),
                "recorded": places is not None,
                "winner": winner,
            }
        )
    return {
        "round": state.round,
        "match": pairing.number,
        "what": pairing.what,
        "sides": sides,
        "decided": state.decided,
        "winner": state.winner,
        "loser": state.loser,
        "wins": wins,
        "games": games,
    }


def _reached(
    matches: Sequence[Mapping[str, Any]], seeds: Sequence[str], rounds: int, champion: str | None
) -> dict[str, dict[str, Any]]:
    """Per entry: the round it reached (its last match's; a third-place match counts as the
    semi-final it came from), its stage in words, whether it is out, its matches won and lost,
    the games it won in its last match, and ``standing``: what ranks it (higher is better)."""
    found: dict[str, dict[str, Any]] = {}
    for entry in seeds:
        mine = [m for m in matches if entry in m["sides"]]
        found[entry] = _entry_reached(entry, mine, rounds, champion)
    return found


def _entry_reached(
    entry: str, mine: Sequence[Mapping[str, Any]], rounds: int, champion: str | None
) -> dict[str, Any]:
    won = sum(1 for m in mine if m["decided"] and m["winner"] == entry and None not in m["sides"])
    lost = sum(1 for m in mine if m["decided"] and m["loser"] == entry)
    if not mine:  # a field of one
        return _reach(rounds + 1, 0, "champion", False, 0, 0, 0)
    last = mine[-1]
    games_won = last["wins"][last["sides"].index(entry)]
    if entry == champion:
        return _reach(rounds + 1, 0, "champion", False, won, lost, games_won)
    if last["what"] == "third place":
        if not last["decided"]:
            stage, bonus = stage_name(rounds - 1, rounds), 0
        else:
            stage, bonus = ("third place", 1) if last["winner"] == entry else ("fourth place", 0)
        return _reach(rounds - 1, bonus, stage, last["decided"], won, lost, games_won)
    out = last["decided"] and last["loser"] == entry
    stage = stage_name(last["round"], rounds)
    return _reach(last["round"], 0, stage, out, won, lost, games_won)


def _reach(
    round_: int, bonus: int, stage: str, out: bool, won: int, lost: int, games_won: int
) -> dict[str, Any]:
    return {
        "round": round_,
        "stage": stage,
        "out": out,
        "matches_won": won,
        "matches_lost": lost,
        "games_won_last": games_won,
        "standing": [round_, bonus],
    }


def knockout_order(rows: Sequence[Row], bracket: Mapping[str, Any]) -> list[Row]:
    """The standings' rows ranked by the bracket (the module's docstring): playing entries by
    how far they went, sharing a place with those who went as far; excluded ones after them, as
    they were."""
    reached = bracket["reached"]
    seed = {name: number for number, name in enumerate(bracket["seeds"])}
    playing = [r for r in rows if r.excluded is None and r.entry in reached]
    others = [r for r in rows if r not in playing]

    def standing(row: Row) -> tuple[int, ...]:
        return tuple(reached[row.entry]["standing"])

    playing.sort(
        key=lambda r: (
            [-n for n in standing(r)],
            -reached[r.entry]["games_won_last"],
            seed[r.entry],
        )
    )
    for row in playing:
        row.rank = 1 + sum(standing(other) > standing(row) for other in playing)
    for row in others:
        if row.excluded is None:  # no seed in the bracket: it played no game of it
            row.rank = len(playing) + 1
    return playing + others


def bracket_text(bracket: Mapping[str, Any]) -> str:
    """The bracket as lines of text, a round a line: each match's sides and score, then the
    champion (or what the bracket waits for)."""
    names = bracket["round_names"]
    lines = []
    for round_, name in enumerate(names, 1):
        parts = []
        for m in (m for m in bracket["matches"] if m["round"] == round_):
            a, b = m["sides"]
            label = f"{m['what']}: " if m["what"] == "third place" else ""
            if a is None or b is None:
                parts.append(f"{label}{a or b} (bye)")
            else:
                parts.append(f"{label}{a} {m['wins'][0]}-{m['wins'][1]} {b}")
        lines.append(f"{name}: " + "; ".join(parts))
    if bracket["champion"] is not None:
        lines.append(f"champion: {bracket['champion']}")
    elif bracket["waiting"]:
        lines.append(f"not decided yet: {bracket['waiting']}")
    return "\n".join(lines)


# -- what the site shows ------------------------------------------------------------------------


def bracket_view(
    bracket: Mapping[str, Any],
    pages: Mapping[str, str],
    names: Mapping[str, str],
    seats: Sequence[tuple[str, str]] = (),
) -> dict[str, Any]:
    """The bracket as the site's pages show it: rounds of matches, each side with its seed, name
    and games won, each game with its page (``pages``: result key → page name; none for a game
    not recorded or not shown) and its winner; the champion; per entry what it reached; per game
    key the match it belongs to (``match_of``). ``seats``: the game's seat names and their CSS
    classes, seat 0 first."""
    seed = {name: number for number, name in enumerate(bracket["seeds"], 1)}
    titles = bracket["round_names"]
    rounds: list[dict[str, Any]] = [
        {"number": r, "title": title[:1].upper() + title[1:], "matches": []}
        for r, title in enumerate(titles, 1)
    ]
    match_of: dict[str, dict[str, Any]] = {}
    for m in bracket["matches"]:
        if not 1 <= m["round"] <= len(rounds):
            continue
        view = _match_view(m, titles, seed, names, pages, seats)
        rounds[m["round"] - 1]["matches"].append(view)
        for game in view["games"]:
            match_of[game["key"]] = {"match": view, "game": game["number"]}
    champion = bracket["champion"]
    return {
        "rounds": rounds,
        "champion": champion,
        "champion_name": names.get(champion, champion) if champion else None,
        "waiting": bracket["waiting"],
        "best_of": bracket.get("best_of"),
        "first_seat": seats[0][0] if seats else "first",
        "reached": bracket["reached"],
        "match_of": match_of,
    }


def _match_view(
    m: Mapping[str, Any],
    titles: Sequence[str],
    seed: Mapping[str, int],
    names: Mapping[str, str],
    pages: Mapping[str, str],
    seats: Sequence[tuple[str, str]],
) -> dict[str, Any]:
    round_title = titles[m["round"] - 1]
    what = m["what"]
    sides = [
        {
            "entry": side,
            "name": names.get(side, side) if side else "",
            "seed": seed.get(side) if side else None,
            "wins": m["wins"][i],
            "won": m["decided"] and side is not None and m["winner"] == side,
        }
        for i, side in enumerate(m["sides"])
    ]
    games = []
    for game in m["games"]:
        winner = game["winner"]
        seat = game["seats"].index(winner) if winner in game["seats"] else None
        seat_name, seat_class = (
            seats[seat] if seat is not None and seat < len(seats) else (f"seat {seat}", "")
        )
        games.append(
            {
                **game,
                "page": pages.get(game["key"]),
                "winner_name": names.get(winner, winner) if winner else None,
                "winner_seat": seat_name,
                "winner_class": seat_class,
            }
        )
    return {
        "id": f"round-{m['round']}-{what.replace(' ', '-')}",
        "title": what.capitalize(),  # "Match 2", "Final", "Third place"
        # with its round, when its name alone does not say it: "Semi-finals, match 1"
        "label": f"{round_title.capitalize()}, {what}"
        if what.startswith("match ")
        else what.capitalize(),
        "bye": None in m["sides"],
        "decided": m["decided"],
        "sides": sides,
        "games": games,
    }
