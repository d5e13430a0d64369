"""The seccomp filters as installed: libseccomp's program compiled once for a sentinel pid, the
bot's pid put in its place, must be exactly the program libseccomp compiles for that pid; and
the filters deny by default."""

from __future__ import annotations

import pytest

from runner.jail import walls


@pytest.mark.parametrize("kind", walls.KINDS)
@pytest.mark.parametrize("pid", [2, 1234, 1_000_007, 4_194_303])
def test_the_filter_for_a_pid_is_what_libseccomp_compiles_for_it(pid: int, kind: str) -> None:
    compiled = walls.bot_filter(pid, kind).compiled()
    assert walls.filter_for(pid, kind) == compiled, "the sentinel stood anywhere but for the pid"
    assert len(compiled) % 8 == 0 and len(compiled) > 8 * 100, "a BPF program of many rules"


@pytest.mark.parametrize("kind", walls.KINDS)
def test_the_sentinel_appears_only_where_the_pid_does(kind: str) -> None:
    template = walls.bot_filter(walls.SENTINEL_PID, kind).compiled()
    other = walls.bot_filter(walls.SENTINEL_PID + 1, kind).compiled()
    differing = [i for i in range(0, len(template), 8) if template[i : i + 8] != other[i : i + 8]]
    assert differing, "the pid is in the program"
    assert all(template[i : i + 4] == other[i : i + 4] for i in differing), (
        "only the constants differ, never an instruction or a jump"
    )
