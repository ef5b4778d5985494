"""The GPU run itself: the GPU cases of every installed framework through the carried pytest,
the cases of a framework that is not installed recorded as skipped, the report with its host,
and a one-screen summary. Imported by ``python3 -m verified.gpu`` once the carried wheels are
on ``sys.path`` (this module needs ``packaging`` through the claims engine).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from verified.claims import FRAMEWORK_NAMES, FRAMEWORKS, ROOT, SNIPPETS, Case, all_cases
from verified.context import RunContext
from verified.gpu import CASE_TIMEOUT_S, DEADLINE_S, GRACE_S, NAME
from verified.report import case_name, environment, record, write

WORK = ROOT / "build" / "gpu"  # pytest's log and its raw report
RESULTS = ROOT / "results"


def not_installed_reason(framework: str, ran: list[str]) -> str:
    others = " and ".join(FRAMEWORK_NAMES[fw] for fw in ran) or "no framework"
    return (
        f"{FRAMEWORK_NAMES[framework]} is not installed on this machine: only the GPU cases "
        f"of {others} ran here"
    )


def gpu_cases(snippets: Path = SNIPPETS) -> dict[tuple[str, str, str], Case]:
    """Every declared GPU case, merged for the installed framework versions (None where the
    framework is not installed)."""
    return {key: case for key, case in all_cases(snippets).items() if case.device == "gpu"}


def not_installed_records(cases: dict, ran: list[str], context: RunContext) -> list[dict]:
    """A skipped record for each GPU case of a framework that is not installed here, made from
    the run ``context``."""
    records = []
    for (_, framework, _), case in cases.items():
        if framework in ran:
            continue
        info = {"framework": framework, "python": context.python}
        env = environment(info, "gpu", context)
        reason = not_installed_reason(framework, ran)
        rec = record(case, status="skipped", env=env, reason=reason, context=context)
        rec["skip"] = {"code": "not_installed", "version": None}
        records.append(rec)
    return records


def slug(text: str) -> str:
    """A report name from a GPU's name: "NVIDIA H200" -> "nvidia-h200"."""
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


# -- running pytest within a deadline ------------------------------------------------------------


def children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (Linux /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue
        after_name = text.rsplit(")", 1)[-1].split()  # the name may hold spaces and parentheses
        if len(after_name) > 1 and after_name[1] == str(pid):
            found.append(int(stat.parent.name))
    return found


def kill_children(pid: int) -> None:
    """Kill the processes ``pid`` started, with their process groups: the engine starts each
    worker in a session of its own, and a snippet's processes stay in its worker's group."""
    for child in children(pid):
        try:
            os.killpg(child, signal.SIGKILL)
        except ProcessLookupError:  # not a group leader: the process alone
            with contextlib.suppress(ProcessLookupError):
                os.kill(child, signal.SIGKILL)
        except PermissionError:
            pass


def run_with_deadline(
    cmd: list[str], *, env: dict, cwd: Path, log: Path, deadline: float, grace: float = GRACE_S
) -> tuple[int, bool]:
    """Run ``cmd`` with its output in ``log``. Past ``deadline`` seconds it is interrupted as by
    Ctrl-C (pytest then ends its session and writes the report of the cases that ran) and the
    processes it started are killed, so that what they are running cannot hold it; past
    ``grace`` more seconds it is killed too. Returns (exit code, whether the deadline hit)."""
    # Started in the background (`cmd &` in a script), this process ignores SIGINT and its child
    # would inherit that: pytest would not stop at the deadline. Catch it while the child
    # starts, so the child starts with the default (caught handlers are reset on exec).
    ignored = signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    with log.open("w", encoding="utf-8") as out:
        if ignored:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        try:
            proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=out, stderr=subprocess.STDOUT)
        finally:
            if ignored:
                signal.signal(signal.SIGINT, signal.SIG_IGN)
        try:
            return proc.wait(timeout=deadline), False
        except subprocess.TimeoutExpired:
            proc.send_signal(signal.SIGINT)
        end = time.monotonic() + grace
        with contextlib.suppress(subprocess.TimeoutExpired):
            return proc.wait(timeout=1), True  # the interrupt reaches pytest's main thread
        while time.monotonic() < end:
            kill_children(proc.pid)
            with contextlib.suppress(subprocess.TimeoutExpired):
                return proc.wait(timeout=0.5), True
        kill_children(proc.pid)
        proc.kill()
        return proc.wait(), True


# -- what the run found ----------------------------------------------------------------------------


def host_block(records: list[dict], machine_pytest: str | None, context: RunContext) -> dict:
    """The machine of the run: the GPU facts its torch (or Paddle) worker read (driver, CUDA,
    the framework's build), or why there was no GPU; the processor, Python, the frameworks
    (from the run ``context``) and the pytest that ran (the carried one) and the one the
    machine has."""
    facts = next(
        (
            r["env"]["gpu_host"]
            for r in records
            if r["device"] == "gpu" and (r.get("env") or {}).get("gpu_host")
        ),
        None,
    )
    no_gpu = None
    if facts is None:  # each installed framework's reason, as its worker gave it
        reasons = {
            r["framework"]: r["reason"]
            for r in records
            if r["status"] == "skipped" and (r.get("skip") or {}).get("code") != "not_installed"
        }
        no_gpu = "; ".join(reasons[fw] for fw in sorted(reasons)) or "no GPU case ran"
    return {
        "gpu": facts,
        "no_gpu": no_gpu,
        "cpu": context.host["cpu"],
        "cores": context.host["cores"],
        "usable_cores": context.host["usable_cores"],
        "python": context.python,
        "executable": sys.executable,
        "platform": context.platform,
        "frameworks": dict(context.versions),
        "pytest": metadata.version("pytest"),
        "machine_pytest": machine_pytest,
    }


@dataclass
class Outcome:
    """A finished run, as the summary and the exit status see it."""

    name: str
    records: list[dict]  # this run's records, skipped ones of frameworks not installed included
    expected: list[str]  # the case names that must have a record
    report: str  # where the report landed
    copy: str | None  # its copy under $OUT
    log: str
    wall_s: float
    deadline_s: float
    stopped: bool  # the deadline interrupted pytest
    host: dict
    pytest_rc: int | None  # None: pytest did not run (no framework installed)
    log_tail: str = ""

    def missing(self) -> list[str]:
        have = {case_name(r["id"], r["framework"], r["device"]) for r in self.records}
        return [name for name in self.expected if name not in have]

    def failed(self) -> list[dict]:
        return [r for r in self.records if r["status"] == "failed"]

    def exit_code(self) -> int:
        """0: every case has a record and none failed; 1: some failed; 2: some have none."""
        if self.missing():
            return 2
        return 1 if self.failed() else 0


def minutes(seconds: float) -> str:
    whole = round(seconds)
    return f"{whole // 60} min {whole % 60:02d} s" if whole >= 60 else f"{seconds:.1f} s"


def one_line(text: str | None, width: int = 150) -> str:
    first = (text or "").strip().splitlines()[0] if (text or "").strip() else "(no reason)"
    return first if len(first) <= width else first[: width - 1] + "…"


def host_line(host: dict) -> str:
    gpu = host.get("gpu")
    if gpu:
        build = ", ".join(
            part
            for part in (
                f"CUDA {gpu.get('cuda_runtime')}" if gpu.get("cuda_runtime") else "",
                f"cuDNN {gpu.get('cudnn')}" if gpu.get("cudnn") else "",
            )
            if part
        )
        framework = gpu.get("torch") or gpu.get("paddle")
        shown = (
            f"{gpu.get('gpu')} ×{gpu.get('gpus', 1)}, driver {gpu.get('driver') or '?'} "
            f"(CUDA {gpu.get('cuda_driver') or '?'}); build {framework} ({build})"
        )
    else:
        shown = f"no GPU: {one_line(host.get('no_gpu'), 110)}"
    cpu = f"{host.get('cpu')} ({host.get('usable_cores')} of {host.get('cores')} cores)"
    python = f"Python {host.get('python')}"
    pytest = f"pytest {host.get('pytest')} (the machine's: {host.get('machine_pytest') or 'none'})"
    return f"{shown}\n  {cpu}; {python}; {pytest}"


def summary(outcome: Outcome) -> str:
    """One screen: the host, counts by framework and status, each failure and each reason for
    skipping in one line, what has no record, where the report landed, the wall time."""
    lines = [f"GPU run gpu-{outcome.name}", f"  {host_line(outcome.host)}"]
    for fw in FRAMEWORKS:
        mine = Counter(r["status"] for r in outcome.records if r["framework"] == fw)
        if mine:
            shown = ", ".join(f"{n} {status}" for status, n in sorted(mine.items()))
            lines.append(f"{FRAMEWORK_NAMES[fw]}: {shown}")
    failed = outcome.failed()
    if failed:
        lines.append(f"failed ({len(failed)}):")
        lines += [
            f"  {case_name(r['id'], r['framework'], r['device'])}: {one_line(r.get('reason'))}"
            for r in failed
        ]
    reasons = Counter(
        (r["framework"], one_line(r.get("reason"), 120))
        for r in outcome.records
        if r["status"] == "skipped"
    )
    if reasons:
        lines.append("skipped:")
        lines += [
            f"  {FRAMEWORK_NAMES[fw]}, {n} case{'s' if n > 1 else ''}: {why}"
            for (fw, why), n in sorted(reasons.items())
        ]
    missing = outcome.missing()
    if missing:
        why = (
            f"the {minutes(outcome.deadline_s)} deadline stopped pytest"
            if outcome.stopped
            else f"pytest exited with code {outcome.pytest_rc}"
        )
        shown = ", ".join(missing[:6]) + (
            f", … ({len(missing) - 6} more)" if len(missing) > 6 else ""
        )
        lines.append(f"no record ({len(missing)}; {why}): {shown}")
    if outcome.log_tail and (missing or outcome.pytest_rc not in (0, 1, None)):
        lines.append("end of pytest's log:")
        lines += [f"  | {line}" for line in outcome.log_tail.splitlines()]
    copy = f", copied to {outcome.copy}" if outcome.copy else ""
    lines.append(f"report: {outcome.report} ({len(outcome.records)} cases){copy}")
    lines.append(f"pytest's log: {outcome.log}")
    lines.append(
        f"wall time: {minutes(outcome.wall_s)}"
        + (" (stopped at the deadline)" if outcome.stopped else "")
    )
    return "\n".join(lines)


# -- the run ---------------------------------------------------------------------------------------


def pytest_command(frameworks: list[str], case_timeout: float) -> list[str]:
    return [
        sys.executable,
        "-m",
        "pytest",
        "snippets",
        "-q",
        "-p",
        "verified.gpu.plugin",
        "-p",
        "no:cacheprovider",
        f"--gpu-frameworks={','.join(frameworks)}",
        f"--gpu-case-timeout={case_timeout:g}",
    ]


def shown(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)


def run(
    *,
    site: Path,
    name: str | None = None,
    deadline: float = DEADLINE_S,
    case_timeout: float = CASE_TIMEOUT_S,
    machine_pytest: str | None = None,
    started: float | None = None,
) -> Outcome:
    """Run every GPU case of the installed frameworks; write ``results/gpu-<name>.json`` (and a
    copy under ``$OUT`` where that folder exists); print the summary."""
    started = time.monotonic() if started is None else started
    context = RunContext.capture()  # what this process's records and host block say
    versions = dict(context.versions)
    ran = [fw for fw in FRAMEWORKS if versions[fw]]
    cases = gpu_cases()
    WORK.mkdir(parents=True, exist_ok=True)
    raw, log = WORK / "pytest-report.json", WORK / "pytest.log"
    raw.unlink(missing_ok=True)
    log.unlink(missing_ok=True)
    rc, stopped = None, False
    if ran:
        path = [str(site), str(ROOT), os.environ.get("PYTHONPATH", "")]
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join(p for p in path if p),  # the workers inherit it
            "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",  # none of the machine's pytest plugins
            "AUTOGRAD_REPORT": str(raw),
            "AUTOGRAD_REPORT_NAME": "gpu run",
        }
        print(
            f"GPU kit: the GPU cases of {', '.join(FRAMEWORK_NAMES[fw] for fw in ran)} "
            f"({sum(1 for key in cases if key[1] in ran)}), deadline {minutes(deadline)}, "
            f"at most {case_timeout:g} s a case; pytest's log: {shown(log)}",
            flush=True,
        )
        rc, stopped = run_with_deadline(
            pytest_command(ran, case_timeout), env=env, cwd=ROOT, log=log, deadline=deadline
        )
    records = []
    if raw.is_file():
        records = json.loads(raw.read_text(encoding="utf-8"))["claims"]
    records += not_installed_records(cases, ran, context)
    gpu = next((r["env"].get("gpu") for r in records if (r.get("env") or {}).get("gpu")), None)
    name = name or (slug(gpu) if gpu else "") or "no-gpu"
    if not NAME.match(name):
        raise ValueError(f"--name {name!r}: use lowercase letters, digits, '.', '_' and '-'")
    target = RESULTS / f"gpu-{name}.json"
    target.unlink(missing_ok=True)  # the report is this run's, nothing merged from before
    report = write(records, target, name=f"gpu-{name}", context=context)
    host = host_block(report["claims"], machine_pytest, context)
    report["host"] = host
    target.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    copy = None
    out = os.environ.get("OUT")
    if out and Path(out).is_dir():
        shutil.copyfile(target, Path(out) / target.name)
        if log.is_file():
            shutil.copyfile(log, Path(out) / f"gpu-{name}.log")
        copy = f"$OUT/{target.name} (and the log, $OUT/gpu-{name}.log)"
    tail = ""
    if log.is_file():
        tail = "\n".join(log.read_text(encoding="utf-8", errors="replace").splitlines()[-15:])
    outcome = Outcome(
        name=name,
        records=report["claims"],
        expected=[case_name(*key) for key in cases],
        report=shown(target),
        copy=copy,
        log=shown(log),
        wall_s=time.monotonic() - started,
        deadline_s=deadline,
        stopped=stopped,
        host=host,
        pytest_rc=rc,
        log_tail=tail,
    )
    print(summary(outcome), flush=True)
    return outcome
