"""Helper processes (runner/common/helper_processes.py) come from a fork server that imports the
host's own koth, whatever lies in the folder the host works in."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from processes import alive

import runner

REPO = Path(runner.__file__).resolve().parent.parent
PROBE = """
import sys
sys.path.insert(0, {repo!r})
from concurrent.futures import ProcessPoolExecutor
from runner.common import helper_processes
if __name__ == "__main__":
    context = helper_processes.context()
    with ProcessPoolExecutor(1, mp_context=context, initializer=helper_processes.detach) as pool:
        print(pool.submit(eval, "__import__('runner').__file__").result())
        module = "__import__('sys').modules['runner.site.render'].__file__"
        print(pool.submit(eval, module).result())
"""


def test_helpers_run_the_hosts_koth_not_one_in_its_working_folder(tmp_path: Path) -> None:
    impostor = tmp_path / "runner"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("")
    (impostor / "site").mkdir()
    (impostor / "site" / "__init__.py").write_text("")
    (impostor / "site" / "render.py").write_text("")
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
    assert Path(site) == REPO / "runner" / "site" / "render.py", "the server preloaded another koth"


FORKED = """
import os, select, sys, threading
sys.path.insert(0, {repo!r})
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import forkserver
from runner.common import helper_processes

def links():
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            found.append(os.readlink("/proc/self/fd/" + name))
        except OSError:
            pass  # the listing's own descriptor
    return found

if __name__ == "__main__":
    read_end, write_end = os.pipe()  # the host's: no helper may hold it open
    pipe = f"pipe:[{{os.fstat(write_end).st_ino}}]"
    if {thread}:
        threading.Thread(target=threading.Event().wait, daemon=True).start()
    context = helper_processes.context()
    with ProcessPoolExecutor(1, mp_context=context, initializer=helper_processes.detach) as pool:
        held = pool.submit(links).result().count(pipe)
        os.close(write_end)
        ended = bool(select.select([read_end], [], [], 5)[0]) and os.read(read_end, 1) == b""
        server = forkserver._forkserver._forkserver_pid
        with open(f"/proc/{{server}}/cmdline", "rb") as f:
            command = f.read().split(b"\\0")
        with open(f"/proc/{{server}}/status") as f:
            parent = next(int(line.split()[1]) for line in f if line.startswith("PPid:"))
        print(ended, parent == os.getpid(), b"-c" not in command, held, sep="\\n")
"""


def forked_probe(tmp_path: Path, thread: bool) -> list[str]:
    script = tmp_path / "probe.py"
    script.write_text(FORKED.format(repo=str(REPO), thread=thread))
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_fork_server_is_a_fork_of_the_host_holding_none_of_its_descriptors(
    tmp_path: Path,
) -> None:
    ended, child, forked, held = forked_probe(tmp_path, thread=False)
    assert forked == "True", "a host with one thread forks its server (koth imported already)"
    assert child == "True"
    assert held == "0", "a helper holds the host's pipe"
    assert ended == "True", "the host's pipe did not end when it closed it: the server holds it"


def test_a_host_running_threads_starts_its_fork_server_afresh(tmp_path: Path) -> None:
    ended, child, forked, held = forked_probe(tmp_path, thread=True)
    assert forked == "False", "a fork of a host with threads could copy a lock mid-use"
    assert (ended, child, held) == ("True", "True", "0")


LINGER = """
import os, sys, time
sys.path.insert(0, {repo!r})
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import forkserver
from runner.common import helper_processes
if __name__ == "__main__":
    context = helper_processes.context()
    pool = ProcessPoolExecutor(1, mp_context=context, initializer=helper_processes.detach)
    helper = pool.submit(os.getpid).result()
    print(forkserver._forkserver._forkserver_pid, helper, flush=True)
    time.sleep(600)
"""


def test_the_fork_server_ends_when_the_host_is_killed(tmp_path: Path) -> None:
    script = tmp_path / "linger.py"
    script.write_text(LINGER.format(repo=str(REPO)))
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        server, helper = map(int, host.stdout.readline().split())
    finally:
        host.kill()  # SIGKILL: no handler, no clean-up of the host's runs
        host.wait()
    try:
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline and alive(server):
            time.sleep(0.05)
        assert not alive(server), "the fork server outlived the host"
    finally:
        # This helper has no parent-death signal (koth's set one as they start, and follow
        # the server: below): the test ends it.
        os.kill(helper, signal.SIGKILL)


RENDERING = """
import os, sys, time
sys.path.insert(0, {repo!r})
from multiprocessing import forkserver
from runner.site import pages

def render(item):
    with open({mark!r} + str(os.getpid()), "w"):
        pass
    time.sleep(0.05)
    return item

def meanwhile():
    while not os.listdir({folder!r}):
        time.sleep(0.01)
    print(forkserver._forkserver._forkserver_pid, flush=True)
    time.sleep(600)

if __name__ == "__main__":
    pages.render_pages(render, list(range(400)), 2, meanwhile)
"""


def test_a_site_renderer_ends_when_its_host_is_killed(tmp_path: Path) -> None:
    """A renderer of the site's pages (runner/site/pages.py) follows the fork server, which
    ends with the host: killed mid-site, nothing of it is left rendering or waiting."""
    marks = tmp_path / "marks"
    marks.mkdir()
    script = tmp_path / "render.py"
    script.write_text(RENDERING.format(repo=str(REPO), mark=str(marks / "pid-"), folder=str(marks)))
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        server = int(host.stdout.readline())
    finally:
        host.kill()
        host.wait()
    renderers = [int(n.removeprefix("pid-")) for n in os.listdir(marks)]
    renderers = [pid for pid in renderers if pid != host.pid]
    assert renderers, "no page was rendered by another process"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and any(map(alive, [server, *renderers])):
        time.sleep(0.05)
    left = [pid for pid in renderers if alive(pid)]
    for pid in left:
        os.kill(pid, signal.SIGKILL)
    assert not alive(server) and not left, f"left running: {left}"


TRACKED = """
import os, sys, time
sys.path.insert(0, {repo!r})
from multiprocessing import resource_tracker
from runner.common import helper_processes
if __name__ == "__main__":
    read_end, write_end = os.pipe()  # the host's: the tracker may not hold it open
    context = helper_processes.context()
    counter = context.Value("i", 0)  # a named semaphore, which the tracker is told of
    tracker = resource_tracker._resource_tracker._pid
    pipe = f"pipe:[{{os.fstat(write_end).st_ino}}]"
    fds = f"/proc/{{tracker}}/fd"
    held = sum(os.readlink(f"{{fds}}/{{fd}}") == pipe for fd in os.listdir(fds))
    with open(f"/proc/{{tracker}}/cmdline", "rb") as f:
        forked = b"-c" not in f.read().split(b"\\0")
    print(tracker, counter.get_lock()._semlock.name, forked, held, flush=True)
    time.sleep(600)
"""


def test_the_resource_tracker_is_a_fork_of_the_host_and_unlinks_what_a_killed_host_left(
    tmp_path: Path,
) -> None:
    """Python's resource tracker is started as a fork of the host (not a new interpreter), holds
    none of the host's descriptors, and still does its work: when the host is killed, it unlinks
    the named semaphores the host's locks and counters left, and ends."""
    script = tmp_path / "tracked.py"
    script.write_text(TRACKED.format(repo=str(REPO)))
    host = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert host.stdout is not None
        tracker, name, forked, held = host.stdout.readline().split()
        semaphore = Path("/dev/shm") / ("sem." + name.lstrip("/"))
        assert semaphore.exists(), "the counter's semaphore should be there while the host runs"
    finally:
        host.kill()  # SIGKILL: the host unlinks nothing itself
        host.wait()
    assert forked == "True", "the tracker was started as a new interpreter"
    assert held == "0", "the tracker holds the host's pipe"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline and (alive(int(tracker)) or semaphore.exists()):
        time.sleep(0.05)
    assert not semaphore.exists(), "the tracker left the killed host's semaphore"
    assert not alive(int(tracker)), "the tracker outlived the host"
