"""docs/*/accumulation/data-parallel.md: "Every two-process snippet of this site […] calls the
same function, `launch(script)`". Here that sentence is checked against snippets/: every
script that joins a process group of more than one process is started by ``launch`` (from
``launch_<framework>.py``) and by nothing else, and every ``launch`` call starts such a script.
"""

from __future__ import annotations

import re
from pathlib import Path

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
