"""Every timing claim keeps its verdict whatever the process did before, whatever the C
allocator's settings, the load on the machine and the cores it is given (issue 19: on an AMD
EPYC machine the PyTorch speed claims failed in every run, because whether a new 4 MiB result
costs page faults depends on the allocator's state; issue 25: on an Intel Xeon machine a
verdict near 1 failed, and load could flip a verdict judged on the fastest runs alone).

The engine measures each timing case with a verdict in every one of ``TIMING_CONDITIONS``: its
own process as declared; the same after 16 MiB and 40 MiB tensors were allocated and freed;
started from a shell with ``MALLOC_MMAP_THRESHOLD_=131072``, and from one with
``MALLOC_MMAP_THRESHOLD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728``; with a CPU-bound process
busy on another core; and pinned to a single core. A case passes only if it passes in all of
them, on the fastest and on the median runs (tests/test_judge.py). Here: the conditions are
what they say (with a stand-in worker, and the busy process itself), and, on the report of this
run, every timing case of both frameworks was measured in all of them with the same verdict.
Before the fix of issue 19, the same conditions flipped all six speed claims (commit
"Reproduce issue 19"). And the page-fault claims hold whatever the kernel's huge-page mode:
the worker turns transparent huge pages off for itself, and allowing them (with a C library
that asks for them) collapses the counts.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest
from claimkit import VERSIONS, context_for, make_snippets

from verified.claims import ROOT, all_cases
from verified.runner import (
    HOG,
    SHELLS,
    TIMING_CONDITIONS,
    Runner,
    busy_core,
    judge,
    worker_env,
)
from verified.worker import ALLOW_THP, thp_mode

FAKE = "tests.fakeworker"


@pytest.fixture
def cases(tmp_path):
    return all_cases(make_snippets(tmp_path), VERSIONS)


def test_the_conditions_are_the_ones_the_issue_names():
    assert TIMING_CONDITIONS == {
        "clean": ({}, None, False),
        "perturbed": ({}, "perturbed", False),
        "shell MALLOC_MMAP_THRESHOLD_=131072": ({"MALLOC_MMAP_THRESHOLD_": "131072"}, None, False),
        "shell MALLOC_MMAP_THRESHOLD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728": (
            {"MALLOC_MMAP_THRESHOLD_": "67108864", "MALLOC_TRIM_THRESHOLD_": "134217728"},
            None,
            False,
        ),
        "busy core": ({}, None, True),
        "pinned to one core": ({}, "pinned", False),
    }
    assert len(SHELLS) == 2


def command_line(proc: Path, state: str) -> list[bytes]:
    """A process's command line. A child that ``Popen`` has just returned may still be inside
    its exec, where /proc shows an empty command line until the kernel has set the new one
    (seen in 221 of 300 starts on a loaded machine; CI of 2026-12-06 failed on it): a live
    process is read again until it shows one; a process that is ending shows none."""
    for _ in range(100_000):
        cmdline = (proc / "cmdline").read_bytes()
        if cmdline or state in "ZX":
            return cmdline.split(b"\0")
    raise AssertionError(f"{proc}: a running process with no command line after 100000 reads")


def hogs() -> dict[int, set[int]]:
    """This process's children that run ``HOG``: pid -> the cores they may run on."""
    found = {}
    for status in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = status.read_text().rsplit(")", 1)[1].split()
            if int(fields[1]) != os.getpid():
                continue
            cmdline = command_line(status.parent, fields[0])
        except (OSError, IndexError):
            continue  # a process that ended meanwhile
        if HOG.encode() in cmdline:
            found[int(status.parent.name)] = os.sched_getaffinity(int(status.parent.name))
    return found


def cpu_ticks(pid: int) -> int:
    """The user and system CPU time a process has used, in clock ticks (/proc/PID/stat)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def test_the_busy_core_spins_on_another_core_while_it_lasts_and_then_ends():
    cores = sorted(os.sched_getaffinity(0))
    assert hogs() == {}
    with busy_core() as core:
        running = hogs()
        assert len(running) == 1, running
        (pid,) = running
        if len(cores) > 1:
            assert core == cores[-1] and running[pid] == {core}
        else:
            assert core is None
        first = cpu_ticks(pid)
        time.sleep(0.3)
        assert cpu_ticks(pid) > first  # it uses CPU time: it spins
    assert hogs() == {}
    with busy_core(False) as core:
        assert core is None and hogs() == {}


def test_a_case_runs_with_its_own_allocator_settings_and_none_inherited():
    shell = {"PATH": "/bin", "MALLOC_MMAP_THRESHOLD_": "131072", "GLIBC_TUNABLES": "x=1",
             "MALLOC_ARENA_MAX": "2"}  # fmt: skip
    env = worker_env(shell, {"MALLOC_TRIM_THRESHOLD_": "134217728"})
    assert {k: v for k, v in env.items() if "MALLOC" in k or "TUNABLES" in k} == {
        "MALLOC_TRIM_THRESHOLD_": "134217728"
    }
    assert env["PATH"] == "/bin" and env["OMP_WAIT_POLICY"] == "PASSIVE"
    assert worker_env(shell, {}).keys().isdisjoint({"MALLOC_MMAP_THRESHOLD_", "GLIBC_TUNABLES"})
    inherited = worker_env(shell, None)  # a case that declares nothing keeps the caller's
    assert inherited["MALLOC_MMAP_THRESHOLD_"] == "131072"


@pytest.mark.parametrize("declared", [{"MALLOC_MMAP_THRESHOLD_": "131072"}, {}])
def test_every_condition_runs_in_a_process_of_the_declared_state(cases, declared):
    """With a stand-in worker: six requests, the perturbed and the pinned one with their
    history, the busy one beside a busy core, and every process started with exactly the
    declared settings, whatever the shell set."""
    shell = {**os.environ, "MALLOC_TOP_PAD_": "1"}  # the caller's own setting never reaches it
    case = cases[("fixture.speed", "torch", "cpu")]
    case = type(case)(case.claim, case.framework, case.device, {**case.spec, "env": declared},
                      case.version)  # fmt: skip
    runner = Runner(FAKE, context=context_for(environ=shell))
    try:
        observed = runner.observe(case)
    finally:
        runner.close()
    conditions = observed["conditions"]
    assert list(conditions) == list(TIMING_CONDITIONS)
    assert all(c["allocator"] == declared for c in conditions.values()), conditions
    histories = [None, "perturbed", None, None, None, "pinned"]
    assert [c["history"] for c in conditions.values()] == histories
    cores = sorted(os.sched_getaffinity(0))
    assert conditions["busy core"]["busy_core"] == (cores[-1] if len(cores) > 1 else None)
    assert [n for n, c in conditions.items() if "busy_core" in c] == ["busy core"]
    assert observed["allocator"] == declared and "request" in observed


@pytest.mark.site  # on the report of this run: after the claims ran
def test_every_timing_claim_was_measured_in_every_condition_with_its_declared_settings():
    """A record passes only if every condition passed (``judge``; tests/test_judge.py), so
    judging its conditions again here would add nothing: what the report must also show is
    that each condition was measured, in a process that ran with the declared settings."""
    report = json.loads((ROOT / "build" / "claims.json").read_text(encoding="utf-8"))
    records = {(r["id"], r["framework"]): r for r in report["claims"] if r["kind"] == "timing"}
    timing = [c for c in all_cases().values() if c.claim.kind == "timing" and c.device == "cpu"]
    assert {c.framework for c in timing} == {"paddle", "torch"}
    for case in timing:
        rec = records.get((case.claim.id, case.framework))
        assert rec is not None, f"{case.name}: no record in build/claims.json"
        if rec["status"] == "not-runnable":
            continue
        conditions = rec["observed"]["conditions"]
        if case.spec["verdict"] == "shown":  # nothing judged: measured once, as declared
            assert list(conditions) == ["clean"], case.name
            continue
        assert list(conditions) == list(TIMING_CONDITIONS), case.name
        settings = {json.dumps(c["allocator"], sort_keys=True) for c in conditions.values()}
        assert settings == {json.dumps(case.allocator_env, sort_keys=True)}, case.name
        assert all(c["thp"]["disabled_for_worker"] for c in conditions.values()), case.name


# -- transparent huge pages ------------------------------------------------------------------

HUGE_PAGES = "glibc.malloc.hugetlb=1"  # glibc 2.35+: malloc asks for huge pages (madvise)


@pytest.mark.skipif(
    thp_mode() in (None, "never"), reason=f"transparent huge pages are {thp_mode()} here"
)
def test_the_workers_own_setting_decides_the_page_fault_counts(monkeypatch):
    """A page-fault claim run with huge pages within reach (the C library asks for them): with
    the worker's own setting (huge pages off) it passes, with its 256 MiB results at one fault
    per 4 KiB page; allowed (``AUTOGRAD_ALLOW_THP=1``, for tests only) the counts collapse and
    the claim fails. Measured here (glibc 2.36, mode "madvise") with huge pages allowed: from
    1,280 faults per call, against 65,536 pages, to a third of the pages, by what the kernel
    had free; the test asks no call to fault on every page and one on under half. On a kernel
    in mode "always" no tunable is needed to get them."""
    case = all_cases()[("inplace.page-faults-new-memory", "torch", "cpu")]
    spec = {**case.spec, "env": {**case.spec["env"], "GLIBC_TUNABLES": HUGE_PAGES}}
    case = type(case)(case.claim, case.framework, case.device, spec, case.version)
    observed = {}
    for allowed in (False, True):
        if allowed:
            monkeypatch.setenv(ALLOW_THP, "1")
        runner = Runner()
        try:
            observed[allowed] = runner.observe(case)
        finally:
            runner.close()
        assert observed[allowed]["allocator"]["GLIBC_TUNABLES"] == HUGE_PAGES
        thp = {"system": thp_mode(), "disabled_for_worker": not allowed}
        assert observed[allowed]["thp"] == thp
    pages = observed[False]["value"]["faults"]["256"]["pages per result"]
    assert judge(case, observed[False]) == ("passed", None)
    assert min(observed[False]["value"]["faults"]["256"]["out_of_place"]) >= 2 * pages
    status, reason = judge(case, observed[True])
    assert status == "failed" and reason.startswith("every_call_"), reason
    assert observed[True]["value"]["every_call_256_mib"] is False
    # No call faults on every 4 KiB page, and huge pages serve at least half of one call: how
    # many a given call gets depends on the kernel's free huge pages at that moment. Clean-clone
    # CI on this Intel host gave 22,742, 1,280 and 1,280 faults against 65,536 pages after an hour
    # of mutation tests (asking all three calls for under a tenth failed), and 22,231, 12,011
    # and 9,967 with the GPU kit's simulation beside it (asking one call for under a tenth
    # failed). What holds whatever the kernel has free is the verdict above.
    faults = observed[True]["value"]["faults"]["256"]["out_of_place"]
    assert max(faults) < pages and min(faults) < pages // 2, (faults, pages)
