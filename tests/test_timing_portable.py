"""Every timing claim keeps its verdict whatever the process did before and whatever the C
allocator's settings (issue 19: on an AMD EPYC machine the PyTorch speed claims failed in every
run, because whether a new 4 MiB result costs page faults depends on the allocator's state).

The engine measures each timing case in every one of ``TIMING_CONDITIONS``: its own process as
declared; the same after 16 MiB and 40 MiB tensors were allocated and freed; and started from a
shell with ``MALLOC_MMAP_THRESHOLD_=131072``, and from one with
``MALLOC_MMAP_THRESHOLD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728``. A case passes only if it
passes in all of them (tests/test_judge.py). Here: the conditions are what they say (with a
stand-in worker), and, on the report of this run, every timing case of both frameworks was
measured in all of them, each with its declared allocator settings. Before the fix, the same conditions flipped all
six speed claims (commit "Reproduce issue 19").
"""

from __future__ import annotations

import json

import pytest
from claimkit import VERSIONS, make_snippets

from verified.claims import ROOT, all_cases
from verified.runner import SHELLS, TIMING_CONDITIONS, Runner, worker_env

FAKE = "tests.fakeworker"


@pytest.fixture
def cases(tmp_path):
    return all_cases(make_snippets(tmp_path), VERSIONS)


def test_the_conditions_are_the_ones_the_issue_names():
    assert TIMING_CONDITIONS == {
        "clean": ({}, None),
        "perturbed": ({}, "perturbed"),
        "shell MALLOC_MMAP_THRESHOLD_=131072": ({"MALLOC_MMAP_THRESHOLD_": "131072"}, None),
        "shell MALLOC_MMAP_THRESHOLD_=67108864 MALLOC_TRIM_THRESHOLD_=134217728": (
            {"MALLOC_MMAP_THRESHOLD_": "67108864", "MALLOC_TRIM_THRESHOLD_": "134217728"},
            None,
        ),
    }
    assert len(SHELLS) == 2


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
def test_every_condition_runs_in_a_process_of_the_declared_state(cases, declared, monkeypatch):
    """With a stand-in worker: four requests, the perturbed one with its history, and every
    process started with exactly the declared settings, whatever the shell set."""
    monkeypatch.setenv("MALLOC_TOP_PAD_", "1")  # the caller's own setting never reaches it
    case = cases[("fixture.speed", "torch", "cpu")]
    case = type(case)(case.claim, case.framework, case.device, {**case.spec, "env": declared},
                      case.version)  # fmt: skip
    runner = Runner(FAKE)
    try:
        observed = runner.observe(case)
    finally:
        runner.close()
    conditions = observed["conditions"]
    assert list(conditions) == list(TIMING_CONDITIONS)
    assert all(c["allocator"] == declared for c in conditions.values()), conditions
    assert [c["history"] for c in conditions.values()] == [None, "perturbed", None, None]
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
        assert list(conditions) == list(TIMING_CONDITIONS), case.name
        settings = {json.dumps(c["allocator"], sort_keys=True) for c in conditions.values()}
        assert settings == {json.dumps(case.allocator_env, sort_keys=True)}, case.name
