"""The committed environment reports (``results/*.json``): whether each can be shown as it is.

A matrix environment's report (``nox -s matrix``) must hold a fresh result, on its own
release, for every CPU claim of its framework; a GPU report (``python3 -m verified.gpu``) is
checked by :func:`verified.gpu.check.report_problems`. Kept apart from :mod:`verified.report`,
which both of them build on.
"""

from __future__ import annotations

from pathlib import Path

from verified.claims import SNIPPETS
from verified.gpu.check import report_problems
from verified.report import RESULTS, Report, ReportError, case_name
from verified.versions import release


def results_problems(
    results: Path = RESULTS, snippets: Path = SNIPPETS, environments: list | None = None
) -> list[str]:
    """Why the committed environment reports cannot be shown as they are: a report missing for
    a declared environment (or not declared), a record that ran on another release than its
    environment's, a stale record, a failed one (a difference no version override declares).
    Each problem names the case and the command that refreshes it."""
    from verified.matrix import environments as declared

    envs = {e.name: e for e in (environments if environments is not None else declared())}
    problems = []
    files = {p.stem: p for p in sorted(results.glob("*.json"))}
    for name, env in envs.items():
        refresh = f"`nox -s \"matrix(env='{name}')\"`"
        path = files.get(name)
        if path is None:
            problems.append(f"results/{name}.json is missing: run {refresh}")
            continue
        try:
            report = Report(path, live=False, snippets=snippets)
        except ReportError as exc:
            problems.append(f"{exc} (run {refresh})")
            continue
        for entry in report.entries():
            rec = entry.rec
            name_of = case_name(rec["id"], rec["framework"], rec["device"])
            if rec["framework"] != env.framework or rec["device"] != "cpu":
                problems.append(f"results/{name}.json: {name_of} is not a {env.framework} CPU case")
            elif release(entry.env.get("version")) != env.version:
                problems.append(
                    f"results/{name}.json: {name_of} ran on {env.framework} "
                    f"{entry.env.get('version')}, not {env.version}: run {refresh}"
                )
            elif entry.stale:
                problems.append(
                    f"results/{name}.json: {name_of} is stale ({entry.stale}): run {refresh}"
                )
            elif rec["status"] == "failed":
                problems.append(
                    f"results/{name}.json: {name_of} failed on {env.framework} {env.version} "
                    f"({str(rec.get('reason'))[:200]}): declare the difference with a "
                    f"[[claim.expect.{env.framework}.versions]] override, then run {refresh}"
                )
        ran = {(r["id"], r["framework"]) for r in report.records.values()}
        for claim in report.claims.values():
            if "cpu" in claim.devices and (claim.id, env.framework) not in ran:
                problems.append(f"results/{name}.json: no result for {claim.id}: run {refresh}")
    for name in sorted(set(files) - set(envs)):
        if name.startswith("gpu-"):  # a GPU run (python3 -m verified.gpu), not a matrix release
            problems += report_problems(files[name], snippets)
            continue
        problems.append(f"results/{name}.json is not an environment of results/matrix.toml")
    return problems
