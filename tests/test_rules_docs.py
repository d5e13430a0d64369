"""The rules for bot authors, runner/games/<game>/rules.md: present for every game, linked from
the README, self-contained, and with worked examples that are still what the engines send and draw.

Each document's worked example is made of fenced blocks; the tests below rebuild every block from
the engine (a fixed seed, fixed replies) and compare them byte for byte. After a deliberate change
to what bots see, print the new blocks with ``python tests/test_rules_docs.py`` and paste them in.
"""

from __future__ import annotations

import ast
import random
import re
import sys
from pathlib import Path

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from runner.games import GAMES  # noqa: E402
from runner.games.base import InvalidMoveError  # noqa: E402
from runner.games.cluster import Cluster, ClusterStdio  # noqa: E402
from runner.games.snakes import Snakes, SnakesCall  # noqa: E402

RULES = ROOT / "runner" / "games"
SNAKES_EXAMPLE_MOVES = "RLDU"  # X, O, X, O: the first two turns
CLUSTER_EXAMPLE_SEED = 7  # Blue draws BLUE1 then BLUE0 first: its hand is listed sorted, 0 then 2
CLUSTER_EXAMPLE_REPLIES = ("PLACE 11 2", "PLACE 11 1", "ROTATE 1", "PLACE 12 3")


def rules_name(game_id: str) -> str:
    return re.sub(r"-v[0-9]+$", "", game_id)


def sections(path: Path) -> dict[str, list[str]]:
    """The fenced blocks of a Markdown file, by the ``##`` section they are in, in order."""
    found: dict[str, list[str]] = {}
    heading = ""
    tokens = MarkdownIt("commonmark").enable("table").parse(path.read_text(encoding="utf-8"))
    for i, token in enumerate(tokens):
        if token.type == "heading_open" and token.tag == "h2":
            heading = tokens[i + 1].content
        elif token.type == "fence":
            found.setdefault(heading, []).append(token.content)
    return found


def snakes_example() -> list[str]:
    """The board each call of the first two turns is given, as 16 text rows, and the reply."""
    game = Snakes()
    state = game.initial_state(random.Random(0))
    blocks = []
    for move in SNAKES_EXAMPLE_MOVES:
        (seat,) = game.to_move(state)
        blocks.append(game.render_text(state) + "\n")
        state = game.apply(state, {seat: SnakesCall().decode(state, seat, ord(move))})
    blocks.append(game.render_text(state) + "\n")
    return blocks


def cluster_example() -> tuple[list[str], str]:
    """The worked example's blocks (Red's init message from where it differs from Blue's, then
    per move the mover's turn message and its reply) and Blue's whole init message."""
    game, wire = Cluster(), ClusterStdio()
    state = game.initial_state(random.Random(CLUSTER_EXAMPLE_SEED))
    blue_init = wire.greeting(state, 0).decode("ascii")
    red_init = wire.greeting(state, 1).decode("ascii")
    same = blue_init.split("\n")[:-7]
    assert red_init.split("\n")[:-7] == same, "the init messages differ only in their last lines"
    blocks = ["\n".join(red_init.split("\n")[-7:])]
    for reply in CLUSTER_EXAMPLE_REPLIES:
        seat = state.mover
        blocks.append(wire.request(state, seat).decode("ascii"))
        blocks.append(reply + "\n")
        state = game.apply(state, {seat: wire.decode(state, seat, [reply])})
    return blocks, blue_init


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_game_has_its_rules_in_the_repository(game_id: str) -> None:
    path = GAMES[game_id].rules_doc
    assert path is not None and path.is_file(), f"{game_id} has no rules for bot authors"
    assert path == RULES / rules_name(game_id) / "rules.md", "in the game's own folder"
    text = path.read_text(encoding="utf-8")
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    link = path.relative_to(ROOT).as_posix()
    assert f"]({link})" in readme, f"the README links {link}"
    assert f"`{game_id}`" in text, "the rules name the game id they describe"


def test_snakes_worked_example_is_what_the_engine_draws() -> None:
    blocks = sections(RULES / "snakes" / "rules.md")
    assert blocks.get("A worked example") == snakes_example(), (
        "the boards in runner/games/snakes/rules.md no longer match the engine: "
        "python tests/test_rules_docs.py prints them"
    )


def test_cluster_worked_example_is_what_the_engine_sends() -> None:
    blocks = sections(RULES / "cluster" / "rules.md")
    example, blue_init = cluster_example()
    assert blocks.get("A worked example") == example, (
        "the messages in runner/games/cluster/rules.md no longer match the engine, byte for byte: "
        "python tests/test_rules_docs.py prints them"
    )
    assert blocks.get("The init message in full") == [blue_init], "Blue's init message, in full"


def test_cluster_worked_example_shows_every_block_of_a_turn_message() -> None:
    example, _ = cluster_example()
    red_after_rotation = example[7]
    assert red_after_rotation.startswith("1\n"), "gravity SW after Blue's ROTATE 1"
    assert red_after_rotation.endswith("\n2\n1\n3\n\n"), "a hand of two, then the empty line"
    assert example[1].endswith("\n2\n0\n2\n\n"), "Blue's first hand, drawn BLUE1 first, reads 0 2"


def test_the_reply_examples_in_cluster_rules_are_what_the_host_reads() -> None:
    text = (RULES / "cluster" / "rules.md").read_text()
    rows = re.findall(r'^\| `(".*")` \| (.*) \|$', text, re.M)
    assert len(rows) > 20, "the table of reply examples is in runner/games/cluster/rules.md"
    game, wire = Cluster(), ClusterStdio()
    start = game.initial_state(random.Random(0))
    for quoted, read in rows:
        reply = ast.literal_eval(quoted)
        if read.startswith("refused"):
            with pytest.raises(InvalidMoveError):
                wire.decode(start, 0, [reply])
        else:
            assert f"`{game.move_text(wire.decode(start, 0, [reply]))}`" == read, quoted


@pytest.mark.parametrize("path", sorted(RULES.glob("*/rules.md")), ids=lambda p: p.parent.name)
def test_rules_documents_link_nothing_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)]*)\)", text)
    for target in targets:
        assert re.match(r"https://|#", target), f"{path.name} links {target!r}: rules pages are "
        "shown on the results site too, where only absolute links and anchors work"
    assert "shared/" not in text and "../" not in text


def main() -> None:
    print("== runner/games/snakes/rules.md, A worked example ==")
    for block in snakes_example():
        print("```\n" + block + "```\n")
    example, blue_init = cluster_example()
    print("== runner/games/cluster/rules.md, A worked example ==")
    for block in example:
        print("```\n" + block + "```\n")
    print("== runner/games/cluster/rules.md, The init message in full ==")
    print("```\n" + blue_init + "```")


if __name__ == "__main__":
    main()
