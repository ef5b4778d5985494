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

from verified.claims import ROOT, Case


class WorkerDied(RuntimeError):
    pass


class Worker:
    """One ``python -m verified.worker <framework> <device>`` process."""

    def __init__(self, framework: str, device: str, start_timeout: float = 180) -> None:
        self.framework, self.device = framework, device
        self.log = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed in close())
            "w+", prefix=f"worker-{framework}-{device}-", suffix=".log", delete=False
        )
        env = dict(os.environ, PYTHONUNBUFFERED="1", AUTOGRAD_DEVICE=device)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "verified.worker", framework, device],
            cwd=ROOT,
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

    def close(self) -> None:
        if self.proc.poll() is None and not self.proc.stdin.closed:
            self.proc.stdin.close()  # the worker's loop ends at EOF
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
    """Runs cases; keeps one long-lived worker per (framework, device) for the cheap kinds."""

    def __init__(self) -> None:
        self.workers: dict[tuple[str, str], Worker] = {}
        self.infos: dict[str, dict] = {}

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
                return f"GPU case not run here: {info['why_no_gpu']}"
        return None

    def _worker(self, framework: str, device: str) -> Worker:
        key = (framework, device)
        worker = self.workers.get(key)
        if worker is None or not worker.alive():
            worker = self.workers[key] = Worker(framework, device)
        return worker

    def close(self) -> None:
        for worker in self.workers.values():
            worker.close()
        self.workers.clear()

    # -- running ---------------------------------------------------------------------------
    def observe(self, case: Case) -> dict:
        """Run the case and return what it observed (never raises for snippet failures)."""
        payload = {
            "id": case.claim.id,
            "kind": case.claim.kind,
            "snippet": str(case.snippet_path),
            "spec": case.spec,
        }
        started = time.perf_counter()
        try:
            if case.spec.get("mode") == "script":
                observed = self._run_script(case)
            elif case.isolated:
                worker = Worker(case.framework, case.device)
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
            observed = {"harness_error": f"timed out: {exc} (limit {case.timeout:.0f} s)"}
        except WorkerDied as exc:
            observed = {"harness_error": str(exc)}
        observed["duration_s"] = round(time.perf_counter() - started, 3)
        return observed

    def _run_script(self, case: Case) -> dict:
        """Run the snippet as ``python <snippet>`` (needed when it starts processes itself)."""
        env = dict(os.environ, PYTHONUNBUFFERED="1", AUTOGRAD_DEVICE=case.device)
        proc = subprocess.Popen(
            [sys.executable, case.snippet_path.name],
            cwd=case.snippet_path.parent,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env=env,
            start_new_session=True,
        )
        try:
            stdout, stderr = proc.communicate(timeout=case.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise TimeoutError(f"{case.snippet_path.name} did not finish") from None
        finally:
            with contextlib.suppress(ProcessLookupError):  # leave nothing running
                os.killpg(proc.pid, signal.SIGKILL)
        observed: dict = {"output": stdout}
        if proc.returncode != 0:
            last = [ln for ln in stderr.splitlines() if re.match(r"^[\w.]+(Error|Exception)", ln)]
            name, _, message = (last[-1] if last else "ProcessError: ").partition(": ")
            observed["exception"] = {
                "type": name.rsplit(".", 1)[-1],
                "message": message,
                "traceback": "\n".join(stderr.splitlines()[-15:]),
            }
            return observed
        if "observe" in case.spec:
            scope = {"output": stdout, "re": re, "json": json}
            try:
                observed["value"] = eval(case.spec["observe"], scope)  # noqa: S307
            except Exception as exc:
                observed["harness_error"] = f"observe failed: {exc!r}"
        return observed


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


def judge(case: Case, observed: dict) -> tuple[str, str | None]:
    """Return (status, reason) for what a case observed against its expectation."""
    spec, kind = case.spec, case.claim.kind
    if "harness_error" in observed:
        return "failed", observed["harness_error"]
    exc = observed.get("exception")
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
        value = observed.get("value")
        if not isinstance(value, dict):
            problem = f"observe must return a dict, got {value!r}"
        else:
            missing = [k for k in spec["facts"] if k not in value]
            problem = f"facts not observed: {missing}" if missing else None
            for key, want in spec["facts"].items():
                if problem is None:
                    problem = close_enough(want, value[key], 0.0, key)
    elif kind == "memory":
        problem = _bytes_problem(spec["bytes"], observed["bytes"], int(spec.get("tol_bytes", 0)))
    else:  # timing
        ratio = observed["ratio"]
        low, high = spec.get("ratio_min", 0.0), spec.get("ratio_max", math.inf)
        problem = None if low <= ratio <= high else f"ratio {ratio:.3f} outside [{low}, {high}]"
    return ("failed", problem) if problem else ("passed", None)


def _bytes_problem(expected, observed, tol: int) -> str | None:
    if isinstance(expected, dict):
        if not isinstance(observed, dict) or set(expected) != set(observed):
            return f"bytes: expected regions {sorted(expected)}, observed {observed!r}"
        for name in expected:
            problem = _bytes_problem(expected[name], observed[name], tol)
            if problem:
                return f"{name}: {problem}"
        return None
    if abs(observed - expected) <= tol:
        return None
    return f"bytes: expected {expected:,} ± {tol:,}, observed {observed:,}"
