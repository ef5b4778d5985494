"""docs/*/accumulation/data-parallel.md: "Every two-process snippet of this site […] calls the
same function, `launch(script)`". Here that sentence is checked against snippets/: every
script that joins a process group of more than one process is started by ``launch`` (from
``launch_<framework>.py``) and by nothing else, and every ``launch`` call starts such a script.
"""

from __future__ import annotations

import errno
import re
import socket
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"

JOINS_A_GROUP = re.compile(r"\b(?:init_process_group|init_parallel_env|fleet\.init)\(")
ONE_PROCESS = re.compile(r"\bworld_size=1\b")  # a group of one (a HashStore): no second process
STARTS_PROCESSES = re.compile(
    r"\b(?:subprocess|multiprocessing|Popen|spawn|os\.fork|os\.exec\w*|torchrun)\b"
)
LAUNCH = re.compile(r'\blaunch\(\s*"([^"]+)"')
IMPORT = re.compile(r"^from launch_(paddle|torch) import launch$", re.M)


def problems(root: Path) -> list[str]:
    files = {p.name: p.read_text("utf-8") for p in sorted(root.rglob("*.py"))}
    workers = {
        name
        for name, text in files.items()
        if JOINS_A_GROUP.search(text) and not ONE_PROCESS.search(text)
    }
    found = []
    launched = set()
    for name, text in files.items():
        if name.startswith("launch_"):
            continue  # the launcher itself starts the processes
        called = LAUNCH.findall(text)
        for script in called:
            launched.add(script)
            if script not in workers:
                found.append(f"{name}: launch({script!r}) starts no two-process script")
        if called and not IMPORT.search(text):
            found.append(f"{name}: calls launch() without importing it from launch_<framework>")
        if STARTS_PROCESSES.search(text) and any(w in text for w in workers):
            found.append(f"{name}: starts a two-process script itself, not through launch()")
    found += [
        f"{w}: joins a process group but no snippet launches it" for w in sorted(workers - launched)
    ]
    if not workers:
        found.append(f"{root}: no two-process script at all")
    return found


def test_every_two_process_snippet_calls_launch():
    assert not problems(SNIPPETS), "\n".join(problems(SNIPPETS))


def test_a_snippet_that_starts_processes_itself_fails(tmp_path):
    for name in ("ddp_worker_torch.py", "ddp_no_sync_torch.py", "launch_torch.py"):
        (tmp_path / name).write_text((SNIPPETS / "accumulation" / name).read_text("utf-8"), "utf-8")
    assert problems(tmp_path) == []
    (tmp_path / "own_start_torch.py").write_text(
        'import subprocess, sys\nsubprocess.run([sys.executable, "ddp_worker_torch.py"])\n', "utf-8"
    )
    (tmp_path / "lonely_worker_torch.py").write_text(
        'import torch.distributed as dist\ndist.init_process_group("gloo")\n', "utf-8"
    )
    assert problems(tmp_path) == [
        "own_start_torch.py: starts a two-process script itself, not through launch()",
        "lonely_worker_torch.py: joins a process group but no snippet launches it",
    ]


def launcher(framework: str, folder: Path):
    """launch_<framework>.py imported from a copy in ``folder``, where the test puts its workers."""
    import importlib.util

    source = SNIPPETS / "accumulation" / f"launch_{framework}.py"
    copy = folder / source.name
    copy.write_text(source.read_text("utf-8"), "utf-8")
    spec = importlib.util.spec_from_file_location(f"launch_{framework}_copy", copy)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("framework", ["paddle", "torch"])
def test_a_reserved_port_is_given_to_no_other_program(framework, tmp_path):
    """CI, 2026-12-07: rank 0 of a Paddle launch aborted (SIGABRT) because the port the
    launcher had found free and released was taken before rank 0 listened on it. A reserved
    port stays bound: a program that binds it without SO_REUSEADDR (as the OS's own choice of
    a port for bind(0) or connect() does not even try) is refused, while a listening socket
    with SO_REUSEADDR, as Paddle's and PyTorch's stores open, gets it. Closed, it is free."""
    reserved = launcher(framework, tmp_path).reserve_port()
    port = reserved.getsockname()[1]
    with socket.socket() as other, pytest.raises(OSError) as refused:
        other.bind(("127.0.0.1", port))
    assert refused.value.errno == errno.EADDRINUSE
    with socket.socket() as store:
        store.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        store.bind(("127.0.0.1", port))
        store.listen()
    reserved.close()
    with socket.socket() as other:
        other.bind(("127.0.0.1", port))


@pytest.mark.parametrize("framework", ["paddle", "torch"])
def test_a_rank_that_aborts_fails_the_launch_with_what_it_printed(framework, tmp_path):
    """Paddle prints its fatal error (C++ traceback, "SIGABRT") to stdout: the launcher's
    error shows both streams, and the exit code."""
    (tmp_path / "aborting.py").write_text(
        "import os, sys\n"
        "print('fatal error on stdout', flush=True)\n"
        "print('warning on stderr', file=sys.stderr, flush=True)\n"
        "os.abort()\n",
        "utf-8",
    )
    with pytest.raises(RuntimeError) as failed:
        launcher(framework, tmp_path).launch("aborting.py")
    assert str(failed.value) == (
        "rank 0 exited with code -6:\n"
        "stdout:\nfatal error on stdout\n\nstderr:\nwarning on stderr\n"
    )
