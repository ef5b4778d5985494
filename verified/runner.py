"""Run claims in worker processes and judge what they observed."""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import select
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from verified.claims import ALLOCATOR_VARIABLES, ROOT, Case
from verified.context import RunContext


class WorkerDied(RuntimeError):
    pass


WORKER_MODULE = "verified.worker"

# A timing case is measured in each of these conditions, and passes only if it passes in all:
# its own process as declared; the same after a history that moves glibc's dynamic mmap
# threshold (16 MiB and 40 MiB tensors allocated and freed first); started from a shell
# that sets the allocator one way or the other (the case's own ``env`` wins: the variables do
# not reach its process, which the record shows); with a CPU-bound process busy on another
# core all the while ("busy"); and with the worker pinned to a single core (history
# "pinned": the fresh process pins itself before the snippet runs). Each value: the shell's
# variables, the history the worker runs first, and whether another core is kept busy.
SHELLS = {
    "MALLOC_MMAP_THRESHOLD_=131072": {"MALLOC_MMAP_THRESHOLD_": "131072"},
    "MALLOC_MMAP_THRESHOLD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728": {
        "MALLOC_MMAP_THRESHOLD_": "67108864",
        "MALLOC_TRIM_THRESHOLD_": "134217728",
    },
}
Condition = tuple[dict[str, str], str | None, bool]
TIMING_CONDITIONS: dict[str, Condition] = {
    "clean": ({}, None, False),
    "perturbed": ({}, "perturbed", False),
    **{f"shell {name}": (variables, None, False) for name, variables in SHELLS.items()},
    "busy core": ({}, None, True),
    "pinned to one core": ({}, "pinned", False),
}
NOISY_ATTEMPTS = 3  # a condition whose control was too noisy to judge is measured again
HOG = "while 1: pass"  # the CPU-bound process of the "busy core" condition


@contextlib.contextmanager
def busy_core(busy: bool = True):
    """While the block runs, a CPU-bound process spins on the last core this process may use
    (where there are two or more; on one core it shares that core), then is killed. Yields the
    core it is pinned to, or None."""
    if not busy:
        yield None
        return
    cores = sorted(os.sched_getaffinity(0))
    core = cores[-1] if len(cores) > 1 else None
    hog = subprocess.Popen([sys.executable, "-c", HOG], stdin=subprocess.DEVNULL)
    try:
        if core is not None:
            os.sched_setaffinity(hog.pid, {core})
        yield core
    finally:
        hog.kill()
        hog.wait()


def worker_env(inherited: dict[str, str], allocator: dict[str, str] | None) -> dict[str, str]:
    """The environment of a worker process: ``inherited``, with OpenMP threads that sleep
    when idle (unless set), and, where the case declares its allocator settings, exactly
    those: every inherited MALLOC_* variable and GLIBC_TUNABLES removed first."""
    path = os.pathsep.join(p for p in (str(ROOT), inherited.get("PYTHONPATH")) if p)
    env = {"OMP_WAIT_POLICY": "PASSIVE", **inherited, "PYTHONUNBUFFERED": "1"}
    env["PYTHONPATH"] = path
    if allocator is not None:
        env = {k: v for k, v in env.items() if not ALLOCATOR_VARIABLES.match(k)}
        env.update(allocator)
    return env


class Worker:
    """One ``python -m verified.worker <framework> <device>`` process (``module`` names another
    module that speaks the same protocol: the engine's tests use a stand-in)."""

    def __init__(
        self,
        framework: str,
        device: str,
        start_timeout: float = 180,
        cwd: Path = ROOT,
        module: str = WORKER_MODULE,
        fork: bool = False,
        env: dict[str, str] | None = None,
    ) -> None:
        self.framework, self.device = framework, device
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in close())
            "w+", prefix=f"worker-{framework}-{device}-", suffix=".log", delete=False
        )
        # OpenMP threads that wait for work sleep rather than spin (unless the caller chose):
        # with the lanes side by side on two cores, a spinning thread of one process takes CPU
        # time from the others. No claim times a multi-threaded operation: the timing
        # snippets run PyTorch on one thread, and Paddle sets OMP_NUM_THREADS=1 on import.
        # ``env``: the whole environment (worker_env); default: this process's now (a Runner
        # always passes one, made from its run context).
        env = env if env is not None else worker_env(dict(os.environ), None)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", module, framework, device, *(["--fork"] if fork else [])],
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
            env=env,
            start_new_session=True,  # so that a timeout can kill the snippet's children too
        )
        self.info = self._read(start_timeout)["ready"]

    def _read(self, timeout: float) -> dict:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            self.kill()
            self.close()
            raise TimeoutError(f"no answer within {timeout:g} s")
        line = self.proc.stdout.readline()
        if not line:
            self.kill()
            message = f"worker exited (code {self.proc.poll()}):\n{self.stderr_tail()}"
            self.close()
            raise WorkerDied(message)
        return json.loads(line)

    def request(self, payload: dict, timeout: float) -> dict:
        self.proc.stdin.write(json.dumps(payload) + "\n")
        self.proc.stdin.flush()
        return self._read(timeout)

    def stderr_tail(self, lines: int = 20) -> str:
        self.log.flush()
        text = Path(self.log.name).read_text(encoding="utf-8", errors="replace")
        return "\n".join(text.splitlines()[-lines:])

    def alive(self) -> bool:
        return self.proc.poll() is None

    def kill(self) -> None:
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()

    def stop(self) -> None:
        """Ask the worker to end (its loop ends at EOF), without waiting for it."""
        if self.proc.poll() is None and not self.proc.stdin.closed:
            self.proc.stdin.close()

    def close(self) -> None:
        self.stop()
        if self.proc.poll() is None:
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(timeout=30)
        self.kill()
        for pipe in (self.proc.stdin, self.proc.stdout):
            if pipe and not pipe.closed:
                pipe.close()
        if not self.log.closed:
            self.log.close()
        Path(self.log.name).unlink(missing_ok=True)


class Runner:
    """Runs cases; keeps one long-lived worker per (framework, device) for the cheap kinds,
    and one template per framework on the CPU that forks a fresh process for each isolated
    case (importing Paddle takes seconds; forking takes milliseconds). Every worker starts
    from the environment of the run ``context`` (default: captured when the runner is made),
    never from this process's environment at the time: a test may have set a variable since."""

    def __init__(
        self,
        module: str = WORKER_MODULE,
        infos: dict[str, dict] | None = None,
        context: RunContext | None = None,
    ) -> None:
        self.workers: dict[tuple[str, str], Worker] = {}
        self.templates: dict[tuple, Worker] = {}
        self.infos: dict[str, dict] = {} if infos is None else infos  # may be shared
        self.module = module
        self.context = context or RunContext.capture()

    def base_env(self) -> dict[str, str]:
        """The environment workers start from: the run context's."""
        return dict(self.context.environ)

    # -- environment -----------------------------------------------------------------------
    def info(self, framework: str) -> dict:
        """Versions and CUDA availability, from a CPU worker of that framework."""
        if framework not in self.infos:
            self.infos[framework] = self._worker(framework, "cpu").info
        return self.infos[framework]

    def skip_reason(self, case: Case) -> str | None:
        if case.device == "gpu":
            info = self.info(case.framework)
            if not info["cuda_available"]:
                return info["why_no_gpu"]
        return None

    def _worker(self, framework: str, device: str) -> Worker:
        key = (framework, device)
        worker = self.workers.get(key)
        if worker is None or not worker.alive():
            if worker is not None:  # it ended between two cases: its pipes and log go with it
                worker.close()
            env = worker_env(self.base_env(), None)
            worker = self.workers[key] = Worker(framework, device, module=self.module, env=env)
        return worker

    def template_key(self, framework: str, device: str, env: dict[str, str] | None = None) -> tuple:
        """The key of ``templates`` for a framework, device and environment (default: the
        environment this runner gives its workers)."""
        env = env if env is not None else worker_env(self.base_env(), None)
        return (framework, device, tuple(sorted(env.items())))

    def _template(self, framework: str, device: str, env: dict[str, str] | None = None) -> Worker:
        """The template that forks fresh processes with environment ``env`` (default: the one
        this runner gives its workers): one per framework, device and environment."""
        env = env if env is not None else worker_env(self.base_env(), None)
        key = self.template_key(framework, device, env)
        template = self.templates.get(key)
        if template is None or not template.alive():
            if template is not None:  # as in _worker: close the one that ended
                template.close()
            template = Worker(framework, device, module=self.module, fork=True, env=env)
            self.templates[key] = template
        return template

    def stop_workers(self) -> None:
        """Ask every worker to end, without waiting for them (``close_workers`` waits)."""
        for worker in [*self.workers.values(), *self.templates.values()]:
            worker.stop()

    def close_workers(self) -> None:
        self.stop_workers()  # all of them end side by side
        for worker in [*self.workers.values(), *self.templates.values()]:
            worker.close()
        self.workers.clear()
        self.templates.clear()

    close = close_workers

    # -- running ---------------------------------------------------------------------------
    def observe(
        self,
        case: Case,
        history: str | None = None,
        conditions: dict[str, Condition] | None = None,
    ) -> dict:
        """Run the case and return what it observed (never raises for snippet failures).

        Cheap kinds share one long-lived worker per framework and device; memory and timing
        claims, claims that declare ``env`` and ``mode = "script"`` (in the snippet's folder)
        get a fresh process: forked on the CPU from a template that has only imported the
        framework, started anew on a GPU (CUDA does not survive a fork). Every mode runs in a
        process that set the case's device. A timing case with a verdict is measured in every
        one of ``conditions`` (default ``TIMING_CONDITIONS``; ``observed["conditions"]``); the
        rest of what it observed is the first condition's; a timing case that is shown only
        (``verdict = "shown"``) is measured once, as declared. ``history`` runs one case once,
        after it.
        """
        if case.claim.kind != "timing" or history is not None:
            return self._observe(case, self.base_env(), history)
        if case.spec.get("verdict") == "shown":
            conditions = {"clean": TIMING_CONDITIONS["clean"]}
        started = time.perf_counter()
        measured: dict[str, dict] = {}
        clean: dict = {}
        for name, (shell, condition_history, busy) in (conditions or TIMING_CONDITIONS).items():
            attempts = 0
            while True:
                attempts += 1
                with busy_core(busy) as core:
                    observed = self._observe(case, {**self.base_env(), **shell}, condition_history)
                if attempts == NOISY_ATTEMPTS or not too_noisy(case.spec, observed):
                    break
            summary = condition_summary(observed, attempts, shell, condition_history)
            if busy:
                summary["busy_core"] = core
            measured[name] = summary
            clean = clean or observed
        clean["conditions"] = measured
        clean["duration_s"] = round(time.perf_counter() - started, 3)
        return clean

    def _observe(self, case: Case, inherited: dict[str, str], history: str | None) -> dict:
        payload = {
            "id": case.claim.id,
            "kind": case.claim.kind,
            "snippet": str(case.snippet_path),
            "spec": case.spec,
        }
        if history:
            payload["history"] = history
        cwd = case.snippet_path.parent if case.spec.get("mode") == "script" else ROOT
        env = worker_env(inherited, case.allocator_env)
        started = time.perf_counter()
        try:
            if case.isolated and case.device == "cpu":
                template = self._template(case.framework, case.device, env)
                try:
                    observed = template.request({**payload, "cwd": str(cwd)}, case.timeout)
                except (TimeoutError, WorkerDied):
                    self.templates = {k: t for k, t in self.templates.items() if t is not template}
                    raise
            elif case.isolated:
                worker = Worker(case.framework, case.device, cwd=cwd, module=self.module, env=env)
                try:
                    observed = worker.request(payload, case.timeout)
                finally:
                    worker.close()
            else:
                worker = self._worker(case.framework, case.device)
                try:
                    observed = worker.request(payload, case.timeout)
                except (TimeoutError, WorkerDied):
                    self.workers.pop((case.framework, case.device), None)
                    raise
        except TimeoutError as exc:
            observed = {"harness_error": f"timed out: {exc} (limit {case.timeout:g} s)"}
        except WorkerDied as exc:
            observed = {"harness_error": str(exc)}
        observed["duration_s"] = round(time.perf_counter() - started, 3)
        return observed


TIMING_SUMMARY = (
    "ratio",
    "control_ratio",
    "noise",
    "statistic",
    *(f"{figure}_{s}" for s in ("min", "median") for figure in ("ratio", "control_ratio", "noise")),
    "min_baseline_s",
    "min_candidate_s",
    "min_control_s",
    "median_baseline_s",
    "median_candidate_s",
    "median_control_s",
    "allocator",
    "thp",
    "cpus",
)


def condition_summary(
    observed: dict, attempts: int, shell: dict[str, str], history: str | None
) -> dict:
    """What one timing condition observed: its figures for both statistics, the allocator
    settings its process really ran with, the cores it was pinned to, and any failure."""
    summary = {key: observed[key] for key in TIMING_SUMMARY if key in observed}
    summary.update({"attempts": attempts, "shell": shell, "history": history})
    if "harness_error" in observed:
        summary["harness_error"] = observed["harness_error"]
    if "exception" in observed:
        summary["exception"] = observed["exception"]
    return summary


def too_noisy(spec: dict, observed: dict) -> bool:
    """True if the control of either statistic is further from 1 than ``max_noise`` (never
    for a timing shown only: nothing is judged from it)."""
    if spec.get("verdict") == "shown":
        return False
    limit = float(spec.get("max_noise", MAX_NOISE))
    noises = [observed.get(f"noise_{s}") for s in STATISTICS]
    return any(isinstance(noise, (int, float)) and noise > limit for noise in noises)


# -- judging ---------------------------------------------------------------------------------


def close_enough(expected, observed, tol: float, path: str = "value") -> str | None:
    """None if observed matches expected (floats within tol), else a description."""
    if isinstance(expected, bool) or expected is None or isinstance(expected, str):
        return (
            None
            if observed == expected and type(observed) is type(expected)
            else (f"{path}: expected {expected!r}, observed {observed!r}")
        )
    if isinstance(expected, (int, float)):
        if isinstance(observed, bool) or not isinstance(observed, (int, float)):
            return f"{path}: expected number {expected!r}, observed {observed!r}"
        if isinstance(expected, int) and isinstance(observed, int):
            return (
                None
                if expected == observed
                else f"{path}: expected {expected}, observed {observed}"
            )
        if math.isclose(observed, expected, rel_tol=tol, abs_tol=tol):
            return None
        return f"{path}: expected {expected!r} ± {tol:g}, observed {observed!r}"
    if isinstance(expected, list):
        if not isinstance(observed, list) or len(observed) != len(expected):
            return f"{path}: expected a list of {len(expected)}, observed {observed!r}"
        for i, (e, o) in enumerate(zip(expected, observed, strict=False)):
            problem = close_enough(e, o, tol, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if isinstance(expected, dict):
        if not isinstance(observed, dict) or set(observed) != set(expected):
            return f"{path}: expected keys {sorted(expected)}, observed {observed!r}"
        for key in expected:
            problem = close_enough(expected[key], observed[key], tol, f"{path}.{key}")
            if problem:
                return problem
        return None
    return f"{path}: cannot compare expected {expected!r}"


def device_problem(case: Case, observed: dict) -> str | None:
    """A GPU case must have run with its tensors on a GPU; a CPU case with none there."""
    devices = observed.get("tensor_devices")
    if not isinstance(devices, dict):
        return "no record of where the snippet's tensors were"
    on_gpu = devices.get("gpu", 0)
    if case.device == "gpu" and not on_gpu:
        return f"declared for the GPU, but no tensor of the snippet was on a GPU ({devices})"
    if case.device == "cpu" and on_gpu:
        return f"declared for the CPU, but {on_gpu} tensor(s) of the snippet were on a GPU"
    return None


def exception_line(exc: dict) -> str:
    return f"{exc['type']}: {exc['message']}"


def judge(case: Case, observed: dict) -> tuple[str, str | None]:
    """Return (status, reason) for what a case observed against its expectation: status is
    "passed", "failed" or "not-runnable" (a version override declared the snippet unrunnable
    on this version and it failed as declared, or the version offers no measurement)."""
    spec, kind = case.spec, case.claim.kind
    exc = observed.get("exception")
    if case.unrunnable is not None:
        # declared for this release: the snippet raises, or crashes its process, as stated
        failure = exception_line(exc) if exc else observed.get("harness_error")
        if failure and re.search(case.unrunnable, failure, re.DOTALL):
            return "not-runnable", failure[:300]
        got = failure[:300] if failure else "it ran without an error"
        return "failed", f"expected to be unrunnable ({case.unrunnable!r}), but {got}"
    if "harness_error" in observed:
        return "failed", observed["harness_error"]
    if "unmeasurable" in observed:
        return "not-runnable", observed["unmeasurable"]
    problem = device_problem(case, observed)
    if problem:
        return "failed", problem
    if kind == "error":
        if exc is None:
            return "failed", f"expected {spec['type']} but the snippet ran without raising"
        if exc["type"] != spec["type"]:
            return "failed", f"expected {spec['type']}, got {exc['type']}: {exc['message'][:300]}"
        if not re.search(spec["match"], exc["message"], re.DOTALL):
            return "failed", f"message does not match {spec['match']!r}: {exc['message'][:500]}"
        return "passed", None
    if exc is not None:
        return "failed", f"snippet raised {exc['type']}: {exc['message'][:300]}\n{exc['traceback']}"
    if kind == "value":
        problem = close_enough(spec["value"], observed.get("value"), float(spec.get("tol", 1e-6)))
    elif kind == "behaviour":
        problem = facts_problem(spec["facts"], observed.get("value"))
    elif kind == "measurement":  # shown, never asserted: it passes if it ran and was observed
        problem = None if "value" in observed else "nothing observed"
    elif kind == "memory":
        problem = _bytes_problem(
            spec["bytes"], observed.get("bytes"), int(spec.get("tol_bytes", 0))
        )
        if problem is None:
            problem = _bytes_problem(
                observed.get("theoretical_bytes"),
                observed.get("bytes"),
                int(spec.get("tol_theoretical", 0)),
                what="theoretical",
            )
    else:  # timing
        conditions = observed.get("conditions") or {"clean": observed}
        problem = None
        for name, measured in conditions.items():
            problem = timing_problem(spec, measured)
            if problem:
                problem = f"{name}: {problem}"
                break
    return ("failed", problem) if problem else ("passed", None)


MARGIN = 1.15  # default: how far beyond its own control a ratio must (faster) or may (similar) go
MAX_NOISE = 1.20  # default: a control further from 1 than this is too noisy to judge
# A verdict must hold on both statistics, each against its own control. Why both: load that
# lands on one side of the comparison moves each statistic differently. The minimum ignores
# load that only adds time to some runs, but one lucky run of one side (a run that found the
# caches warm, or the other core idle) moves it, and the control cannot see that; the median
# ignores single runs, but load that lasts through a third of the runs moves it. A verdict
# that load flipped must therefore fool both at once, each bounded by its own same-run
# control (the baseline timed twice, alternating), and a run where load hit the sides
# unevenly shows up as a control far from 1 in one of them: too noisy to judge, measured
# again, never judged the other way.
STATISTICS = ("min", "median")


def timing_problem(spec: dict, measured: dict) -> str | None:
    """None if one condition's measurement bears out the claim, else why not. The bound is
    the same run's control, not a figure found on some machine, and both statistics must bear
    it out (``STATISTICS``): ``faster`` needs each ratio above that statistic's ``noise ×
    margin`` (noise: how far identical code on both sides was from 1), however noisy the
    control: a noisier one only raises the bar; ``similar`` needs each within a factor
    ``noise × margin`` of 1, either way, and refuses a control further from 1 than
    ``max_noise``; ``shown`` asserts nothing about the figures (only that they were
    measured)."""
    if "harness_error" in measured:
        return measured["harness_error"]
    if "exception" in measured:
        exc = measured["exception"]
        return f"snippet raised {exc['type']}: {exc['message'][:300]}"
    if spec["verdict"] == "shown":
        return None
    margin = float(spec.get("margin", MARGIN))
    max_noise = float(spec.get("max_noise", MAX_NOISE))
    for statistic in STATISTICS:
        ratio, noise = measured.get(f"ratio_{statistic}"), measured.get(f"noise_{statistic}")
        if not isinstance(ratio, (int, float)) or not isinstance(noise, (int, float)):
            return f"{statistic}: no ratio and control observed: {ratio!r}, {noise!r}"
        # A noisy control raises the bar of "faster" (the ratio must clear noise × margin), so
        # a ratio that clears it under load bears the verdict out: judged, not refused. For
        # "similar" it would lower the bar (a wider band around 1), so there it is refused.
        if noise > max_noise and spec["verdict"] != "faster":
            return (
                f"{statistic}: too noisy to judge: identical code on both sides differed "
                f"{noise:.3f}× (at most {max_noise:g}× allowed)"
            )
        bound = noise * margin
        if spec["verdict"] == "faster" and ratio < bound:
            return (
                f"{statistic}: ratio {ratio:.3f} not above control {noise:.3f} × margin "
                f"{margin:g} = {bound:.3f}"
            )
        if spec["verdict"] == "similar" and max(ratio, 1 / ratio) > bound:
            return (
                f"{statistic}: ratio {ratio:.3f} further from 1 than control {noise:.3f} × "
                f"margin {margin:g} = {bound:.3f}"
            )
    return None


def facts_problem(facts: dict, value) -> str | None:
    if not isinstance(value, dict):
        return f"observe must return a dict, got {value!r}"
    missing = [k for k in facts if k not in value]
    if missing:
        return f"facts not observed: {missing}"
    for key, want in facts.items():
        problem = close_enough(want, value[key], 0.0, key)
        if problem:
            return problem
    return None


def _bytes_problem(expected, observed, tol: int, what: str = "bytes") -> str | None:
    """None if ``observed`` bytes are within ``tol`` of ``expected`` (per region)."""
    if isinstance(expected, dict):
        if not isinstance(observed, dict) or set(expected) != set(observed):
            return f"{what}: expected regions {sorted(expected)}, observed {observed!r}"
        for name in expected:
            problem = _bytes_problem(expected[name], observed[name], tol, what)
            if problem:
                return f"{name}: {problem}"
        return None
    if not isinstance(expected, int) or isinstance(expected, bool):
        return f"{what}: no figure to compare ({expected!r})"
    if not isinstance(observed, int) or isinstance(observed, bool):
        return f"{what}: observed {observed!r}, not a byte count"
    if abs(observed - expected) <= tol:
        return None
    label = "measured vs theoretical" if what == "theoretical" else what
    return f"{label}: expected {expected:,} ± {tol:,}, observed {observed:,}"
