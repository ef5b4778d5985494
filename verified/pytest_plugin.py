"""pytest plugin: one test item per (claim, framework, device), and the report at the end.

Items are collected from ``snippets/<article>/claims.toml`` and named like
``inplace.leaf-error[paddle-cpu]``. Registered by the root ``conftest.py``.

The cases run in the background from the start of the session, on both cores: one lane
per framework runs that framework's cheap cases in its worker, a third runs the cases that
need a fresh process, and the other tests run meanwhile. The timing cases run last, one at a
time, with nothing else running. Each item waits for its case's result and reports it. ``AUTOGRAD_REPORT`` names another report file (``nox -s matrix`` writes
``results/<environment>.json``), and ``AUTOGRAD_REPORT_NAME`` its name.

Every record is made from the run context (:mod:`verified.context`: host, framework releases,
engine hash, clock, the workers' environment) captured when the lanes start, before any test
runs: a test that patches a module global or sets an environment variable meanwhile changes
nothing a record says or a worker inherits. Likewise the functions that run and judge a case
and wait for the work beside the run are the scheduler's own, taken when it is made: a test
that patches ``judge`` (as the plugin's own tests do, for a pytest run of their own inside this
one) does not judge the real claims running meanwhile.
"""

from __future__ import annotations

import os
import threading
import time
from concurrent.futures import Future
from pathlib import Path

import pytest

from verified.claims import FRAMEWORKS, Case, ClaimError, load_claims
from verified.context import RunContext
from verified.report import environment, record, reusable, write
from verified.runner import WORKER_MODULE, Runner, judge

# Process ids (space-separated) of work that was started beside this run, on the same machine
# (CI installs the browser tests' virtualenv and runs the linter while the claim lanes run): the
# tests marked ``alone`` and the timing cases wait until each of them has ended.
BESIDE = "AUTOGRAD_ALONE_AFTER"

SCHEDULER_KEY = pytest.StashKey["Scheduler"]()
RECORDS_KEY = pytest.StashKey[list]()
SUMMARY_KEY = pytest.StashKey[dict]()
REUSED_KEY = pytest.StashKey[int]()


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fresh",
        action="store_true",
        help="run every claim case again, even those whose result from this host and these "
        "inputs is in the report (also the default where the CI variable is set)",
    )


def reuse_enabled(config: pytest.Config) -> bool:
    """Whether unchanged results may stand for a new run: not with --fresh, not in CI."""
    fresh = config.getoption("fresh", False) or os.environ.get("AUTOGRAD_FRESH") == "1"
    return not fresh and not os.environ.get("CI")


def report_path(config: pytest.Config) -> Path:
    root = config.rootpath
    return Path(os.environ.get("AUTOGRAD_REPORT") or root / "build" / "claims.json")


def pytest_configure(config: pytest.Config) -> None:
    config.stash[RECORDS_KEY] = []
    config.addinivalue_line("markers", "claim: a claim case run by the claims engine")
    config.addinivalue_line(
        "markers", "alone: timing-sensitive; runs after the claim lanes, with nothing else running"
    )


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


def run_case(runner: Runner, case: Case, context: RunContext, judge=judge) -> dict:
    """Run one case and return its report record, made from the run ``context`` and judged by
    ``judge`` (never raises for snippet failures)."""
    info = runner.info(case.framework)
    env = environment(info, case.device, context)
    reason = runner.skip_reason(case)
    if reason:
        rec = record(case, status="skipped", env=env, reason=reason, context=context)
        rec["skip"] = {"code": info.get("why_no_gpu_code"), "version": info.get("version")}
        return rec
    observed = runner.observe(case)
    status, problem = judge(case, observed)
    return record(case, status=status, env=env, observed=observed, reason=problem, context=context)


def beside_pids(environ: dict[str, str]) -> tuple[int, ...]:
    """The process ids that ``BESIDE`` names in ``environ`` (none if unset or empty)."""
    value = environ.get(BESIDE, "")
    try:
        pids = tuple(int(word) for word in value.split())
    except ValueError:
        raise pytest.UsageError(
            f"{BESIDE}={value!r}: expected process ids separated by spaces"
        ) from None
    if any(pid <= 0 for pid in pids):
        raise pytest.UsageError(f"{BESIDE}={value!r}: a process id is a positive number")
    return pids


def process_running(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie, ended but not yet waited
    for by its parent, has ended)."""
    try:  # bytes: a process's name may be any bytes, not text
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return False
    return stat.rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")


def wait_for_processes(pids: tuple[int, ...], poll: float = 0.2) -> float:
    """Until none of ``pids`` runs; the seconds it waited."""
    started = time.perf_counter()
    while any(process_running(pid) for pid in pids):
        time.sleep(poll)
    return time.perf_counter() - started


class Scheduler:
    """Runs the selected cases. From the start of the session, three lanes run in the
    background: each framework's cheap cases in its long-lived worker, and the cases that need
    a fresh process (both frameworks) in a third lane with its own templates; meanwhile the
    other tests run on the main thread. The timing cases run last, on the main thread, once
    the lanes have ended: their items come after everything else (see
    ``pytest_collection_modifyitems``), so nothing else runs while they are timed. Every
    record and every worker's environment comes from ``context`` (default: captured now)."""

    module = WORKER_MODULE  # the workers' module (the engine's tests use a stand-in)

    def __init__(
        self,
        cases: list[Case],
        reused: dict[str, dict] | None = None,
        context: RunContext | None = None,
    ) -> None:
        self.context = context or RunContext.capture()
        # this module's functions as they are now: a test that patches one later (for a run of
        # its own) reaches only the schedulers made after its patch, never this run's records
        self.run_case, self.judge, self.wait = run_case, judge, wait_for_processes
        self.beside = beside_pids(os.environ)  # now, before a test could change the variable
        self.waited_beside: float | None = None  # seconds the timing cases waited for them
        self.reused = reused or {}  # case name -> the unchanged record that stands for it
        cases = [case for case in cases if case.name not in self.reused]
        self.futures: dict[str, Future] = {
            case.name: Future() for case in cases if case.claim.kind != "timing"
        }
        lanes = {
            fw: [c for c in cases if c.framework == fw and not c.isolated] for fw in FRAMEWORKS
        }
        lanes["fresh"] = [c for c in cases if c.isolated and c.claim.kind != "timing"]
        for todo in lanes.values():  # the longest first (a claim that declares a longer time
            todo.sort(key=lambda c: -c.timeout)  # limit runs longer): the lanes end together
        infos: dict[str, dict] = {}  # one worker per framework tells every lane its versions
        self.runners = {lane: Runner(self.module, infos, self.context) for lane in lanes}
        # the fresh lane waits for the framework's own lane to have started its worker (and so
        # learnt the versions) rather than start a second one of its own
        self.known = {fw: threading.Event() for fw in FRAMEWORKS}
        self.stopping = threading.Event()
        self.threads = [
            threading.Thread(
                target=self._lane, args=(lane, todo), name=f"claims-{lane}", daemon=True
            )
            for lane, todo in lanes.items()
        ]
        for thread in self.threads:
            thread.start()

    def _lane(self, lane: str, cases: list[Case]) -> None:
        runner = self.runners[lane]
        try:
            if lane in self.known:  # a framework's lane: its worker starts first
                try:
                    if cases:
                        runner.info(lane)
                except Exception as exc:  # noqa: BLE001 (every case of the lane reports it)
                    for case in cases:
                        self.futures[case.name].set_exception(exc)
                    return
                finally:
                    self.known[lane].set()
            for case in cases:
                if lane == "fresh":
                    self.known[case.framework].wait()
                future = self.futures[case.name]
                if self.stopping.is_set():
                    future.cancel()
                    continue
                try:
                    future.set_result(self.run_case(runner, case, self.context, self.judge))
                except Exception as exc:  # noqa: BLE001 (a harness failure is that item's error)
                    future.set_exception(exc)
        finally:
            if lane != "fresh":  # the fresh lane's templates serve the timing cases later
                runner.close_workers()

    def wait_for_lanes(self) -> None:
        """Until every lane has ended, its workers closed (the fresh lane's templates stay),
        and every process started beside this run (``BESIDE``) has ended."""
        for thread in self.threads:
            thread.join()
        if self.waited_beside is None:
            self.waited_beside = self.wait(self.beside)

    def result(self, case: Case) -> dict:
        if case.name in self.reused:
            return self.reused[case.name]
        if case.claim.kind != "timing":
            return self.futures[case.name].result()
        self.wait_for_lanes()  # nothing else may run while a case is timed
        return self.run_case(self.runners["fresh"], case, self.context, self.judge)

    def close(self) -> None:
        self.stopping.set()
        for thread in self.threads:
            thread.join()
        for runner in self.runners.values():
            runner.stop_workers()  # all of them end side by side
        for runner in self.runners.values():
            runner.close()


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
        context = RunContext.capture()  # before any test: nothing a test patches reaches it
        cases = [item.case for item in session.items if isinstance(item, ClaimItem)]
        reused = reusable(cases, report_path(config), context) if reuse_enabled(config) else {}
        config.stash[REUSED_KEY] = len(reused)
        config.stash[SCHEDULER_KEY] = Scheduler(cases, reused, context)
    return config.stash[SCHEDULER_KEY]


def pytest_collection_modifyitems(items):
    """The other tests first (the claim lanes run meanwhile), then the claims' results as they
    arrive, then the tests marked ``alone``, then the timing claims: the last two run with
    nothing else running."""

    def place(item) -> tuple[int, bool]:
        if isinstance(item, ClaimItem):
            return (3, False) if item.case.claim.kind == "timing" else (1, item.case.isolated)
        return (2 if item.get_closest_marker("alone") else 0, False)

    items.sort(key=place)  # stable: the collection order within each group


def pytest_runtest_setup(item: pytest.Item) -> None:
    if item.get_closest_marker("alone") and SCHEDULER_KEY in item.config.stash:
        item.config.stash[SCHEDULER_KEY].wait_for_lanes()


@pytest.hookimpl(wrapper=True)
def pytest_runtestloop(session: pytest.Session):
    start_lanes(session)
    return (yield)


def start_lanes(session: pytest.Session) -> None:
    """The claims' lanes start now, before the first test, where the run has claims and runs
    them (undecorated: mutmut does not mutate a decorated function)."""
    if not session.config.option.collectonly and any(
        isinstance(item, ClaimItem) for item in session.items
    ):
        scheduler_for(session)


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    records = config.stash.get(RECORDS_KEY, [])
    scheduler = config.stash.get(SCHEDULER_KEY, None)
    if scheduler is None:
        return
    scheduler.close()
    if not records:
        return
    target = report_path(config)
    name = os.environ.get("AUTOGRAD_REPORT_NAME", "this build")
    report = write(
        records, target, name=name, snippets=config.rootpath / "snippets", context=scheduler.context
    )
    counts: dict[str, int] = {}
    for rec in report["claims"]:
        counts[rec["status"]] = counts.get(rec["status"], 0) + 1
    config.stash[SUMMARY_KEY] = {
        "path": target,
        "counts": counts,
        "reused": config.stash.get(REUSED_KEY, 0),
        "beside": (scheduler.beside, scheduler.waited_beside),
    }


def pytest_terminal_summary(terminalreporter, config):
    summary = config.stash.get(SUMMARY_KEY, None)
    if summary:
        counts = ", ".join(f"{n} {status}" for status, n in sorted(summary["counts"].items()))
        try:
            shown = summary["path"].relative_to(config.rootpath)
        except ValueError:
            shown = summary["path"]
        terminalreporter.write_line(f"claims report: {shown} ({counts})")
        pids, waited = summary["beside"]
        if pids:
            if waited is None:
                said = "not waited for: nothing ran alone"
            elif waited < 0.05:
                said = "had ended when the tests that run alone started"
            else:
                said = f"the tests that run alone waited {waited:.1f} s for it to end"
            terminalreporter.write_line(
                f"work started beside this run ({BESIDE}={' '.join(map(str, pids))}): {said}"
            )
        if summary["reused"]:
            terminalreporter.write_line(
                f"{summary['reused']} case(s) not run again: their result from this host, with "
                "every input unchanged, stands (--fresh runs them)"
            )
