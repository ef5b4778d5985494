"""``python3 -m verified.gpu [run] [--name NAME] [--deadline S] [--case-timeout S]``: the GPU
run (see :mod:`verified.gpu`); ``python3 -m verified.gpu fetch``: download the carried wheels
here into ``build/gpu-wheels/``; ``python3 -m verified.gpu wheels``: list them.

Only the standard library is imported before the wheels are unpacked and put first on
``sys.path``: the engine then imports the carried ``packaging``, not the machine's.
"""

from __future__ import annotations

import argparse
import sys
import time
from importlib import metadata
from pathlib import Path

from verified.gpu import CASE_TIMEOUT_S, DEADLINE_S, NAME, wheels

COMMANDS = ("run", "fetch", "wheels")


def parser(command: str) -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog=f"python3 -m verified.gpu {command}")
    p.add_argument(
        "--wheels", type=Path, default=wheels.WHEELS_DIR, help="the carried wheels' folder"
    )
    if command == "run":
        p.add_argument(
            "--name",
            help="the report's name: results/gpu-<name>.json (default: from the GPU's name, "
            "e.g. nvidia-h200)",
        )
        p.add_argument(
            "--deadline",
            type=float,
            default=DEADLINE_S,
            help="seconds after which pytest is interrupted and the cases that ran are kept",
        )
        p.add_argument(
            "--case-timeout",
            type=float,
            default=CASE_TIMEOUT_S,
            help="the most seconds one case may take",
        )
    return p


def machine_pytest() -> str | None:
    """The machine's own pytest, before the carried one is on the path."""
    try:
        return metadata.version("pytest")
    except metadata.PackageNotFoundError:
        return None


def main(argv: list[str]) -> int:
    started = time.monotonic()
    command = argv[0] if argv and argv[0] in COMMANDS else "run"
    args = parser(command).parse_args(argv[1:] if argv and argv[0] in COMMANDS else argv)
    try:
        if command == "wheels":
            print(wheels.table())
            return 0
        if command == "fetch":
            wheels.fetch(args.wheels)
            print(f"{wheels.shown(args.wheels)}:\n{wheels.table()}")
            return 0
        if args.name and not NAME.match(args.name):
            print(f"GPU kit: --name {args.name!r}: use lowercase letters, digits, . _ -")
            return 2
        theirs = machine_pytest()
        site = wheels.unpack(args.wheels)
    except wheels.WheelError as exc:
        print(f"GPU kit: {exc}", file=sys.stderr)
        return 2
    sys.path.insert(0, str(site))
    from verified.gpu import kit  # the engine, with the carried packages

    outcome = kit.run(
        site=site,
        name=args.name,
        deadline=args.deadline,
        case_timeout=args.case_timeout,
        machine_pytest=theirs,
        started=started,
    )
    return outcome.exit_code()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
