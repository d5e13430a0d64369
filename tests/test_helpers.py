"""Helper processes (runner/helpers.py) come from a fork server that imports the host's own koth,
whatever lies in the folder the host works in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import runner

REPO = Path(runner.__file__).resolve().parent.parent
PROBE = """
import sys
sys.path.insert(0, {repo!r})
from concurrent.futures import ProcessPoolExecutor
from runner import helpers
if __name__ == "__main__":
    context = helpers.context()
    with ProcessPoolExecutor(1, mp_context=context, initializer=helpers.detach) as pool:
        print(pool.submit(eval, "__import__('runner').__file__").result())
        print(pool.submit(eval, "__import__('sys').modules['runner.site'].__file__").result())
"""


def test_helpers_run_the_hosts_koth_not_one_in_its_working_folder(tmp_path: Path) -> None:
    impostor = tmp_path / "runner"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("")
    (impostor / "site.py").write_text("")
    script = tmp_path / "elsewhere" / "probe.py"  # as a console script: its folder on the path
    script.parent.mkdir()
    script.write_text(PROBE.format(repo=str(REPO)))
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    package, site = done.stdout.split()
    assert Path(package).parent == REPO / "runner", package
    assert Path(site) == REPO / "runner" / "site.py", "the server preloaded another package"
