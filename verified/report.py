"""Verification reports: writing, merging, reading, freshness and lookup.

A report is a JSON file of case records. ``build/claims.json`` is written by every test run on
this machine (the *live* report); ``results/*.json`` are committed *environment reports*
written by ``nox -s matrix`` (other framework releases) or on other machines (a GPU). They
share one schema:

- every record says where it ran: its own ``env`` (framework versions, device, GPU and CUDA,
  Python, processor, date), made from the run's :class:`~verified.context.RunContext`, never
  from this process's state at the time. Merging keeps a record with its own environment;
  nothing is ever restamped with a later run's environment;
- every record carries the hashes of what decided it (:meth:`Case.hashes`): the snippet and
  the files it runs or reads, the merged expectation, the engine code, the framework version.
  A record whose hashes differ from the current sources is **stale**, and a stale record is
  never looked up as passed.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

from verified.claims import FRAMEWORKS, ROOT, SNIPPETS, Case, Claim, _merge, discover
from verified.context import RunContext, host, now  # noqa: F401 (verified.stamps reads host)
from verified.versions import installed

SCHEMA = 2
REPORT = ROOT / "build" / "claims.json"
RESULTS = ROOT / "results"
STATUSES = ("passed", "failed", "skipped", "not-runnable")
# `nox -s site` sets it: a claim that failed on this machine is shown as failed on its page
# (with what was observed and expected) instead of failing the build. Tests, CI and the
# publishing workflow never set it: there a failed claim fails the build.
SHOW_FAILED = "AUTOGRAD_SHOW_FAILED"


def show_failed() -> bool:
    return os.environ.get(SHOW_FAILED) == "1"


class ReportError(RuntimeError):
    pass


def environment(info: dict, device: str, context: RunContext) -> dict:
    """Where one case ran: from its worker's description (``info``) and the run's ``context``
    (never from this process's state at the time: see :mod:`verified.context`)."""
    gpu = info.get("gpu") if device == "gpu" else None
    framework = info.get("framework")
    return {
        "framework": framework,
        "version": context.versions.get(framework) if framework else None,
        "module_version": info.get("version"),
        "versions": {fw: context.versions.get(fw) for fw in FRAMEWORKS},
        "device": device,
        "gpu": gpu,
        "cuda": info.get("cuda") if device == "gpu" else None,
        "python": info.get("python") or context.python,
        "platform": context.platform,
        "cpu": context.host["cpu"],
        "host": dict(context.host),
        # the C allocator's settings the case's process ran with (MALLOC_* variables and
        # GLIBC_TUNABLES; {} is glibc's defaults); None where no process was started
        "allocator": info.get("allocator"),
        "date": context.date(),
        **({"gpu_host": info["gpu_host"]} if gpu and info.get("gpu_host") else {}),
    }


def record(
    case: Case,
    *,
    status: str,
    env: dict,
    observed: dict | None = None,
    reason: str | None = None,
    context: RunContext | None = None,
) -> dict:
    """The report entry of one case; its engine hash is the run ``context``'s (default: the
    engine code's now)."""
    if status not in STATUSES:
        raise ValueError(f"unknown status {status!r}")
    base = case.claim.path.parent.parent
    engine = context.engine_hash if context else None
    if observed and isinstance(observed.get("allocator"), dict):
        env = {**env, "allocator": observed["allocator"]}  # the case's own process
    if observed and isinstance(observed.get("thp"), dict):
        env = {**env, "thp": observed["thp"]}  # the system's huge-page mode, the process's own
    rec = {
        "id": case.claim.id,
        "kind": case.claim.kind,
        "framework": case.framework,
        "device": case.device,
        "status": status,
        "reason": reason,
        "expected": case.expected(),
        "override": _shown_override(case.override),
        "observed": observed,
        "snippet": case.snippet_path.relative_to(base).as_posix(),
        "files": case.relative_files(),
        "claims_file": case.claim.path.relative_to(base.parent).as_posix(),
        "hashes": case.hashes(engine),
        "source_hash": case.source_hash(engine),
        "env": env,
    }
    if observed and "duration_s" in observed:
        rec["duration_s"] = observed["duration_s"]
    return rec


def _shown_override(override: dict | None) -> dict | None:
    if not override:
        return None
    return {"range": override["range"], "note": override["note"]}


def key_of(rec: dict) -> tuple[str, str, str]:
    return rec["id"], rec["framework"], rec["device"]


def _claims_by_id(snippets: Path) -> dict[str, Claim]:
    return {claim.id: claim for claim in discover(snippets)}


def case_for(claims: dict[str, Claim], rec: dict, version: str | None) -> Case | None:
    """The current case a record answers, merged for ``version``; None if it is gone."""
    claim = claims.get(rec["id"])
    if claim is None or rec["device"] not in claim.devices:
        return None
    if version is None:  # not installed where it ran (a GPU run records its cases as skipped)
        spec, override = _merge(claim.raw, rec["framework"], rec["device"], None)
        return Case(claim, rec["framework"], rec["device"], spec, None, override)
    return claim.case(rec["framework"], rec["device"], version)


def staleness(
    rec: dict, case: Case | None, version: str | None, engine: str | None = None
) -> str | None:
    """None if ``rec`` answers ``case`` (which was merged for ``version``) under the engine
    whose hash is ``engine`` (default: the engine code's now), else why not."""
    if case is None:
        return "the claim or this framework/device no longer exists"
    hashes = rec.get("hashes") or {}
    current = case.hashes(engine)
    ran_on = (rec.get("env") or {}).get("version")
    if ran_on != version:
        return f"ran on {rec['framework']} {ran_on}, expected {version}"
    if hashes.get("engine") != current["engine"]:
        return "the engine code changed since it ran"
    if hashes.get("inputs") != current["inputs"]:
        return "the snippet, a file it reads or the expectation changed since it ran"
    if rec.get("source_hash") != case.source_hash(engine):
        return "its hash does not match the current sources"
    return None


REUSABLE = ("passed", "skipped", "not-runnable")  # a failed case always runs again


def reusable(
    cases: list[Case], path: Path = REPORT, context: RunContext | None = None
) -> dict[str, dict]:
    """Records of the report at ``path`` that can stand for a new run of these cases: every
    input unchanged (snippet and the files it reads, expectation, engine, framework release:
    not stale), run on this host (processor, cores, C library, kernel) with this Python, and
    not failed; this host, Python and engine are the run ``context``'s (default: captured
    now). Case name -> record."""
    context = context or RunContext.capture()
    if not path.exists():
        return {}
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except json.JSONDecodeError:
        return {}
    if old.get("schema") != SCHEMA:
        return {}
    records = {key_of(rec): rec for rec in old.get("claims", [])}
    found = {}
    for case in cases:
        rec = records.get((case.claim.id, case.framework, case.device))
        if rec is None or rec.get("status") not in REUSABLE:
            continue
        env = rec.get("env") or {}
        if env.get("host") != dict(context.host) or env.get("python") != context.python:
            continue
        if staleness(rec, case, case.version, context.engine_hash) is None:
            found[case.name] = rec
    return found


def write(
    records: list[dict],
    path: Path = REPORT,
    *,
    name: str = "this build",
    snippets: Path = SNIPPETS,
    versions: dict[str, str | None] | None = None,
    context: RunContext | None = None,
) -> dict:
    """Write a report: the new records, plus the records of the previous report at ``path``
    that are still fresh for ``versions`` (default: the run ``context``'s, else the installed
    ones) and its engine, each with its own environment. Records of claims that no longer
    exist are dropped; so are records of this run whose claim was edited away while it ran.
    The report is dated by the context's clock (default: now)."""
    claims = _claims_by_id(snippets)
    engine = context.engine_hash if context else None

    def version_of(framework: str) -> str | None:
        if context is not None:
            return (versions or {}).get(framework) or context.versions.get(framework)
        return (versions or {}).get(framework) or installed(framework)

    merged: dict[tuple, dict] = {}
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            old = {}
        if old.get("schema") == SCHEMA:
            for rec in old.get("claims", []):
                version = version_of(rec["framework"])
                if staleness(rec, case_for(claims, rec, version), version, engine) is None:
                    merged[key_of(rec)] = rec
    for rec in records:
        if case_for(claims, rec, rec["env"].get("version")) is not None:
            merged[key_of(rec)] = rec
    order = [
        (claim.id, fw, dev)
        for claim in claims.values()
        for fw in FRAMEWORKS
        for dev in claim.devices
    ]
    rank = {key: i for i, key in enumerate(order)}
    report = {
        "schema": SCHEMA,
        "name": name,
        "generated": context.date() if context else now(),
        "claims": sorted(merged.values(), key=lambda r: rank[key_of(r)]),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


@dataclass
class Entry:
    """A record as pages see it: the record, the report it came from, and its state."""

    rec: dict
    report: Report
    stale: str | None  # why it is stale, or None
    # The version override the claims declare now for the release the record ran on (range and
    # note), or None: pages read a note from here, not from the record's copy. A note is prose
    # outside the record's hash, so rewording it leaves the record fresh; the pages show the
    # wording of today's claims.toml without a rerun of the release. Whether an override
    # applies is in the hash (an override always changes an expectation or makes the case
    # unrunnable), so a fresh record has one exactly when the declaration has one.
    override: dict | None = None

    @property
    def status(self) -> str:
        return "stale" if self.stale else self.rec["status"]

    @property
    def env(self) -> dict:
        return self.rec.get("env") or {}


class Report:
    """One report file. ``live`` reports are checked against the installed framework versions;
    environment reports against the version each record ran on."""

    def __init__(
        self,
        path: Path,
        *,
        live: bool,
        snippets: Path = SNIPPETS,
        versions: dict[str, str | None] | None = None,
        judge_once: bool = False,
    ) -> None:
        if not path.exists():
            raise ReportError(
                f"{_shown(path)} not found: run the claims first (`nox -s tests`, or "
                "`pytest snippets`)"
            )
        try:
            self.data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            raise ReportError(f"{_shown(path)} is not valid JSON: {exc}") from None
        if self.data.get("schema") != SCHEMA:
            raise ReportError(
                f"{_shown(path)} has schema {self.data.get('schema')!r}, expected {SCHEMA}: "
                "run the claims again"
            )
        self.path, self.live, self.snippets = path, live, snippets
        self.versions = versions or {}  # instead of the installed versions (live reports)
        self.name = self.data.get("name") or path.stem
        for rec in self.data["claims"]:  # a record edited by hand: refused, never shown raw
            if rec.get("status") not in STATUSES:
                raise ReportError(
                    f"{_shown(path)}: {case_name(rec['id'], rec['framework'], rec['device'])} "
                    f"has status {rec.get('status')!r}, not one of {', '.join(STATUSES)}: run "
                    "the claims again"
                )
        self.records = {key_of(r): r for r in self.data["claims"]}
        # ``judge_once``: each record's entry is judged once and kept, for a build (Reports),
        # which reads the reports once (verified.pages.site reads them again when `mkdocs serve`
        # rebuilds) and asks for the same records thousands of times; judging one hashes every
        # file its case reads. Otherwise each call judges the record against the files now.
        self._entries: dict[tuple[str, str, str], Entry] | None = {} if judge_once else None

    @cached_property
    def claims(self) -> dict[str, Claim]:
        return _claims_by_id(self.snippets)

    def expected_version(self, rec: dict) -> str | None:
        if self.live:
            return self.versions.get(rec["framework"]) or installed(rec["framework"])
        return (rec.get("env") or {}).get("version")

    def entry(self, rec: dict) -> Entry:
        known = None if self._entries is None else self._entries.get(key_of(rec))
        if known is not None and known.rec is rec:
            return known
        version = self.expected_version(rec)
        case = case_for(self.claims, rec, version)
        why = staleness(rec, case, version)
        entry = Entry(rec, self, why, _shown_override(case.override) if case else None)
        if self._entries is not None:
            self._entries[key_of(rec)] = entry
        return entry

    def entries(self) -> list[Entry]:
        return [self.entry(rec) for rec in self.records.values()]

    def stale(self) -> list[tuple[str, str]]:
        """(case name, why) for every stale record."""
        return [
            (f"{e.rec['id']}[{e.rec['framework']}-{e.rec['device']}]", e.stale)
            for e in self.entries()
            if e.stale
        ]


def _shown(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def case_name(claim_id: str, framework: str, device: str) -> str:
    return f"{claim_id}[{framework}-{device}]"


class Reports:
    """The live report and every environment report, as the site reads them."""

    def __init__(
        self,
        live: Path = REPORT,
        results: Path = RESULTS,
        snippets: Path = SNIPPETS,
        versions: dict[str, str | None] | None = None,
        failed_shown: bool | None = None,
    ) -> None:
        self.live = Report(live, live=True, snippets=snippets, versions=versions, judge_once=True)
        # the build's setting: whether pages mark what did not pass instead of refusing it
        # (default: the SHOW_FAILED variable); verified.pages.standing decides with it, lookup
        # here never does
        self.failed_shown = show_failed() if failed_shown is None else failed_shown
        self.others = [
            Report(p, live=False, snippets=snippets, judge_once=True)
            for p in sorted(results.glob("*.json"))
        ]
        self.snippets = snippets

    @property
    def all(self) -> list[Report]:
        return [self.live, *self.others]

    @cached_property
    def claims(self) -> list[Claim]:
        return discover(self.snippets)

    def get(self, claim_id: str, framework: str, device: str = "cpu", *, where: str = "") -> dict:
        """The record of a case that passed and is fresh: CPU from the live report; GPU from
        the live report or else from an environment report. Anything else raises, naming the
        claim, whatever the build's setting (pages ask :mod:`verified.pages.standing`)."""
        return self.entry(claim_id, framework, device, where=where).rec

    def entry(self, claim_id: str, framework: str, device: str, *, where: str) -> Entry:
        prefix = f"{where}: " if where else ""
        name = case_name(claim_id, framework, device)
        sources = [self.live] if device == "cpu" else self.all
        found = [
            r.entry(r.records[(claim_id, framework, device)])
            for r in sources
            if (claim_id, framework, device) in r.records
        ]
        passed = [e for e in found if e.status == "passed"]
        if passed:
            return max(passed, key=lambda e: e.env.get("date") or "")
        if not found:
            raise ReportError(
                f"{prefix}claim {name} is not in {_shown(self.live.path)}"
                + (" or results/" if device == "gpu" else "")
                + " (unknown id, or the claims were not run)"
            )
        entry = found[0]
        if entry.stale:
            raise ReportError(
                f"{prefix}claim {name} is stale in {_shown(entry.report.path)}: {entry.stale}; "
                "run the claims again"
            )
        raise ReportError(
            f"{prefix}claim {name} {entry.status} in {_shown(entry.report.path)}: "
            f"{entry.rec.get('reason')}"
        )

    def entries_for(self, claim_id: str, framework: str, device: str) -> list[Entry]:
        """Every report's record of one case, live report first."""
        key = (claim_id, framework, device)
        return [r.entry(r.records[key]) for r in self.all if key in r.records]


# -- freshness of the live report ---------------------------------------------------------------


def freshness(
    path: Path = REPORT,
    snippets: Path = SNIPPETS,
    versions: dict[str, str | None] | None = None,
) -> str:
    """'fresh' if the report holds a passed, skipped or not-runnable record, from the current
    sources and installed versions, for every declared case; otherwise why not."""
    if not path.exists():
        return f"missing: {_shown(path)}"
    try:
        rep = Report(path, live=True, snippets=snippets, versions=versions)
    except ReportError as exc:
        return f"unreadable: {exc}"
    for claim in rep.claims.values():
        for fw in FRAMEWORKS:
            for dev in claim.devices:
                name = case_name(claim.id, fw, dev)
                rec = rep.records.get((claim.id, fw, dev))
                if rec is None:
                    return f"stale: no result for {name}"
                if rec["status"] == "failed":
                    return f"stale: {name} failed"
                why = rep.entry(rec).stale
                if why:
                    return f"stale: {name}: {why}"
    return "fresh"


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--check"]:
        print(freshness())
    else:
        sys.exit("usage: python -m verified.report --check")
