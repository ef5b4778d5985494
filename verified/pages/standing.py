"""The standing of a sentence: the worst status of every record it rests on, and what a page does
with it. One place decides it for every use: a value, a block, a statement, the releases and
status fields, a row of a table, a figure.

- A value, a block, the status field and a figure rest on the record of the case they name.
- A ``statement`` rests on every framework and device its claim declares and was run on: the
  framework it names on the page (``{{ id | torch | statement }}``) picks nothing, since the
  sentence is said of the claim.
- ``releases`` rests on the live record and on every fresh record of an older release.
- A row of the silent-failures table rests on the record of each framework.

What the page does (:func:`action`): a sentence whose records all passed is shown. Otherwise the
strict build (``AUTOGRAD_SHOW_FAILED`` unset, as in ``nox -s tests``, CI and publishing) refuses
it, naming the page and the case; ``nox -s site`` marks it ✗ with what was observed, and the
page gets its banner and the build's summary its line. A missing record is refused always.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, IntEnum

from verified.claims import FRAMEWORKS, Claim
from verified.report import Entry, ReportError, Reports, _shown, case_name


class Status(IntEnum):
    """A sentence takes the highest status of the records it rests on."""

    PASSED = 0
    NOT_RUNNABLE = 1  # confirmed not runnable on that release (declared by the claim)
    SKIPPED = 2  # declared but not run on this machine
    STALE = 3
    FAILED = 4
    MISSING = 5


STATUS = {
    "passed": Status.PASSED,
    "not-runnable": Status.NOT_RUNNABLE,
    "skipped": Status.SKIPPED,
    "stale": Status.STALE,
    "failed": Status.FAILED,
}


class Use(Enum):
    VALUE = "value"
    BLOCK = "block"
    STATEMENT = "statement"
    RELEASES = "releases"
    STATUS = "status"
    ROW = "row"
    FIGURE = "figure"


# what each use shows as it is, besides records that passed
ACCEPTED = {
    Use.VALUE: {Status.PASSED},
    Use.BLOCK: {Status.PASSED},
    Use.FIGURE: {Status.PASSED},
    Use.ROW: {Status.PASSED},
    Use.STATEMENT: {Status.PASSED, Status.NOT_RUNNABLE},
    Use.RELEASES: {Status.PASSED, Status.NOT_RUNNABLE},
    Use.STATUS: {Status.PASSED, Status.SKIPPED},  # "declared but not run here, because …"
}


class Action(Enum):
    SHOW = "show"
    MARK = "mark"


@dataclass(frozen=True)
class Standing:
    """Every record a sentence rests on (live report first) and the missing cases."""

    entries: tuple[Entry, ...] = ()
    missing: tuple[tuple[str, str], ...] = ()  # (case name, the reports looked in)

    @property
    def status(self) -> Status:
        if self.missing:
            return Status.MISSING
        return max((STATUS[e.status] for e in self.entries), default=Status.PASSED)

    def __or__(self, other: Standing) -> Standing:
        return Standing(self.entries + other.entries, self.missing + other.missing)

    def failing(self, use: Use) -> list[Entry]:
        """The records a use cannot show as they are, worst first."""
        bad = [e for e in self.entries if STATUS[e.status] not in ACCEPTED[use]]
        return sorted(bad, key=lambda e: -STATUS[e.status])

    def refusal(self, use: Use, label: str) -> str:
        """Why the strict build refuses the sentence, naming the case and the report."""
        prefix = f"{label}: " if label else ""
        if self.missing:
            name, looked_in = self.missing[0]
            return (
                f"{prefix}claim {name} is not in {looked_in} "
                "(unknown id, or the claims were not run)"
            )
        entry = self.failing(use)[0]
        name = case_name_of(entry)
        where = _shown(entry.report.path)
        if entry.stale:
            return f"{prefix}claim {name} is stale in {where}: {entry.stale}; run the claims again"
        return f"{prefix}claim {name} {entry.status} in {where}: {entry.rec.get('reason')}"


def case_name_of(entry: Entry) -> str:
    rec = entry.rec
    return case_name(rec["id"], rec["framework"], rec["device"])


def of_case(reports: Reports, claim_id: str, framework: str, device: str = "cpu") -> Standing:
    """The record of one case a page shows: CPU from the live report; GPU from the live report
    or an environment report. The newest that passed, or else the first found."""
    key = (claim_id, framework, device)
    sources = [reports.live] if device == "cpu" else reports.all
    entries = [r.entry(r.records[key]) for r in sources if key in r.records]
    if not entries:
        looked_in = _shown(reports.live.path) + (" or results/" if device == "gpu" else "")
        return Standing(missing=((case_name(claim_id, framework, device), looked_in),))
    passed = [e for e in entries if e.status == "passed"]
    if passed:
        return Standing((max(passed, key=lambda e: e.env.get("date") or ""),))
    return Standing((entries[0],))


def of_statement(reports: Reports, claim: Claim) -> Standing:
    """Every framework and device the claim declares and was run on. A device no run reached
    (the GPU, on a machine without one) is not rested on; the CPU always is."""
    standing = Standing()
    for framework in FRAMEWORKS:
        for device in claim.devices:
            one = of_case(reports, claim.id, framework, device)
            if device != "cpu" and (one.missing or one.status == Status.SKIPPED):
                continue
            standing |= one
    return standing


def action(standing: Standing, use: Use, shown: bool, label: str) -> Action:
    """SHOW a sentence whose records this use accepts; MARK it where failures are shown
    (``nox -s site``); otherwise refuse it (ReportError, the build's error)."""
    if standing.missing:
        raise ReportError(standing.refusal(use, label))
    if not standing.failing(use):
        return Action.SHOW
    if shown:
        return Action.MARK
    raise ReportError(standing.refusal(use, label))
