"""pytest plugin: one test item per (claim, framework, device), and the report at the end.

Items are collected from ``snippets/<article>/claims.toml`` and named like
``inplace.leaf-error[paddle-cpu]``. Registered by the root ``conftest.py``.

The cases run ahead of the items, on both cores: one lane per framework runs that
framework's cases in order (each lane has its own worker processes), and the timing cases
run last, one at a time, with nothing else running. Each item waits for its case's result
and reports it. ``AUTOGRAD_REPORT`` names another report file (``nox -s matrix`` writes
``results/<environment>.json``), and ``AUTOGRAD_REPORT_NAME`` its name.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import Future
from pathlib import Path

import pytest

from verified.claims import FRAMEWORKS, Case, ClaimError, load_claims
from verified.report import environment, record, write
from verified.runner import Runner, judge

SCHEDULER_KEY = pytest.StashKey["Scheduler"]()
RECORDS_KEY = pytest.StashKey[list]()
SUMMARY_KEY = pytest.StashKey[dict]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[RECORDS_KEY] = []
    config.addinivalue_line("markers", "claim: a claim case run by the claims engine")


def pytest_collect_file(file_path, parent):
    if file_path.name == "claims.toml" and file_path.parent.parent.name == "snippets":
        return ClaimsFile.from_parent(parent, path=file_path)
    return None


class ClaimsFile(pytest.File):
    def collect(self):
        try:
            claims = load_claims(self.path)
        except ClaimError as exc:
            raise self.CollectError(str(exc)) from None
        for claim in claims:
            for case in claim.cases():
                item = ClaimItem.from_parent(self, name=case.name, case=case)
                item.add_marker(pytest.mark.claim)
                yield item


class ClaimFailed(AssertionError):
    pass


def run_case(runner: Runner, case: Case) -> dict:
    """Run one case and return its report record (never raises for snippet failures)."""
    info = runner.info(case.framework)
    env = environment(info, case.device)
    reason = runner.skip_reason(case)
    if reason:
        rec = record(case, status="skipped", env=env, reason=reason)
        rec["skip"] = {"code": info.get("why_no_gpu_code"), "version": info.get("version")}
        return rec
    observed = runner.observe(case)
    status, problem = judge(case, observed)
    return record(case, status=status, env=env, observed=observed, reason=problem)


class Scheduler:
    """Runs every selected case in the background: a lane per framework, then timing alone."""

    def __init__(self, cases: list[Case]) -> None:
        self.futures: dict[str, Future] = {case.name: Future() for case in cases}
        self.lanes = {
            fw: [c for c in cases if c.framework == fw and c.claim.kind != "timing"]
            for fw in FRAMEWORKS
        }
        self.timing = [c for c in cases if c.claim.kind == "timing"]
        self.runners = {fw: Runner() for fw in FRAMEWORKS}
        self.stopping = threading.Event()
        self.thread = threading.Thread(target=self._run, name="claims", daemon=True)
        self.thread.start()

    def _lane(self, cases: list[Case]) -> None:
        for case in cases:
            if self.stopping.is_set():
                self.futures[case.name].cancel()
                continue
            future = self.futures[case.name]
            try:
                future.set_result(run_case(self.runners[case.framework], case))
            except Exception as exc:  # noqa: BLE001 (a harness failure is that item's error)
                future.set_exception(exc)

    def _run(self) -> None:
        lanes = [
            threading.Thread(target=self._lane, args=(cases,), name=f"claims-{fw}", daemon=True)
            for fw, cases in self.lanes.items()
        ]
        for lane in lanes:
            lane.start()
        for lane in lanes:
            lane.join()
        for fw in FRAMEWORKS:  # the shared workers are done: free the cores for timing
            self.runners[fw].close_workers()
        self._lane(self.timing)

    def result(self, case: Case) -> dict:
        return self.futures[case.name].result()

    def close(self) -> None:
        self.stopping.set()
        self.thread.join()
        for runner in self.runners.values():
            runner.close()

    def infos(self) -> dict[str, dict]:
        return {fw: runner.infos[fw] for fw, runner in self.runners.items() if fw in runner.infos}


class ClaimItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        rec = scheduler_for(self.session).result(self.case)
        self.config.stash[RECORDS_KEY].append(rec)
        if rec["status"] == "skipped":
            pytest.skip(rec["reason"])
        if rec["status"] == "not-runnable":
            pytest.xfail(f"not runnable on this version, as declared: {rec['reason']}")
        if rec["status"] != "passed":
            raise ClaimFailed(rec["reason"])

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ClaimFailed):
            return f"{self.case.name} ({self.case.claim.path.name}): {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.case.name


def scheduler_for(session: pytest.Session) -> Scheduler:
    config = session.config
    if SCHEDULER_KEY not in config.stash:
        cases = [item.case for item in session.items if isinstance(item, ClaimItem)]
        config.stash[SCHEDULER_KEY] = Scheduler(cases)
    return config.stash[SCHEDULER_KEY]


def pytest_collection_modifyitems(items):
    # Claim items first, in the order their results arrive: both lanes interleaved, timing last.
    claim_items = [i for i in items if isinstance(i, ClaimItem)]
    others = [i for i in items if not isinstance(i, ClaimItem)]
    claim_items.sort(key=lambda i: (i.case.claim.kind == "timing", i.case.isolated))
    items[:] = claim_items + others


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    records = config.stash.get(RECORDS_KEY, [])
    scheduler = config.stash.get(SCHEDULER_KEY, None)
    if scheduler is None:
        return
    scheduler.close()
    if not records:
        return
    root = config.rootpath
    target = Path(os.environ.get("AUTOGRAD_REPORT") or root / "build" / "claims.json")
    name = os.environ.get("AUTOGRAD_REPORT_NAME", "this build")
    report = write(records, target, name=name, snippets=root / "snippets")
    counts: dict[str, int] = {}
    for rec in report["claims"]:
        counts[rec["status"]] = counts.get(rec["status"], 0) + 1
    config.stash[SUMMARY_KEY] = {"path": target, "counts": counts}


def pytest_terminal_summary(terminalreporter, config):
    summary = config.stash.get(SUMMARY_KEY, None)
    if summary:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(summary["counts"].items()))
        try:
            shown = summary["path"].relative_to(config.rootpath)
        except ValueError:
            shown = summary["path"]
        terminalreporter.write_line(f"claims report: {shown} ({counts})")
