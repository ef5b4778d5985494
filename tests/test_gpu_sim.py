"""The GPU kit end to end, on a simulated GPU machine (``nox -s gpu-sim``; marked ``gpu_sim``,
so ``nox -s tests`` leaves it out).

The GPU machine has Python, PyTorch, numpy, pytest and pytest-xdist, and nothing else this
project uses; the device tool copies the working tree there (tracked files, untracked ones git
does not ignore, and the ignored paths named in ``carry``). So does this test: a virtualenv with
only ``torch==2.13.0`` (the CPU build), numpy and a pytest too old for ``pyproject.toml``
(``minversion = "9.0"``) with pytest-xdist — no Paddle, no nox, no MkDocs — runs
``python3 -m verified.gpu`` in such a copy, with ``build/gpu-wheels/`` carried and ``$OUT`` set.
Every GPU case must be reported as skipped with its reason (PyTorch: no CUDA; Paddle: not
installed), in one valid report whose hashes match the current sources, and the run must need
nothing else (a missing package, a pytest version or a path would fail it, as it would there).

The virtualenv is kept under ``build/gpu-sim/`` keyed by its requirements and Python (CI starts
from a clean clone, so it builds it anew: torch's wheel is the slow part).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verified.claims import ROOT, discover
from verified.gpu import wheels
from verified.gpu.check import run_problems
from verified.gpu.kit import gpu_cases
from verified.report import Report

pytestmark = pytest.mark.gpu_sim

# What the GPU machine has that the kit touches, at versions pip finds here; its pytest is
# older than the project allows, so only the carried one can run the claims.
REQUIREMENTS = ("torch==2.13.0", "numpy==2.4.6", "pytest==8.4.2", "pytest-xdist==3.8.0")
SIM = ROOT / "build" / "gpu-sim"
DEVICE_LIMIT = 64 * 2**20  # what travels with a device call
KIT_LIMIT_S = 300  # the kit must end within 5 minutes


# The GPU machine's pytest has plugins of its own (pytest-cov, hypothesis, anyio, …) that the
# carried pytest would load through their entry points; this one stands for one that does not
# work with it. The kit loads none of them.
PLUGIN = "machine_plugin"
PLUGIN_CODE = 'raise ImportError("a plugin of the machine\'s own pytest was loaded")\n'


def venv_key() -> str:
    text = "\n".join([sys.version, *REQUIREMENTS, PLUGIN_CODE])
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def machine_venv() -> Path:
    """The simulated machine's virtualenv, built once per key (1.7 GB: one is kept)."""
    venv = SIM / f"venv-{venv_key()}"
    if (venv / "complete").is_file():
        return venv
    for old in SIM.glob("venv-*"):  # this one half-built, or others of other requirements
        shutil.rmtree(old, ignore_errors=True)
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    # Not byte-compiled at install (all of torch: minutes); an import compiles what it loads.
    subprocess.run(
        [python, "-m", "pip", "install", "-q", "--no-compile", *REQUIREMENTS], check=True
    )
    # the bytecode in the virtualenv's own __pycache__, where the machine's Python finds it (the
    # kit runs with none of this session's environment): not in the session's folder for it
    drop = ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
    env = {k: v for k, v in os.environ.items() if k not in drop}
    subprocess.run([python, "-c", "import torch, numpy"], env=env, check=True)
    site = Path(
        subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    )
    (site / f"{PLUGIN}.py").write_text(PLUGIN_CODE, encoding="utf-8")
    info = site / f"{PLUGIN}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {PLUGIN}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[pytest11]\n{PLUGIN} = {PLUGIN}\n")
    (venv / "complete").write_text("\n".join(REQUIREMENTS) + "\n", encoding="utf-8")
    return venv


def copy_tree(dest: Path) -> int:
    """The working tree as the device tool sends it: tracked files and untracked files that git
    does not ignore (links travel as links: left out here), plus the carried wheels. Returns
    the bytes copied."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    paths = [ROOT / name for name in listed.split("\0") if name]
    carried = wheels.fetch()  # downloads only what build/gpu-wheels/ lacks
    size = 0
    for path in [*paths, *carried]:
        if path.is_symlink() or not path.is_file():
            continue
        target = dest / path.relative_to(ROOT)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
        size += path.stat().st_size
    return size


def python_facts(python: Path) -> dict:
    code = (
        "import importlib.metadata as m, importlib.util as u, json\n"
        "names = ['paddle', 'mkdocs', 'nox', 'jupytext', 'matplotlib']\n"
        "print(json.dumps({'absent': [n for n in names if u.find_spec(n) is None],\n"
        "                  'pytest': m.version('pytest'), 'torch': m.version('torch')}))\n"
    )
    out = subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


@pytest.fixture(scope="module")
def sim(tmp_path_factory):
    """One run of the kit on the simulated machine: what it printed, wrote and took."""
    started = time.monotonic()
    venv = machine_venv()
    ready = time.monotonic()
    tree = tmp_path_factory.mktemp("device") / "repo"
    size = copy_tree(tree)
    out = tree.parent / "out"
    out.mkdir()
    env = {  # the machine's environment: its Python first on PATH, nothing of this session's
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(tree.parent),
        "LANG": "C.UTF-8",
        "OUT": str(out),
    }
    kit_started = time.monotonic()
    proc = subprocess.run(
        ["python3", "-m", "verified.gpu", "--name", "sim"],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
        timeout=KIT_LIMIT_S,
    )
    done = time.monotonic()
    print(
        f"\nGPU simulation: virtualenv {ready - started:.1f} s, kit {done - kit_started:.1f} s, "
        f"tree {size / 2**20:.1f} MiB\n{proc.stdout}{proc.stderr}"
    )
    return {
        "proc": proc,
        "tree": tree,
        "out": out,
        "venv": venv,
        "size": size,
        "kit_s": done - kit_started,
    }


def report_of(sim) -> dict:
    return json.loads((sim["tree"] / "results" / "gpu-sim.json").read_text(encoding="utf-8"))


def test_the_kit_ends_well_within_its_limit(sim):
    proc = sim["proc"]
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sim["kit_s"] < KIT_LIMIT_S
    assert sim["size"] <= DEVICE_LIMIT, f"{sim['size']:,} bytes would travel: over 64 MiB"


def test_the_machine_had_only_torch_numpy_and_an_old_pytest(sim):
    """... whose pytest refuses this project, and a plugin that breaks any pytest that loads
    it (the machine's own pytest, outside the project)."""
    python = sim["venv"] / "bin" / "python"

    def own_pytest(cwd: Path) -> subprocess.CompletedProcess:
        command = [str(python), "-m", "pytest", "--version"]
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True)

    here = own_pytest(sim["tree"])
    assert here.returncode != 0 and "'minversion' requires pytest-9.0" in here.stderr
    elsewhere = own_pytest(sim["out"])
    assert elsewhere.returncode != 0
    assert "a plugin of the machine's own pytest was loaded" in elsewhere.stderr
    facts = python_facts(python)
    assert facts["absent"] == ["paddle", "mkdocs", "nox", "jupytext", "matplotlib"]
    assert facts["pytest"] == "8.4.2" and facts["torch"].startswith("2.13.0")
    host = report_of(sim)["host"]
    assert host["machine_pytest"] == "8.4.2" and host["pytest"] == "9.2.0"


def test_every_gpu_case_is_skipped_with_its_reason(sim):
    report = report_of(sim)
    torch = python_facts(sim["venv"] / "bin" / "python")["torch"]
    cases = gpu_cases(sim["tree"] / "snippets")
    installed = {"paddle": None, "torch": torch}
    assert run_problems(report, cases, installed=installed, cuda=False) == []
    assert {r["status"] for r in report["claims"]} == {"skipped"}
    by_framework = {
        fw: {r["skip"]["code"] for r in report["claims"] if r["framework"] == fw}
        for fw in ("paddle", "torch")
    }
    assert by_framework == {"paddle": {"not_installed"}, "torch": {"no_cuda"}}
    declared = 2 * sum(1 for c in discover(ROOT / "snippets") if "gpu" in c.devices)
    assert len(report["claims"]) == len(cases) == declared > 0  # every declared GPU case
    assert report["host"]["gpu"] is None
    assert "torch.cuda.is_available() is False" in report["host"]["no_gpu"]


def test_the_report_is_valid_fresh_and_copied_to_out(sim):
    path = sim["tree"] / "results" / "gpu-sim.json"
    for snippets in (sim["tree"] / "snippets", ROOT / "snippets"):
        report = Report(path, live=False, snippets=snippets)  # schema and JSON checked
        assert report.name == "gpu-sim"
        assert report.stale() == []
    assert (sim["out"] / "gpu-sim.json").read_bytes() == path.read_bytes()
    assert (sim["out"] / "gpu-sim.log").is_file()


def test_the_summary_fits_on_one_screen(sim):
    text = sim["proc"].stdout
    lines = text.splitlines()
    assert len(lines) <= 24 and max(len(line) for line in lines) <= 200
    per_framework = sum(1 for c in discover(ROOT / "snippets") if "gpu" in c.devices)
    assert f"PaddlePaddle: {per_framework} skipped" in text
    assert f"PyTorch: {per_framework} skipped" in text
    assert "PaddlePaddle is not installed on this machine" in text
    assert (
        f"report: results/gpu-sim.json ({2 * per_framework} cases), copied to $OUT/gpu-sim.json"
        in text
    )
    assert "wall time: " in text
