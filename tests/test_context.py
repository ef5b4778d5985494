"""No state a test patches reaches a real record (issue 25 point 5, issue 30 point 3).

pytest runs the claims and the other tests in one process: the claim lanes make records on
their threads while the tests on the main thread patch module globals. Here a pytest run of
its own (in a scratch folder, the engine at the repository root) runs the fixture claims
through the real lanes while one of its tests patches every global a record was once made
from: the clock, the processor's name (and any cache of the host), the installed framework
versions, the engine hash, and the environment the workers inherit; and the plugin's own
functions that run a case, judge it and wait for the work beside the run (a test patched
``judge`` for a run of its own once, and a real claim run meanwhile took its verdict). Every
record of that run must still carry the real date, this machine's processor, the real versions
and engine hash, no allocator variable the test set, and a verdict no patched judge gave. A gate holds the workers until the test has patched,
so that every record is made after the patch, without a sleep.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from claimkit import make_snippets

from verified import claims as claims_module
from verified.claims import ROOT, discover
from verified.versions import installed

FAKE = "tests.fakeworker"
REAL = "verified.worker"

# A worker module that waits until the test opens the gate, then runs the worker it stands for.
GATE = """
import os, runpy, sys, time

while not os.path.exists(os.environ["CONTEXT_GATE"]):
    time.sleep(0.01)
runpy.run_module(os.environ["CONTEXT_WORKER"], run_name="__main__", alter_sys=True)
"""

CONFTEST = """
import verified.pytest_plugin as plugin

plugin.Scheduler.module = "gate"
pytest_plugins = ["verified.pytest_plugin"]
"""

# Patches every global a record was made from, and leaves them patched (the timing cases run
# after it, and the report is written at the end of the session), then opens the gate.
PATCH_ALL = """
import importlib
import os
from pathlib import Path


def patch(module, name, value):
    if hasattr(module, name):
        setattr(module, name, value)


def test_patches_what_records_were_made_from():
    try:
        modules = [importlib.import_module("verified.report")]
        try:
            modules.append(importlib.import_module("verified.context"))
        except ImportError:  # before the run context existed
            pass
        for module in modules:
            patch(module, "now", lambda: "2026-12-01T10:00:00+00:00")
            patch(module, "cpu_model", lambda *args: "Test CPU")
            patch(module, "installed", lambda framework: "0.0.1")
            if hasattr(getattr(module, "host", None), "cache_clear"):
                module.host.cache_clear()
        patch(importlib.import_module("verified.claims"), "engine_hash", lambda *a: "new-engine")
        os.environ["MALLOC_TOP_PAD_"] = "1"
        # what runs and judges a case, and waits for the work beside the run (as the plugin's
        # own tests patch them for a pytest run inside theirs)
        plugin = importlib.import_module("verified.pytest_plugin")

        def patched_run_case(*args, **kwargs):
            raise RuntimeError("a patched run_case ran a real case")

        def patched_wait(*args, **kwargs):
            raise RuntimeError("a patched wait_for_processes waited")

        patch(plugin, "judge", lambda case, observed: ("failed", "a patched judge"))
        patch(plugin, "run_case", patched_run_case)
        patch(plugin, "wait_for_processes", patched_wait)
    finally:
        Path(os.environ["CONTEXT_GATE"]).touch()
"""

# The case of issue 25: a test patches the processor's name and reads the host under the
# patch (as the environment test did); the patch is undone at its end; a real claim runs.
PATCH_CPU = """
import importlib
import os
from pathlib import Path


def test_patches_the_processor_name(monkeypatch):
    try:
        report = importlib.import_module("verified.report")
        for name in ("verified.report", "verified.context"):
            try:
                module = importlib.import_module(name)
            except ImportError:  # before the run context existed
                continue
            if hasattr(module, "cpu_model"):
                monkeypatch.setattr(module, "cpu_model", lambda *args: "Test CPU")
        host = getattr(report, "host", None)
        if hasattr(host, "cache_clear"):
            host.cache_clear()
        if host is not None:
            assert host()["cpu"] == "Test CPU"  # patched here, as the test meant
    finally:
        Path(os.environ["CONTEXT_GATE"]).touch()
"""


def this_processor() -> str:
    """The processor's model name, read here from /proc/cpuinfo (not through the engine)."""
    for line in Path("/proc/cpuinfo").read_text().splitlines():
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    raise AssertionError("/proc/cpuinfo names no processor model")


def utc_now() -> dt.datetime:
    return dt.datetime.now(dt.UTC).replace(microsecond=0)


def run_pytest(tmp_path: Path, worker: str, test: str, *args: str) -> tuple[dict, tuple]:
    """Run the fixture claims and ``test`` in a pytest process of their own; return its report
    and the (start, end) of the run."""
    make_snippets(tmp_path)
    (tmp_path / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (tmp_path / "gate.py").write_text(GATE, encoding="utf-8")
    (tmp_path / "test_patch.py").write_text(textwrap.dedent(test), encoding="utf-8")
    drop = ("AUTOGRAD_REPORT", "AUTOGRAD_REPORT_NAME", "MALLOC_TOP_PAD_", "PYTEST_ADDOPTS")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env.update(
        PYTHONPATH=os.pathsep.join([str(ROOT), str(ROOT / "tests"), str(tmp_path)]),
        CONTEXT_GATE=str(tmp_path / "gate-open"),
        CONTEXT_WORKER=worker,
        AUTOGRAD_FRESH="1",
    )
    start = utc_now()
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rA", "-p", "no:cacheprovider", "-c", os.devnull,
         "--rootdir", str(tmp_path), "snippets", "test_patch.py", *args],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    end = utc_now()
    assert "PASSED test_patch.py::" in done.stdout, done.stdout + done.stderr  # it patched
    report = json.loads((tmp_path / "build" / "claims.json").read_text(encoding="utf-8"))
    return report, (start, end)


def problems(report: dict, run: tuple, snippets: Path) -> list[str]:
    """What in the report is not this run's real date, host, versions, engine or environment."""
    start, end = run
    cpu = this_processor()
    versions = {fw: installed(fw) for fw in ("paddle", "torch")}
    cases = {case.name: case for claim in discover(snippets) for case in claim.cases()}
    found = []
    if not start <= dt.datetime.fromisoformat(report["generated"]) <= end:
        found.append(f"generated {report['generated']}")
    for rec in report["claims"]:
        name, env = f"{rec['id']}[{rec['framework']}-{rec['device']}]", rec["env"]
        allocators = [env.get("allocator") or {}] + [
            condition["allocator"]
            for condition in ((rec.get("observed") or {}).get("conditions") or {}).values()
        ]
        checks = {
            "date": start <= dt.datetime.fromisoformat(env["date"]) <= end,
            "cpu": env["cpu"] == cpu,
            "host": env["host"]["cpu"] == cpu,
            "version": env["version"] == versions[rec["framework"]],
            "versions": env["versions"] == versions,
            "engine": rec["hashes"]["engine"] == claims_module.engine_hash(),
            "source_hash": rec["source_hash"] == cases[name].source_hash(),
            "allocator": all("MALLOC_TOP_PAD_" not in each for each in allocators),
            "judge": "patched" not in (rec.get("reason") or ""),
        }
        found += [f"{name}: {what}" for what, real in checks.items() if not real]
    return found


def test_records_made_while_a_test_patches_every_global_are_real(tmp_path):
    """The stand-in worker: every fixture case (cheap ones in the framework lanes, memory ones
    in the fresh lane, timing ones last on the main thread) is recorded after the patch."""
    report, run = run_pytest(tmp_path, FAKE, PATCH_ALL)
    kinds = {rec["kind"] for rec in report["claims"]}
    assert kinds == {"error", "value", "behaviour", "memory", "timing"}, kinds
    assert len(report["claims"]) == 14
    found = problems(report, run, tmp_path / "snippets")
    assert found == [], "\n".join(found)


def test_a_real_claim_after_a_test_patched_the_processor_names_this_machine(tmp_path):
    """Issue 25's case, with the real PyTorch worker: the claim runs once the test that
    patched the processor's name has read the host under its patch."""
    report, run = run_pytest(tmp_path, REAL, PATCH_CPU, "-k", "leaf and torch-cpu or patch")
    assert [(r["id"], r["framework"], r["device"]) for r in report["claims"]] == [
        ("fixture.leaf", "torch", "cpu")
    ]
    assert report["claims"][0]["status"] == "passed", report["claims"][0]["reason"]
    found = problems(report, run, tmp_path / "snippets")
    assert found == [], "\n".join(found)
