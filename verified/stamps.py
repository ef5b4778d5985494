"""Stamps: a stage of ``nox -s tests`` is not run again when every input it reads is unchanged
since it last succeeded on this host.

A stage's digest covers the content of every file of the working tree that git sees (tracked,
and untracked but not ignored), the generated files the stage reads (the claims report, the
executed notebooks, the built site), the Python packages installed in the session's
environment, the Python version and the host (:func:`verified.report.host`): a stamp written
on another machine, or before anything changed, never stands for this run. CI (the ``CI``
variable) and ``--fresh`` always run every stage.

``python -m verified.stamps check <stage> [generated...]`` exits 0 and says so if the stage's
stamp matches, 1 otherwise; ``python -m verified.stamps record <stage> [generated...]`` writes
the stamp after the stage succeeded.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
import subprocess
import sys
from importlib import metadata
from pathlib import Path

from verified.claims import ROOT
from verified.report import host

STAMPS = ROOT / "build" / "stamps"


def tree_files(root: Path | None = None) -> list[Path]:
    """Every file of the working tree that git sees: tracked, and untracked but not ignored."""
    root = root or ROOT
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=root,
        capture_output=True,
        check=True,
        text=True,
    ).stdout.split("\0")
    return sorted(root / name for name in listed if name and (root / name).is_file())


def files_under(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else []


def packages() -> list[str]:
    """The distributions installed where this runs, with their versions."""
    return sorted(f"{d.metadata['Name']}=={d.version}" for d in metadata.distributions())


def digest(stage: str, generated: list[Path], root: Path | None = None) -> str:
    """The digest of everything a stage reads (see the module's description)."""
    root = root or ROOT
    sha = hashlib.sha256()

    def add(label: str, data: bytes) -> None:
        sha.update(len(label).to_bytes(4, "big") + label.encode())
        sha.update(len(data).to_bytes(8, "big") + data)

    add("stage", stage.encode())
    for path in tree_files(root) + [p for g in generated for p in files_under(g)]:
        add(path.relative_to(root).as_posix(), path.read_bytes())
    context = {
        "python": platform.python_version(),
        "executable": sys.executable,
        "host": host(),
        "packages": packages(),
    }
    add("context", json.dumps(context, sort_keys=True).encode())
    return sha.hexdigest()


def fresh_requested() -> bool:
    return bool(os.environ.get("CI")) or os.environ.get("AUTOGRAD_FRESH") == "1"


def stamp_path(stage: str) -> Path:
    return STAMPS / f"{stage}.json"


def check(stage: str, generated: list[Path]) -> str | None:
    """Why the stage must run, or None if its stamp matches."""
    if fresh_requested():
        return "a fresh run was asked for (CI or --fresh)"
    path = stamp_path(stage)
    if not path.exists():
        return "it has not succeeded here before"
    recorded = json.loads(path.read_text(encoding="utf-8"))
    if recorded.get("digest") != digest(stage, generated):
        return "an input changed since it last succeeded here"
    return None


def record(stage: str, generated: list[Path]) -> None:
    STAMPS.mkdir(parents=True, exist_ok=True)
    stamp = {"stage": stage, "digest": digest(stage, generated), "host": host()}
    stamp_path(stage).write_text(json.dumps(stamp, indent=1) + "\n", encoding="utf-8")


def main(argv: list[str]) -> int:
    if len(argv) < 2 or argv[0] not in ("check", "record"):
        print("usage: python -m verified.stamps check|record <stage> [generated path...]")
        return 2
    action, stage = argv[0], argv[1]
    generated = [ROOT / p for p in argv[2:]]
    if action == "record":
        record(stage, generated)
        return 0
    why = check(stage, generated)
    if why is None:
        print(f"{stage}: every input unchanged since it last succeeded on this host: not run again")
        return 0
    print(f"{stage}: runs ({why})")
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
