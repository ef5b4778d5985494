"""The runner's process handling, with a stand-in worker (tests/fakeworker.py) instead of a
framework: which cases share a worker, which get a fresh one and where it starts, what a
timeout or a crash records, and that nothing is left running."""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest
from claimkit import CLAIMS, DATE, VERSIONS, context_for, make_snippets

from verified import runner as runner_module
from verified.claims import ROOT, all_cases
from verified.pytest_plugin import process_running
from verified.runner import Runner, Worker, WorkerDied, worker_env
from verified.versions import installed_versions

FAKE = "tests.fakeworker"


def with_env(**variables):
    """A run context whose workers start with ``variables`` set (this process's unchanged)."""
    return context_for(environ={**os.environ, **variables})


@pytest.fixture
def cases(tmp_path):
    return all_cases(make_snippets(tmp_path), VERSIONS)


@pytest.fixture
def runner():
    runner = Runner(module=FAKE)
    yield runner
    runner.close()


def alive(pid: int, settle: float = 3.0) -> bool:
    """Whether ``pid`` still runs once it had ``settle`` seconds to exit (a child that
    answered is allowed to finish exiting)."""
    deadline = time.monotonic() + settle
    while process_running(pid) and time.monotonic() < deadline:
        time.sleep(0.02)
    return process_running(pid)


def with_spec(case, **changes):
    return type(case)(case.claim, case.framework, case.device, {**case.spec, **changes},
                      case.version, case.override)  # fmt: skip


def test_worker_protocol_and_clean_up():
    worker = Worker("torch", "cpu", module=FAKE)
    assert worker.info["framework"] == "torch" and worker.info["version"] == "9.9.9"
    assert worker.alive()
    answer = worker.request({"id": "x", "n": 1}, timeout=10)
    assert answer["request"] == {"id": "x", "n": 1}
    assert Path(answer["cwd"]) == ROOT
    log = Path(worker.log.name)
    assert log.exists()
    worker.close()
    assert not worker.alive() and not log.exists()
    worker.close()  # closing twice is harmless


def test_a_dead_workers_message_is_the_last_twenty_lines_it_wrote_even_undecodable():
    """A framework's stderr may hold bytes that are not UTF-8 (a native library's message):
    the message of a dead worker keeps every line, with the bad bytes replaced."""
    worker = Worker("torch", "cpu", module=FAKE)
    try:
        with open(worker.log.name, "ab") as log:
            log.write(b"".join(b"line %d\n" % i for i in range(1, 25)) + b"bad \xff byte\n")
        assert worker.stderr_tail() == "\n".join(
            [*(f"line {i}" for i in range(6, 25)), "bad \ufffd byte"]
        )
    finally:
        worker.close()


def test_worker_start_failures():
    def env(start):
        return worker_env({**os.environ, "FAKE_WORKER_START": start}, None)

    with pytest.raises(WorkerDied) as excinfo:
        Worker("paddle", "cpu", module=FAKE, env=env("die"))
    assert str(excinfo.value) == (
        "worker exited (code 4):\nTraceback (most recent call last):\n"
        "ImportError: cannot import the framework"
    )
    with pytest.raises(TimeoutError, match=r"^no answer within 0.5 s$"):
        Worker("paddle", "cpu", start_timeout=0.5, module=FAKE, env=env("hang"))


def test_info_comes_from_one_cpu_worker(runner):
    info = runner.info("paddle")
    assert info["framework"] == "paddle" and info["device"] == "cpu"
    assert runner.info("paddle") is info
    assert list(runner.workers) == [("paddle", "cpu")]
    runner.close_workers()
    assert runner.workers == {} and runner.info("paddle") is info


def test_skip_reason_only_for_gpu_cases_without_cuda(runner, cases):
    gpu = cases[("fixture.chain", "torch", "gpu")]
    cpu = cases[("fixture.chain", "torch", "cpu")]
    assert runner.skip_reason(gpu) == "no GPU in the fake"
    assert runner.skip_reason(cpu) is None
    with_cuda = Runner(module=FAKE, context=with_env(FAKE_WORKER_CUDA="1"))
    try:
        assert with_cuda.skip_reason(gpu) is None
    finally:
        with_cuda.close()


def test_cheap_cases_share_a_worker_isolated_ones_get_a_fresh_one(runner, cases):
    grad = cases[("fixture.grad", "torch", "cpu")]
    launch = cases[("fixture.launch", "torch", "cpu")]
    first, second = runner.observe(grad), runner.observe(launch)
    assert first["pid"] == second["pid"] == runner.workers[("torch", "cpu")].proc.pid
    assert first["request"] == {
        "id": "fixture.grad",
        "kind": "value",
        "snippet": str(grad.snippet_path),
        "spec": grad.spec,
    }
    assert isinstance(first["duration_s"], float) and 0 <= first["duration_s"] < 60
    memory = runner.observe(cases[("fixture.chain", "torch", "cpu")])
    assert memory["pid"] != first["pid"] and not alive(memory["pid"])
    assert Path(memory["cwd"]) == ROOT
    template = runner.templates[runner.template_key("torch", "cpu")].proc.pid
    assert memory["parent"] == template != first["pid"]  # forked from the template
    assert memory["request"]["cwd"] == str(ROOT)
    script = runner.observe(with_spec(launch, mode="script"))
    assert script["pid"] not in (first["pid"], memory["pid"]) and not alive(script["pid"])
    assert Path(script["cwd"]) == launch.snippet_path.parent
    assert script["parent"] == template  # the same template, another fresh child
    assert runner.observe(grad)["pid"] == first["pid"]
    assert list(runner.workers) == [("torch", "cpu")]
    assert list(runner.templates) == [runner.template_key("torch", "cpu")]
    runner.close_workers()
    assert runner.templates == {} and not alive(template)


def test_a_gpu_script_case_starts_in_the_snippet_folder(cases):
    """Started anew (CUDA does not survive a fork) with the snippet's folder as its working
    directory: the worker module is still found, through PYTHONPATH."""
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_CUDA="1", PYTHONPATH="/nonexistent"))
    chain = cases[("fixture.chain", "torch", "gpu")]
    try:
        script = runner.observe(with_spec(chain, mode="script"))
    finally:
        runner.close()
    assert Path(script["cwd"]) == chain.snippet_path.parent
    assert script["parent"] == os.getpid() and "cwd" not in script["request"]
    assert script["tensor_devices"] == {"gpu": 1}  # it started with the context's environment


def test_isolated_gpu_cases_get_a_new_process(cases):
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_CUDA="1"))
    try:
        memory = runner.observe(cases[("fixture.chain", "torch", "gpu")])
        assert runner.templates == {}
    finally:
        runner.close()
    assert memory["parent"] == os.getpid()  # started by the runner, not forked: CUDA
    assert not alive(memory["pid"])
    assert memory["tensor_devices"] == {"gpu": 1}


def test_workers_start_from_the_run_context_not_from_this_process_now(cases, monkeypatch):
    """A variable set in this process after the run context was captured (as a test beside
    the claim lanes may) reaches no worker: not the long-lived one, not a template, not a
    fresh GPU process."""
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_CUDA="1"))
    monkeypatch.setenv("MALLOC_TOP_PAD_", "1")
    monkeypatch.setenv("FAKE_WORKER_CUDA", "0")
    try:
        cheap = runner.observe(cases[("fixture.grad", "torch", "cpu")])
        forked = runner.observe(cases[("fixture.chain", "torch", "cpu")])
        fresh = runner.observe(cases[("fixture.chain", "torch", "gpu")])
        assert runner.info("torch")["cuda_available"] is True
    finally:
        runner.close()
    for observed in (cheap, forked, fresh):
        assert "MALLOC_TOP_PAD_" not in observed["allocator"], observed
    assert fresh["tensor_devices"] == {"gpu": 1}


def test_a_timeout_is_recorded_and_the_worker_replaced(runner, cases):
    grad = cases[("fixture.grad", "paddle", "cpu")]
    before = runner.observe(grad)["pid"]
    hang = type(grad)(
        type(grad.claim)("hang", "value", grad.claim.path, grad.claim.statement, ("cpu",), grad.claim.raw),
        "paddle", "cpu", {**grad.spec, "timeout": 0.5}, grad.version,
    )  # fmt: skip
    observed = runner.observe(hang)
    assert observed["harness_error"] == "timed out: no answer within 0.5 s (limit 0.5 s)"
    assert observed["duration_s"] >= 0.5
    assert not alive(before)
    assert runner.observe(grad)["pid"] != before


def test_a_crash_is_recorded_with_the_worker_log(runner, cases):
    grad = cases[("fixture.grad", "torch", "cpu")]
    before = runner.observe(grad)["pid"]
    die = type(grad)(
        type(grad.claim)("die", "value", grad.claim.path, grad.claim.statement, ("cpu",), grad.claim.raw),
        "torch", "cpu", grad.spec, grad.version,
    )  # fmt: skip
    observed = runner.observe(die)
    assert observed["harness_error"] == "worker exited (code 3):\nsegmentation fault (pretend)"
    assert ("torch", "cpu") not in runner.workers
    assert runner.observe(grad)["pid"] != before


def test_an_isolated_case_that_hangs_is_killed(runner, cases):
    chain = cases[("fixture.chain", "paddle", "cpu")]
    hang = type(chain)(
        type(chain.claim)("hang", "memory", chain.claim.path, chain.claim.statement, ("cpu",), chain.claim.raw),
        "paddle", "cpu", {**chain.spec, "timeout": 0.5}, chain.version,
    )  # fmt: skip
    runner.observe(chain)
    template = runner.templates[runner.template_key("paddle", "cpu")].proc.pid
    observed = runner.observe(hang)
    assert observed["harness_error"].startswith("timed out: no answer within 0.5 s")
    assert runner.workers == {} and runner.templates == {}
    assert not alive(template)  # the template and its child are killed together
    assert runner.observe(chain)["parent"] != template


def fake_env(**variables) -> dict[str, str]:
    """A worker's environment with the stand-in's ``FAKE_WORKER_*`` settings."""
    return worker_env({**os.environ, **variables}, None)


def test_a_worker_that_never_answers_is_given_up_after_three_minutes(monkeypatch):
    """The default wait for the first line (importing a framework may take a while), given to
    select; a stand-in answers at once that nothing came."""
    waited = []

    def select(readers, writers, errors, timeout):
        waited.append(timeout)
        return [], [], []

    monkeypatch.setattr(runner_module, "select", SimpleNamespace(select=select))
    with pytest.raises(TimeoutError, match=r"^no answer within 180 s$"):
        Worker("torch", "cpu", module=FAKE, env=fake_env(FAKE_WORKER_START="hang"))
    assert waited == [180]


def test_a_workers_log_is_read_as_utf8_whatever_the_locale(ascii_locale):
    worker = Worker("torch", "cpu", module=FAKE)
    try:
        with open(worker.log.name, "ab") as log:
            log.write("梯度 → 0\n".encode())
        assert worker.stderr_tail() == "梯度 → 0"
    finally:
        worker.close()


def test_closing_a_worker_lets_it_end_on_its_own_first():
    """Its input closed, a worker that takes a moment to exit is waited for, not killed."""
    worker = Worker("torch", "cpu", module=FAKE, env=fake_env(FAKE_WORKER_EXIT_DELAY="0.02"))
    worker.close()
    assert worker.proc.returncode == 0


def test_a_worker_still_running_30_s_after_its_input_closed_is_killed():
    """A stand-in for ``wait`` lets the 30 s pass at once."""
    worker = Worker("torch", "cpu", module=FAKE, env=fake_env(FAKE_WORKER_EXIT_DELAY="60"))
    log, wait, waits = Path(worker.log.name), worker.proc.wait, []

    def timed_wait(timeout=None):
        waits.append(timeout)
        if len(waits) == 1:
            raise subprocess.TimeoutExpired(worker.proc.args, timeout)
        return wait()

    worker.proc.wait = timed_wait
    worker.close()
    assert waits == [30, None]  # 30 s for it to end, then killed and waited for
    assert worker.proc.returncode == -signal.SIGKILL
    assert worker.proc.stdin.closed and worker.proc.stdout.closed and not log.exists()


def test_killing_a_worker_reaped_elsewhere_is_harmless(monkeypatch):
    """Between the check that it runs and the kill, the worker ended and was waited for by
    someone else: its process group is gone (ProcessLookupError), and the kill goes on."""
    worker = Worker("torch", "cpu", module=FAKE)
    killpg, pid = os.killpg, worker.proc.pid

    def reaped_first(group, sig):
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        killpg(group, sig)

    monkeypatch.setattr(os, "killpg", reaped_first)
    worker.kill()
    monkeypatch.undo()
    assert not worker.alive()
    worker.close()
    assert not Path(worker.log.name).exists()


def test_stopping_a_worker_that_has_ended_leaves_it_be():
    """Nothing to ask of a worker that has ended: its input stays as it was until close()."""
    worker = Worker("torch", "cpu", module=FAKE)
    worker.kill()
    worker.stop()
    assert not worker.proc.stdin.closed
    worker.close()
    assert worker.proc.stdin.closed


def test_a_template_made_without_an_environment_gets_the_runners():
    """``_template`` with no environment: the one the runner gives its workers (from its run
    context), not this process's."""
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_CUDA="1"))
    try:
        template = runner._template("torch", "cpu")
        assert runner.templates == {runner.template_key("torch", "cpu"): template}
        assert template.info["cuda_available"] is True
    finally:
        runner.close()


def test_an_isolated_gpu_case_waits_for_its_answer_as_long_as_it_declares(cases, monkeypatch):
    """The fresh process of an isolated GPU case is asked with the case's own timeout."""
    asked = []

    class Recorder:
        def __init__(self, framework, device, **options):
            pass

        def request(self, payload, timeout):
            asked.append(timeout)
            return {}

        def close(self):
            pass

    monkeypatch.setattr(runner_module, "Worker", Recorder)
    chain = cases[("fixture.chain", "torch", "gpu")]
    Runner(module=FAKE).observe(with_spec(chain, timeout=7.5))
    assert asked == [7.5]


def test_a_worker_that_ended_between_two_cases_leaves_no_log_when_replaced(runner):
    """Found by the mutation run of e648ea2: a worker that ended on its own between two cases
    (the OOM killer, say) was replaced without close(), its log (delete=False) left in the
    temporary folder and its pipes to the garbage collector. Templates likewise."""
    for get, made in ((runner._worker, runner.workers), (runner._template, runner.templates)):
        old = get("torch", "cpu")
        log = Path(old.log.name)
        old.kill()
        try:
            assert get("torch", "cpu") is not old
            assert not log.exists()
            assert old.proc.stdin.closed and old.proc.stdout.closed and old.log.closed
            assert list(made.values()).count(old) == 0
        finally:
            log.unlink(missing_ok=True)


# -- the pytest plugin's scheduler -----------------------------------------------------------


@pytest.fixture
def scheduler(monkeypatch):
    from verified import pytest_plugin

    monkeypatch.setattr(pytest_plugin.Scheduler, "module", FAKE)
    made = []

    def make(cases, context=None):
        made.append(pytest_plugin.Scheduler(cases, context=context))
        return made[-1]

    yield make
    for each in made:
        each.close()


def test_the_lanes_and_the_timing_cases(scheduler, cases):
    """Each framework's cheap cases share its worker, the cases that need a fresh process get
    one forked from a third lane's templates, and a timing case runs only once every lane has
    ended, forked from those same templates."""
    cpu = [c for (_, _, dev), c in cases.items() if dev == "cpu"]
    timing = [c for c in cpu if c.claim.kind == "timing"]
    assert timing and {c.framework for c in timing} == {"paddle", "torch"}
    lanes = scheduler(cpu)
    assert set(lanes.futures) == {c.name for c in cpu if c.claim.kind != "timing"}  # run later
    for case in timing:
        observed = lanes.result(case)["observed"]
        assert not any(thread.is_alive() for thread in lanes.threads)
        assert observed["request"]["id"] == case.claim.id
        third = lanes.runners["fresh"]
        assert (
            observed["parent"]
            == third.templates[third.template_key(case.framework, "cpu")].proc.pid
        )
    for fw in ("paddle", "torch"):
        shared = {lanes.result(c)["observed"]["pid"] for c in cpu
                  if c.framework == fw and not c.isolated}  # fmt: skip
        fresh = [lanes.result(c)["observed"] for c in cpu
                 if c.framework == fw and c.isolated and c.claim.kind != "timing"]  # fmt: skip
        assert len(shared) == 1 and fresh
        third = lanes.runners["fresh"]
        template = third.templates[third.template_key(fw, "cpu")].proc.pid
        assert all(o["parent"] == template and o["pid"] not in shared for o in fresh)
        assert lanes.runners[fw].workers == {}  # a framework's lane closes its worker at its end
    assert lanes.runners["fresh"].workers == {}  # the versions came from the framework's lane


def test_a_worker_that_cannot_start_fails_every_case_of_its_lane(scheduler, cases):
    cpu = [c for (_, _, dev), c in cases.items() if dev == "cpu" and c.claim.kind != "timing"]
    lanes = scheduler(cpu, with_env(FAKE_WORKER_START="die"))
    for case in cpu:
        with pytest.raises(WorkerDied, match="cannot import the framework"):
            lanes.result(case)


def test_each_lane_runs_its_own_cases_longest_first(scheduler, tmp_path, monkeypatch):
    """A framework's lane runs that framework's cheap cases, the fresh lane the isolated ones,
    each lane the case with the longest time limit first; the lanes are daemon threads named by
    lane, and only the cases that are not timed get a future."""
    from verified import pytest_plugin

    claims = CLAIMS.replace('snippet = "grad"\n', 'snippet = "grad"\ntimeout = 90\n')
    cases = all_cases(make_snippets(tmp_path, claims), VERSIONS)
    cpu = [c for (_, _, dev), c in cases.items() if dev == "cpu" and c.claim.kind != "timing"]
    ran: list[tuple[str, object]] = []
    real = pytest_plugin.run_case

    def spy(runner, case, context, judge):
        ran.append((threading.current_thread().name, case))
        return real(runner, case, context, judge)

    monkeypatch.setattr(pytest_plugin, "run_case", spy)
    lanes = scheduler(cpu)
    for case in cpu:
        lanes.result(case)
    assert set(lanes.futures) == {c.name for c in cpu}
    assert all(thread.daemon for thread in lanes.threads)
    by_lane: dict[str, list] = {}
    for thread, case in ran:
        by_lane.setdefault(thread, []).append(case)
    assert set(by_lane) == {"claims-paddle", "claims-torch", "claims-fresh"}
    for fw in ("paddle", "torch"):
        own = by_lane[f"claims-{fw}"]
        assert all(c.framework == fw and not c.isolated for c in own), own
        timeouts = [c.timeout for c in own]
        assert timeouts == sorted(timeouts, reverse=True) and len(set(timeouts)) == 2, timeouts
    assert by_lane["claims-fresh"] and all(c.isolated for c in by_lane["claims-fresh"])
    assert sorted(c.name for _, c in ran) == sorted(c.name for c in cpu)


def test_closing_the_scheduler_cancels_the_cases_it_had_not_started(scheduler, cases):
    cpu = [c for (_, _, dev), c in cases.items() if dev == "cpu" and c.claim.kind != "timing"]
    lanes = scheduler(cpu)
    lanes.close()  # at once: the lanes are still starting their workers
    assert all(future.done() for future in lanes.futures.values())
    assert all(future.cancelled() for future in lanes.futures.values())


def test_the_order_of_the_items(scheduler, pytester, monkeypatch):
    """The other tests run first (the lanes run meanwhile), then the claims, then the tests
    marked alone, then the timing claims: the last two with nothing else running (the workers
    here take half a second to exit, and the lanes wait for them)."""
    monkeypatch.setenv("FAKE_WORKER_EXIT_DELAY", "0.5")
    ended = stdin_bound()  # work started beside the run, ended before it
    ended.stdin.close()
    ended.wait()
    monkeypatch.setenv("AUTOGRAD_ALONE_AFTER", str(ended.pid))
    make_snippets(pytester.path)
    pytester.makeconftest('pytest_plugins = ["verified.pytest_plugin"]')
    pytester.makepyfile(
        test_order="""
        import pytest

        @pytest.mark.alone
        def test_timed(request):
            from verified.pytest_plugin import SCHEDULER_KEY

            lanes = request.config.stash[SCHEDULER_KEY]
            assert not any(thread.is_alive() for thread in lanes.threads)

        def test_plain():
            pass

        @pytest.mark.parametrize("n", [1])  # a mark, but not "alone": a plain test still
        def test_plain_marked(n):
            pass
        """
    )
    result = pytester.runpytest_inprocess("-v", "-p", "no:cacheprovider")
    ran = [line.split(" ")[0] for line in result.outlines  # "<nodeid> PASSED [ 8%]"
           if "::" in line.split(" ")[0] and any(word in line for word in ("PASSED", "FAILED", "SKIPPED"))]  # fmt: skip
    groups: list[str] = []
    for nodeid in ran:
        name = nodeid.rsplit("::", 1)[-1]
        group = {"test_plain": "plain", "test_plain_marked[1]": "plain", "test_timed": "alone"}
        group = group.get(name, "claim")
        group = "timing" if name.startswith("speed[") else group
        if not groups or groups[-1] != group:
            groups.append(group)
    assert groups == ["plain", "claim", "alone", "timing"], ran
    assert any("test_timed PASSED" in line for line in result.outlines)  # the lanes had ended
    assert len(ran) == 3 + 14  # the three tests and every case of the fixture claims
    said = f"work started beside this run (AUTOGRAD_ALONE_AFTER={ended.pid}): had ended when"
    assert any(line.startswith(said) for line in result.outlines), result.outlines[-5:]


# -- a run through pytest: each status, the report, the summary, reuse -----------------------

ENGINE = "fixture-engine"


def waits_for_file(path: Path):
    """A process that runs until ``path`` exists."""
    code = "import os, sys, time\nwhile not os.path.exists(sys.argv[1]):\n    time.sleep(0.01)"
    return subprocess.Popen([sys.executable, "-c", code, str(path)])


@pytest.fixture
def claims_run(scheduler, pytester, monkeypatch):
    """Runs pytest in this process on the fixture claims with stand-in workers; the run context
    is fixed (date, processor, Python, engine hash; the framework releases are those installed,
    as the collected cases' are) and may be captured once per run only; the
    judge says what ``verdicts`` (case name -> status, reason) says, else passed."""
    from verified import pytest_plugin

    for name in ("CI", "AUTOGRAD_FRESH", "AUTOGRAD_REPORT", "AUTOGRAD_REPORT_NAME", "AUTOGRAD_ALONE_AFTER"):  # fmt: skip
        monkeypatch.delenv(name, raising=False)
    make_snippets(pytester.path)
    pytester.makeconftest('pytest_plugins = ["verified.pytest_plugin"]')
    real_wait = pytest_plugin.wait_for_processes

    def wait_then_end(pids, poll=0.2):
        # the work beside the run (waits_for_file) ends 0.3 s after the wait for it began
        threading.Timer(0.3, (pytester.path / "go").write_text, args=("go",)).start()
        return real_wait(pids, poll)

    monkeypatch.setattr(pytest_plugin, "wait_for_processes", wait_then_end)
    captured: list[int] = []

    class OnceContext:
        @staticmethod
        def capture():
            captured.append(1)
            assert len(captured) == 1, "the run context was captured twice in one run"
            # the releases of the collected cases (the installed ones, or none), not the fixture's
            return context_for(engine_hash=ENGINE, python="3.11.7", versions=installed_versions())

    monkeypatch.setattr(pytest_plugin, "RunContext", OnceContext)
    verdicts: dict[str, tuple[str, str | None]] = {}
    judged: list[str] = []  # the cases run (and so judged) in the last run

    def judge(case, observed):
        judged.append(case.name)
        return verdicts.get(case.name, ("passed", None))

    monkeypatch.setattr(pytest_plugin, "judge", judge)

    def run(*args: str):
        captured.clear()
        judged.clear()
        return pytester.runpytest_inprocess("-rsx", "-p", "no:cacheprovider", *args)

    run.verdicts, run.judged = verdicts, judged
    return run


def summary_lines(result) -> list[str]:
    """What the plugin printed at the end: from its "claims report" line to pytest's next."""
    lines = result.outlines
    start = next(i for i, line in enumerate(lines) if line.startswith("claims report: "))
    end = next((i for i in range(start, len(lines)) if lines[i].startswith("=")), len(lines))
    return lines[start:end]


def test_a_run_through_pytest_reports_every_status_and_writes_the_report(
    claims_run, pytester, monkeypatch
):
    """Each status reaches pytest as itself (passed, a failure naming the case and its file,
    a skip with its reason, an expected failure for a case declared not runnable), and the
    report gets every record: made from the run context, named by AUTOGRAD_REPORT_NAME, with
    the skip's code and release; the summary counts them and says how long the timing cases
    waited for the work started beside the run."""
    from verified.claims import load_claims

    claims_run.verdicts.update(
        {
            "fixture.grad[torch-cpu]": ("failed", "expected -16.0, observed -15.0"),
            "fixture.leaf[paddle-cpu]": ("not-runnable", "AttributeError: no inplace"),
        }
    )
    monkeypatch.setenv("AUTOGRAD_REPORT_NAME", "fixture run")
    beside = waits_for_file(pytester.path / "go")
    try:
        monkeypatch.setenv("AUTOGRAD_ALONE_AFTER", str(beside.pid))
        result = claims_run()
    finally:
        (pytester.path / "go").touch()
        beside.wait()
    result.assert_outcomes(passed=8, failed=1, skipped=4, xfailed=1)
    result.stdout.fnmatch_lines(
        [
            "fixture.grad[[]torch-cpu[]] (claims.toml): expected -16.0, observed -15.0",
            "SKIPPED [[]4[]] *: no GPU in the fake",
            "XFAIL *fixture.leaf[[]paddle-cpu[]] - not runnable on this version, as declared: "
            "AttributeError: no inplace",
        ]
    )
    said, beside_line = summary_lines(result)
    assert (
        said == "claims report: build/claims.json (1 failed, 1 not-runnable, 8 passed, 4 skipped)"
    )
    waited = re.fullmatch(
        rf"work started beside this run \(AUTOGRAD_ALONE_AFTER={beside.pid}\): the tests that "
        r"run alone waited (\d+\.\d) s for it to end",
        beside_line,
    )
    assert waited and float(waited[1]) >= 0.3, beside_line
    report = json.loads((pytester.path / "build" / "claims.json").read_text())
    assert report["name"] == "fixture run" and report["generated"] == DATE
    records = {f"{r['id']}[{r['framework']}-{r['device']}]": r for r in report["claims"]}
    cases = {
        case.name: case
        for claim in load_claims(pytester.path / "snippets" / "fixture" / "claims.toml")
        for case in claim.cases()
    }
    assert set(records) == set(cases) and len(records) == 14
    for name, rec in records.items():
        assert rec["env"]["device"] == rec["device"] and rec["env"]["date"] == DATE, name
        assert rec["env"]["cpu"] == "Test CPU", name
        assert rec["source_hash"] == cases[name].source_hash(ENGINE), name  # the context's engine
    assert records["fixture.grad[torch-cpu]"]["status"] == "failed"
    assert records["fixture.grad[torch-cpu]"]["reason"] == "expected -16.0, observed -15.0"
    assert records["fixture.leaf[paddle-cpu]"]["status"] == "not-runnable"
    assert records["fixture.leaf[paddle-cpu]"]["reason"] == "AttributeError: no inplace"
    gpu = [rec for rec in records.values() if rec["device"] == "gpu"]
    assert len(gpu) == 4
    for rec in gpu:
        assert rec["status"] == "skipped" and rec["reason"] == "no GPU in the fake"
        assert rec["skip"] == {"code": "fake-no-gpu", "version": "9.9.9"}
    assert sorted(r["status"] for r in records.values()).count("passed") == 8


def test_unchanged_results_stand_for_a_new_run_unless_fresh(claims_run, pytester, monkeypatch):
    """A second run outside CI runs again only what failed: the others' records stand, and the
    summary says how many; ``--fresh`` runs them all; with nothing run alone, the work beside
    the run is said not to have been waited for; a report outside the project is shown by its
    full path."""
    claims_run.verdicts["fixture.grad[torch-cpu]"] = ("failed", "expected -16.0, observed -15.0")
    first = claims_run("-k", "not speed")
    first.assert_outcomes(passed=7, failed=1, skipped=4, xfailed=0)
    assert not any("not run again" in line for line in first.outlines)
    ended = [stdin_bound(), stdin_bound()]
    for proc in ended:
        proc.stdin.close()
        proc.wait()
    pids = f"{ended[0].pid} {ended[1].pid}"
    monkeypatch.setenv("AUTOGRAD_ALONE_AFTER", pids)
    again = claims_run("-k", "not speed")
    again.assert_outcomes(passed=7, failed=1, skipped=4)
    assert claims_run.judged == ["fixture.grad[torch-cpu]"]  # the others were not run again
    assert summary_lines(again) == [
        "claims report: build/claims.json (1 failed, 7 passed, 4 skipped)",
        f"work started beside this run (AUTOGRAD_ALONE_AFTER={pids}): "
        "not waited for: nothing ran alone",
        "11 case(s) not run again: their result from this host, with every input unchanged, "
        "stands (--fresh runs them)",
    ]
    monkeypatch.delenv("AUTOGRAD_ALONE_AFTER")
    elsewhere = pytester.path.parent / f"{pytester.path.name}-elsewhere.json"
    shutil.copy(pytester.path / "build" / "claims.json", elsewhere)
    monkeypatch.setenv("AUTOGRAD_REPORT", str(elsewhere))
    fresh = claims_run("-k", "not speed", "--fresh")
    fresh.assert_outcomes(passed=7, failed=1, skipped=4)
    assert len(claims_run.judged) == 8  # every case on the CPU (the GPU ones are skipped)
    assert summary_lines(fresh) == [f"claims report: {elsewhere} (1 failed, 7 passed, 4 skipped)"]
    assert json.loads(elsewhere.read_text())["name"] == "this build"


def test_the_options_and_markers_the_plugin_adds(pytester):
    pytester.makeconftest('pytest_plugins = ["verified.pytest_plugin"]')
    helped = pytester.runpytest_inprocess("--help")
    text = " ".join(" ".join(helped.outlines).split())
    assert (
        "--fresh run every claim case again, even those whose result from this host and these "
        "inputs is in the report (also the default where the CI variable is set)"
    ) in text
    markers = pytester.runpytest_inprocess("--markers")
    markers.stdout.fnmatch_lines(
        [
            "@pytest.mark.claim: a claim case run by the claims engine",
            "@pytest.mark.alone: timing-sensitive; runs after the claim lanes, with nothing else "
            "running",
        ]
    )


def test_a_claims_file_that_cannot_be_read_is_a_collection_error_naming_it(pytester):
    make_snippets(pytester.path, CLAIMS.replace('kind = "value"', 'kind = "valeu"'))
    pytester.makeconftest('pytest_plugins = ["verified.pytest_plugin"]')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    assert result.ret != 0
    text = "\n".join(result.outlines)
    assert "ERROR collecting snippets/fixture/claims.toml" in text, text[-2000:]
    assert "valeu" in text and "fixture.grad" in text, text[-2000:]


# -- work started beside the run (AUTOGRAD_ALONE_AFTER) ---------------------------------------


def stdin_bound():
    """A process that runs until its standard input is closed."""
    return subprocess.Popen(
        [sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE
    )


def test_the_process_ids_beside_the_run_are_read_or_refused():
    from verified.pytest_plugin import BESIDE, beside_pids

    assert BESIDE == "AUTOGRAD_ALONE_AFTER"
    assert beside_pids({}) == () and beside_pids({BESIDE: " "}) == ()
    assert beside_pids({BESIDE: "12  345\n"}) == (12, 345)
    assert beside_pids({BESIDE: "1"}) == (1,)  # the smallest process id there is
    with pytest.raises(pytest.UsageError, match=r"AUTOGRAD_ALONE_AFTER='12,3': expected process"):
        beside_pids({BESIDE: "12,3"})
    with pytest.raises(pytest.UsageError, match=r"AUTOGRAD_ALONE_AFTER='0': a process id is"):
        beside_pids({BESIDE: "0"})
    with pytest.raises(pytest.UsageError, match="a process id is"):
        beside_pids({BESIDE: "5 -1"})


@pytest.mark.parametrize("name", [b"x) Z (y", b"\xff) X (\xfe"])
def test_a_process_whose_name_holds_a_parenthesis_and_a_state_letter_runs(name):
    """/proc/PID/stat puts the name in parentheses before the state, and a name may itself hold
    ") Z (", and bytes that are not UTF-8: the state is read after the last parenthesis."""
    code = (
        "import ctypes, sys\n"
        f"ctypes.CDLL(None).prctl(15, {name!r}, 0, 0, 0)  # PR_SET_NAME\n"
        "print('named', flush=True)\n"
        "sys.stdin.read()"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline() == "named\n"
        assert Path(f"/proc/{proc.pid}/comm").read_bytes() == name + b"\n"
        assert process_running(proc.pid)
    finally:
        proc.stdin.close()
        proc.wait()
        proc.stdout.close()
    assert not process_running(proc.pid)


def test_a_process_runs_until_it_ended_not_until_it_was_waited_for():
    proc = stdin_bound()
    assert process_running(proc.pid)
    proc.stdin.close()
    while Path(f"/proc/{proc.pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
        time.sleep(0.01)  # ended, not yet waited for: a zombie
    assert not process_running(proc.pid)
    proc.wait()
    assert not process_running(proc.pid)  # gone


@pytest.mark.parametrize(
    ("state", "running"), [(b"R", True), (b"S", True), (b"D", True), (b"Z", False), (b"X", False)]
)
def test_a_process_in_the_dead_state_x_has_ended(monkeypatch, state, running):
    """State X (dead: being reaped) lasts an instant, so no real process shows it to a test; a
    stand-in /proc/<pid>/stat does, with a name holding ") X " to show the state is read after
    the name's last parenthesis."""
    import verified.pytest_plugin as plugin

    class Stat:
        def __init__(self, path):
            assert path == "/proc/4242/stat", path

        def read_bytes(self):
            return b"4242 (odd ) X name) " + state + b" 1 4242 4242 0 -1"

    monkeypatch.setattr(plugin, "Path", Stat)
    assert plugin.process_running(4242) is running


def test_the_tests_that_run_alone_wait_for_the_work_beside_the_run(scheduler, monkeypatch):
    """The scheduler reads the process ids when it is made; its wait for the lanes lasts until
    each has ended (here: until the test closes the process's input, which it does only once it
    saw the wait still going), and only the first wait waits."""
    import threading

    from verified.pytest_plugin import BESIDE

    beside, other = stdin_bound(), stdin_bound()
    try:
        monkeypatch.setenv(BESIDE, f"{beside.pid} {other.pid}")
        lanes = scheduler([])
        monkeypatch.setenv(BESIDE, "")  # read when it was made: a change now changes nothing
        assert lanes.beside == (beside.pid, other.pid) and lanes.waited_beside is None
        waiting = threading.Thread(target=lanes.wait_for_lanes)
        waiting.start()
        other.stdin.close()
        other.wait()
        waiting.join(0.5)
        assert waiting.is_alive(), "the wait ended while a process beside the run still ran"
        beside.stdin.close()
        waiting.join(30)
        assert not waiting.is_alive() and lanes.waited_beside >= 0.5
        first = lanes.waited_beside
        lanes.wait_for_lanes()
        assert lanes.waited_beside == first
    finally:
        for proc in (beside, other):
            proc.kill()
            proc.wait()


# -- a timing case: every condition, re-measured when too noisy -------------------------------

FIGURES = {
    "ratio": 2.0, "control_ratio": 1.01, "noise": 1.01, "statistic": "min",
    "ratio_min": 2.0, "ratio_median": 1.9, "control_ratio_min": 1.01,
    "control_ratio_median": 1.02, "noise_min": 1.01, "noise_median": 1.02,
    "min_baseline_s": 0.2, "min_candidate_s": 0.1, "min_control_s": 0.2,
    "median_baseline_s": 0.21, "median_candidate_s": 0.11, "median_control_s": 0.21,
    "thp": "madvise", "not a figure": 1,
}  # fmt: skip


def timing_case(cases, framework="torch", **spec):
    case = next(c for (_, fw, dev), c in cases.items()
                if fw == framework and dev == "cpu" and c.claim.kind == "timing")  # fmt: skip
    return with_spec(case, **spec)


def test_a_timing_case_is_measured_in_every_condition(cases):
    """Each condition runs in a fresh process after its history, started from its shell (whose
    allocator variables a timing case's own settings replace); the case's figures are
    summarised per condition; the rest of what it observed is
    the first condition's; the busy condition names the core it kept busy."""
    from verified.runner import SHELLS, TIMING_CONDITIONS, TIMING_SUMMARY

    figures = json.dumps(FIGURES)
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_TIMING=figures))
    try:
        case = timing_case(cases)
        observed = runner.observe(case)
    finally:
        runner.close()
    conditions = observed.pop("conditions")
    assert list(conditions) == list(TIMING_CONDITIONS)
    assert list(TIMING_CONDITIONS) == [
        "clean", "perturbed", *(f"shell {name}" for name in SHELLS), "busy core",
        "pinned to one core",
    ]  # fmt: skip
    assert observed["request"]["id"] == case.claim.id and "history" not in observed["request"]
    assert observed["allocator"] == {} and observed["ratio"] == 2.0  # the clean condition's
    assert observed["duration_s"] >= sum(c.get("duration_s", 0) for c in conditions.values())
    cores = sorted(os.sched_getaffinity(0))
    for name, summary in conditions.items():
        shell, history, busy = TIMING_CONDITIONS[name]
        assert summary["attempts"] == 1 and summary["shell"] == shell, name
        assert summary["history"] == history, name
        # a timing case declares its allocator settings (none here): the shell's do not reach
        assert summary["allocator"] == {}, name
        assert summary["cpus"] == cores, name
        expected = {k for k in TIMING_SUMMARY if k in FIGURES} | {
            "allocator", "cpus", "attempts", "shell", "history",
        }  # fmt: skip
        if busy:
            expected.add("busy_core")
            assert summary["busy_core"] == (cores[-1] if len(cores) > 1 else None)
        assert set(summary) == expected, name
        assert all(summary[k] == FIGURES[k] for k in FIGURES if k in summary), name
    assert "not a figure" not in conditions["clean"]


def test_a_timing_condition_whose_snippet_raised_keeps_the_exception(cases):
    """A condition whose case raised keeps the exception in its summary."""
    figures = json.dumps({"exception": {"type": "E", "message": "m", "traceback": "t"}})
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_TIMING=figures))
    try:
        observed = runner.observe(timing_case(cases), conditions={"one": ({}, None, False)})
        assert observed["conditions"]["one"]["exception"]["type"] == "E"
        assert "harness_error" not in observed["conditions"]["one"]
    finally:
        runner.close()


def test_a_noisy_control_is_measured_again_up_to_three_times(cases):
    from verified.runner import NOISY_ATTEMPTS

    assert NOISY_ATTEMPTS == 3
    noisy = json.dumps({**FIGURES, "noise_median": 1.3})
    one = {"clean": ({}, None, False)}
    for spec, attempts in (({}, 3), ({"max_noise": 1.31}, 1), ({"verdict": "shown"}, 1)):
        runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_TIMING=noisy))
        try:
            observed = runner.observe(timing_case(cases, **spec), conditions=one)
        finally:
            runner.close()
        assert observed["conditions"]["clean"]["attempts"] == attempts, spec
    quiet = json.dumps({**FIGURES, "noise_min": 1.2, "noise_median": 1.2})
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_TIMING=quiet))
    try:
        observed = runner.observe(timing_case(cases), conditions=one)
    finally:
        runner.close()
    assert observed["conditions"]["clean"]["attempts"] == 1  # at the limit: not too noisy


def test_a_timing_case_shown_only_is_measured_once_as_declared(cases):
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_TIMING=json.dumps(FIGURES)))
    try:
        observed = runner.observe(timing_case(cases, verdict="shown"))
        history = runner.observe(timing_case(cases), history="perturbed")
    finally:
        runner.close()
    assert list(observed["conditions"]) == ["clean"]
    assert observed["conditions"]["clean"]["history"] is None
    assert "conditions" not in history and history["request"]["history"] == "perturbed"


def test_a_case_that_declares_its_allocator_runs_with_exactly_that(cases):
    """A case's ``env`` replaces every inherited allocator variable, in a process forked from a
    template of its own; a case without one inherits the run's, from the run's template."""
    memory = next(c for (_, fw, dev), c in cases.items()
                  if fw == "torch" and dev == "cpu" and c.claim.kind == "memory")  # fmt: skip
    declared = with_spec(memory, env={"MALLOC_ARENA_MAX": "2"})
    assert memory.allocator_env is None and memory.isolated
    runner = Runner(module=FAKE, context=with_env(MALLOC_MMAP_THRESHOLD_="131072"))
    try:
        own = runner.observe(declared)
        inherited = runner.observe(memory)
        again = runner.observe(declared)
    finally:
        runner.close()
    assert own["allocator"] == {"MALLOC_ARENA_MAX": "2"}
    assert inherited["allocator"] == {"MALLOC_MMAP_THRESHOLD_": "131072"}
    assert own["parent"] != inherited["parent"]  # two templates, one per environment
    assert again["parent"] == own["parent"]  # the first one's, kept by its environment
    assert len(runner.templates) == 0  # closed


def test_a_workers_environment():
    """The engine first on PYTHONPATH, then the inherited one; OpenMP threads that sleep when
    idle unless the caller chose; output unbuffered; the inherited allocator variables kept
    unless the case declares its own."""
    inherited = {"PYTHONPATH": "/elsewhere", "MALLOC_ARENA_MAX": "4", "GLIBC_TUNABLES": "x=1"}
    env = worker_env(inherited, None)
    assert env == {
        **inherited, "PYTHONPATH": f"{ROOT}{os.pathsep}/elsewhere",
        "OMP_WAIT_POLICY": "PASSIVE", "PYTHONUNBUFFERED": "1",
    }  # fmt: skip
    assert worker_env({}, None)["PYTHONPATH"] == str(ROOT)
    chosen = worker_env({"OMP_WAIT_POLICY": "ACTIVE", "PYTHONUNBUFFERED": "0"}, None)
    assert chosen["OMP_WAIT_POLICY"] == "ACTIVE" and chosen["PYTHONUNBUFFERED"] == "1"
    declared = worker_env(inherited, {"MALLOC_TOP_PAD_": "0"})
    assert "MALLOC_ARENA_MAX" not in declared and "GLIBC_TUNABLES" not in declared
    assert declared["MALLOC_TOP_PAD_"] == "0" and declared["PYTHONPATH"].startswith(str(ROOT))


def test_a_worker_started_without_an_environment_gets_this_processs_as_a_worker_would():
    import inspect

    assert inspect.signature(Worker).parameters["start_timeout"].default == 180
    worker = Worker("torch", "cpu", module=FAKE)
    try:
        answer = worker.request({"id": "x"}, timeout=10)
        name = Path(worker.log.name).name
    finally:
        worker.close()
    assert answer["environ"] == {"OMP_WAIT_POLICY": "PASSIVE", "PYTHONUNBUFFERED": "1"}
    assert name.startswith("worker-torch-cpu-") and name.endswith(".log")


def ticking_clock(tick: float):
    """A stand-in for the ``time`` module whose perf_counter advances by ``tick`` at each read,
    for the calling thread only. The claims' lanes run on other threads of this process while
    the engine's tests run (see verified.pytest_plugin.Scheduler) and read the same module's
    clock: they get the real one, so their reads neither advance this clock (the test's
    durations stay exact: CI failed once with 0.004 for 0.001) nor take a fake time (their
    records' durations stay real)."""
    import threading
    import time as real
    from types import SimpleNamespace

    owner = threading.get_ident()
    ticks = iter(range(1_000_000))

    def perf_counter() -> float:
        if threading.get_ident() != owner:
            return real.perf_counter()
        return next(ticks) * tick

    names = {name: getattr(real, name) for name in dir(real) if not name.startswith("_")}
    return SimpleNamespace(**{**names, "perf_counter": perf_counter})


def test_the_ticking_clock_ticks_for_its_own_thread_only():
    import threading

    clock = ticking_clock(0.5)
    other: list[float] = []
    reader = threading.Thread(target=lambda: other.extend(clock.perf_counter() for _ in range(3)))
    reader.start()
    reader.join()
    assert [clock.perf_counter(), clock.perf_counter()] == [0.0, 0.5]  # the other reads took none
    assert other == sorted(other) and other[-1] - other[0] < 1  # the real clock there
    assert clock.sleep is __import__("time").sleep  # the rest of the module as it is


def test_a_timing_case_takes_the_time_of_all_its_conditions_and_each_its_history(
    cases, monkeypatch
):
    """The whole measurement's duration replaces the first condition's; each condition's
    process runs the condition's history first."""
    from verified import runner as runner_module

    monkeypatch.setattr(runner_module, "time", ticking_clock(0.0012345))
    runner = Runner(module=FAKE, context=with_env(FAKE_WORKER_TIMING=json.dumps(FIGURES)))
    try:
        one = runner.observe(timing_case(cases), history="perturbed")
        two = runner.observe(
            timing_case(cases),
            conditions={"a": ({}, "perturbed", False), "b": ({}, None, False)},
        )
    finally:
        runner.close()
    assert one["duration_s"] == 0.001  # one request: two reads of the clock, rounded to 1 ms
    assert one["request"]["history"] == "perturbed"
    assert two["request"]["history"] == "perturbed"  # the first condition's process
    assert two["duration_s"] == round(5 * 0.0012345, 3)  # from before the first to after the last


# -- the plugin's settings -----------------------------------------------------------------------


class FakeConfig:
    """What reuse_enabled and report_path read of a pytest config."""

    def __init__(self, rootpath: Path, fresh: bool | None = False) -> None:
        self.rootpath = rootpath
        self.fresh = fresh  # None: the option is not registered (the plugin loaded late)

    def getoption(self, name: str, default=None):
        assert name == "fresh", name
        return default if self.fresh is None else self.fresh


@pytest.mark.parametrize(
    ("fresh", "environ", "reused"),
    [
        (False, {}, True),
        (None, {}, True),  # no --fresh option at all: reuse
        (True, {}, False),
        (False, {"AUTOGRAD_FRESH": "1"}, False),
        (False, {"AUTOGRAD_FRESH": "0"}, True),
        (False, {"CI": "true"}, False),
        (False, {"CI": ""}, True),  # an empty CI variable is not CI
    ],
)
def test_unchanged_results_are_reused_only_outside_ci_and_without_fresh(
    fresh, environ, reused, monkeypatch, tmp_path
):
    from verified.pytest_plugin import reuse_enabled

    for name in ("AUTOGRAD_FRESH", "CI"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    assert reuse_enabled(FakeConfig(tmp_path, fresh)) is reused


def test_the_report_goes_to_build_or_where_autograd_report_says(monkeypatch, tmp_path):
    from verified.pytest_plugin import report_path

    monkeypatch.delenv("AUTOGRAD_REPORT", raising=False)
    assert report_path(FakeConfig(tmp_path)) == tmp_path / "build" / "claims.json"
    monkeypatch.setenv("AUTOGRAD_REPORT", str(tmp_path / "elsewhere.json"))
    assert report_path(FakeConfig(tmp_path)) == tmp_path / "elsewhere.json"
    monkeypatch.setenv("AUTOGRAD_REPORT", "")  # empty: the default
    assert report_path(FakeConfig(tmp_path)) == tmp_path / "build" / "claims.json"


@pytest.mark.parametrize(
    ("collect_only", "with_claims", "started"),
    [(False, True, True), (True, True, False), (False, False, False), (True, False, False)],
)
def test_the_lanes_start_only_for_a_run_that_runs_claims(monkeypatch, collect_only, with_claims,
                                                         started):  # fmt: skip
    """``--collect-only`` runs nothing, and a run without claims has no lanes to start."""
    import verified.pytest_plugin as plugin

    calls = []
    monkeypatch.setattr(plugin, "scheduler_for", calls.append)
    claim = object.__new__(plugin.ClaimItem)  # an item of the class, not built by a collector
    session = SimpleNamespace(
        config=SimpleNamespace(option=SimpleNamespace(collectonly=collect_only)),
        items=[object(), claim] if with_claims else [object()],
    )
    plugin.start_lanes(session)
    assert calls == ([session] if started else [])


def test_the_wait_for_the_work_beside_looks_every_fifth_of_a_second(monkeypatch):
    """Stand-ins for the process table and the clock: the process runs for three looks; the
    wait sleeps 0.2 s between looks (a second between looks would hold the tests that run
    alone up to a second longer for nothing) and returns the time the clock says it waited."""
    import verified.pytest_plugin as plugin

    looks, sleeps, clock = iter([True, True, True, False]), [], iter([10.0, 10.6])
    monkeypatch.setattr(plugin, "process_running", lambda pid: next(looks))
    monkeypatch.setattr(
        plugin, "time", SimpleNamespace(sleep=sleeps.append, perf_counter=lambda: next(clock))
    )
    assert plugin.wait_for_processes((4242,)) == pytest.approx(0.6)
    assert sleeps == [0.2, 0.2, 0.2]


@pytest.mark.parametrize(
    ("waited", "said"),
    [
        (0.049, "had ended when the tests that run alone started"),
        (0.05, "the tests that run alone waited 0.1 s for it to end"),
        (None, "not waited for: nothing ran alone"),
    ],
)
def test_the_summary_says_how_long_the_work_beside_was_waited_for(waited, said, tmp_path):
    """Under 0.05 s counts as not waited for at all; from 0.05 s on, the wait is given."""
    import verified.pytest_plugin as plugin

    lines = []
    summary = {"path": tmp_path / "claims.json", "counts": {"passed": 1}, "reused": 0,
               "beside": ((4242,), waited)}  # fmt: skip
    config = SimpleNamespace(stash={plugin.SUMMARY_KEY: summary}, rootpath=tmp_path)
    plugin.pytest_terminal_summary(SimpleNamespace(write_line=lines.append), config)
    assert lines == [
        "claims report: claims.json (1 passed)",
        f"work started beside this run ({plugin.BESIDE}=4242): {said}",
    ]
