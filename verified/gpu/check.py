"""What makes a GPU report wrong: checks of the kit's own output (:func:`run_problems`, used by
the simulation test) and of the GPU reports committed under ``results/`` (:func:`report_problems`,
called by :func:`verified.results.results_problems`).
"""

from __future__ import annotations

from pathlib import Path

from verified.claims import SNIPPETS, Case
from verified.report import SCHEMA, Report, ReportError, case_name

KIT = "python3 -m verified.gpu on a GPU machine (README: Running on a GPU)"


def run_problems(
    report: dict,
    cases: dict[tuple[str, str, str], Case],
    *,
    installed: dict[str, str | None],
    cuda: bool,
) -> list[str]:
    """Why ``report`` (a report the kit wrote) is not what a run on a machine with these
    framework versions, with or without CUDA, must write: one record for each GPU case in
    ``cases`` and no other; a framework that is not installed has every case skipped for that
    reason, never passed; without CUDA nothing passed either; a record says which release it
    ran on; the host is described."""
    problems = []
    if report.get("schema") != SCHEMA:
        problems.append(f"schema {report.get('schema')!r}, expected {SCHEMA}")
    seen: dict[tuple, int] = {}
    for rec in report.get("claims", []):
        key = (rec["id"], rec["framework"], rec["device"])
        seen[key] = seen.get(key, 0) + 1
        name = case_name(*key)
        if key not in cases:
            problems.append(f"{name}: not a declared GPU case")
            continue
        fw, status = rec["framework"], rec["status"]
        skip = (rec.get("skip") or {}).get("code")
        version = (rec.get("env") or {}).get("version")
        if installed.get(fw) is None:
            if status != "skipped" or skip != "not_installed":
                problems.append(
                    f"{name}: {fw} is not installed, yet the case is {status} "
                    f"(skip code {skip!r}), not skipped as not installed"
                )
            elif "is not installed on this machine" not in str(rec.get("reason")):
                problems.append(f"{name}: the reason does not say it is not installed")
        elif version != installed[fw]:
            problems.append(f"{name}: ran on {fw} {version}, but {installed[fw]} is installed")
        elif not cuda and status != "skipped":
            problems.append(f"{name}: {status} on a machine without CUDA")
        elif status == "skipped" and not rec.get("reason"):
            problems.append(f"{name}: skipped without a reason")
        if status == "passed" and not (rec.get("env") or {}).get("gpu"):
            problems.append(f"{name}: passed, but its environment names no GPU")
    problems += [f"{case_name(*key)}: no record" for key in cases if key not in seen]
    problems += [f"{case_name(*key)}: {n} records" for key, n in seen.items() if n > 1]
    host = report.get("host") or {}
    for key in ("gpu", "cpu", "cores", "python", "frameworks", "pytest"):
        if key not in host:
            problems.append(f"host: no {key!r}")
    if not cuda and host.get("gpu") is None and not host.get("no_gpu"):
        problems.append("host: no GPU, and no reason why")
    return problems


def report_problems(path: Path, snippets: Path = SNIPPETS) -> list[str]:
    """Why a committed GPU report cannot be shown as it is: unreadable, misnamed, a record of
    another device, a failure no expectation declares, or no case that passed on a GPU.

    Stale records are no problem here: nothing but a GPU machine can refresh them, and pages
    never show a stale record as passed (the verification page marks it stale). Cases
    declared after the run have no record and are shown as not run, from the live report."""
    shown = f"results/{path.name}"
    try:
        report = Report(path, live=False, snippets=snippets)
    except ReportError as exc:
        return [f"{exc} (run {KIT})"]
    problems = []
    if report.name != path.stem:
        problems.append(f"{shown}: its name is {report.name!r}, not {path.stem!r}")
    passed = 0
    for entry in report.entries():
        rec, env = entry.rec, entry.env
        name = case_name(rec["id"], rec["framework"], rec["device"])
        passed += rec["status"] == "passed"  # stale or not: it ran on a GPU
        if rec["device"] != "gpu":
            problems.append(f"{shown}: {name} is not a GPU case")
        elif entry.stale:
            continue
        elif rec["status"] == "failed":
            problems.append(
                f"{shown}: {name} failed on {env.get('gpu')} with {rec['framework']} "
                f"{env.get('version')} ({str(rec.get('reason'))[:200]}): declare what the GPU "
                f"does in the claim's expect.{rec['framework']}.gpu table (or, if the release "
                f"decides it, a [[claim.expect.{rec['framework']}.versions]] range), with the "
                "observed value and why in a comment, or fix the snippet; then run the kit again"
            )
        elif rec["status"] == "passed" and not env.get("gpu"):
            problems.append(f"{shown}: {name} passed, but its environment names no GPU")
    if not passed and not problems:
        problems.append(f"{shown}: no case passed on a GPU: not a GPU report to keep")
    return problems
