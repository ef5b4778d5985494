"""Stage times: every nox session prints, when it ends, how long each of its stages took and
whether it ran or was reused (a stamp, or packages already installed), and appends the same rows
to ``build/stage-times.tsv``; CI (``.ci/run``) empties that file first and prints the whole
table at the end, with its own wall time.

Standard library only: the noxfile imports it in nox's own Python.

``python -m verified.stagetimes show [--total SECONDS] [FILE]`` prints the table of FILE
(default: build/stage-times.tsv); ``python -m verified.stagetimes clear [FILE]`` empties it;
``python -m verified.stagetimes add SESSION STAGE SECONDS run|reused`` adds a row (CI's own
steps).
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path

TIMES = Path(__file__).resolve().parent.parent / "build" / "stage-times.tsv"
HEADER = "session\tstage\tseconds\thow\n"
HOWS = ("run", "reused")


@dataclass(frozen=True)
class Row:
    session: str
    stage: str
    seconds: float
    how: str  # "run" or "reused"

    def __post_init__(self) -> None:
        if self.how not in HOWS:
            raise ValueError(f"stage {self.stage!r}: how must be one of {HOWS}, not {self.how!r}")
        for text in (self.session, self.stage):
            if not text or "\t" in text or "\n" in text:
                raise ValueError(f"a session or stage name must be one line without tabs: {text!r}")


def append(rows: list[Row], path: Path | None = None) -> None:
    """Add ``rows`` to the file (default: TIMES; written with its header if new)."""
    path = path or TIMES
    path.parent.mkdir(parents=True, exist_ok=True)
    new = not path.is_file() or path.stat().st_size == 0
    with path.open("a", encoding="utf-8") as out:
        if new:
            out.write(HEADER)
        for r in rows:
            out.write(f"{r.session}\t{r.stage}\t{r.seconds:.1f}\t{r.how}\n")


def read(path: Path = TIMES) -> list[Row]:
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    if not lines:
        return []
    if lines[0] + "\n" != HEADER:
        raise ValueError(f"{path}: not a stage-times file (first line {lines[0]!r})")
    rows = []
    for number, line in enumerate(lines[1:], start=2):
        fields = line.split("\t")
        if len(fields) != 4:
            raise ValueError(f"{path}:{number}: expected 4 tab-separated fields: {line!r}")
        rows.append(Row(fields[0], fields[1], float(fields[2]), fields[3]))
    return rows


def table(rows: list[Row], total: float | None = None) -> str:
    """The rows as an aligned table; the sum of their seconds, and ``total`` (wall time) if
    given, at the end."""
    head = ("session", "stage", "seconds", "run or reused")
    body = [(r.session, r.stage, f"{r.seconds:.1f}", r.how) for r in rows]
    body.append(("", "sum of the stages", f"{sum(r.seconds for r in rows):.1f}", ""))
    if total is not None:
        body.append(("", "wall time", f"{total:.1f}", ""))
    widths = [max(len(line[i]) for line in [head, *body]) for i in range(4)]

    def fmt(line) -> str:
        cells = [
            cell.rjust(w) if i == 2 else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        return "  ".join(cells).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(head), rule, *(fmt(line) for line in body)])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m verified.stagetimes")
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print the table")
    show.add_argument("--total", type=float, help="wall time of the whole run, in seconds")
    show.add_argument("file", nargs="?", type=Path, default=TIMES)
    clear = sub.add_parser("clear", help="empty the file")
    clear.add_argument("file", nargs="?", type=Path, default=TIMES)
    add = sub.add_parser("add", help="add a row")
    add.add_argument("session")
    add.add_argument("stage")
    add.add_argument("seconds", type=float)
    add.add_argument("how", choices=HOWS)
    args = parser.parse_args(argv)
    if args.command == "clear":
        args.file.unlink(missing_ok=True)
        return 0
    if args.command == "add":
        append([Row(args.session, args.stage, args.seconds, args.how)])
        return 0
    rows = read(args.file)
    if not rows:
        print(f"no stage times in {args.file}", file=sys.stderr)
        return 1
    print(table(rows, args.total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
