"""The GPU kit's parts, without a GPU and without running a framework: the carried wheels (pins,
unpacking), the selection of the GPU cases and their capped time limit, the records of a
framework that is not installed, the checks of a kit's report and of a committed GPU report,
how the site shows a GPU report from another PyTorch release than the pin, the summary, the
deadline, and the GPU facts a worker reads. The whole kit runs end to end in
tests/test_gpu_sim.py (``nox -s gpu-sim``)."""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import time
import tomllib
import zipfile
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest
from claimkit import (
    SNIPPETS,
    VERSIONS,
    ascii_locale,
    context_for,
    env_for,
    make_docs,
    make_snippets,
    observed_for,
)
from packaging.requirements import Requirement

from verified.claims import ROOT, Case, _merge, all_cases, discover
from verified.gpu import kit, wheels
from verified.gpu.check import report_problems, run_problems
from verified.gpu.plugin import capped
from verified.pages.page import verified_line
from verified.pages.tables import verification_page
from verified.report import Report, Reports, case_name, environment, record, write
from verified.results import results_problems

TORCH_GPU = "2.11.0+cu130"  # the GPU machine's PyTorch; the pin is 2.13.0
ON_DEVICE = {"paddle": None, "torch": TORCH_GPU}


# -- the carried wheels ----------------------------------------------------------------------------


def make_wheel(folder: Path, name: str, version: str, files: dict[str, str]) -> wheels.Wheel:
    """A pure-Python wheel with ``files`` and its dist-info; returns its pin."""
    path = folder / f"{name}-{version}-py3-none-any.whl"
    info = f"{name}-{version}.dist-info"
    with zipfile.ZipFile(path, "w") as archive:
        for member, text in files.items():
            archive.writestr(member, text)
        archive.writestr(
            f"{info}/METADATA", f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        )
        archive.writestr(f"{info}/RECORD", "")
    data = path.read_bytes()
    return wheels.Wheel(name, version, hashlib.sha256(data).hexdigest(), len(data), "test")


def test_unpacked_wheels_are_importable_with_their_metadata(tmp_path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    pins = (
        make_wheel(folder, "alpha", "1.2.3", {"alpha/__init__.py": "VALUE = 7\n"}),
        make_wheel(folder, "beta", "0.1", {"beta.py": "import alpha\nDOUBLE = alpha.VALUE * 2\n"}),
    )
    site = tmp_path / "site"
    (site / "stale").mkdir(parents=True)  # left from an earlier run: removed
    assert wheels.unpack(folder, site, pins) == site
    assert not (site / "stale").exists()
    code = (
        "import beta, importlib.metadata as m\n"
        "print(beta.DOUBLE, m.version('alpha'), m.version('beta'))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        env={"PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.split() == ["14", "1.2.3", "0.1"]


def test_a_missing_changed_or_foreign_wheel_is_refused_naming_the_fetch_command(tmp_path):
    folder = tmp_path / "wheels"
    folder.mkdir()
    pin = make_wheel(folder, "alpha", "1.0", {"alpha.py": ""})
    with pytest.raises(
        wheels.WheelError,
        match=r"beta-2\.0-py3-none-any\.whl: missing.*fetch them with `python3 -m verified\.gpu fetch`",
    ):
        wheels.check(folder, (pin, wheels.Wheel("beta", "2.0", "0" * 64, 10, "test")))
    wrong = wheels.Wheel("alpha", "1.0", "0" * 64, pin.size, "test")
    with pytest.raises(wheels.WheelError, match="sha256 differs"):
        wheels.check(folder, (wrong,))
    with pytest.raises(wheels.WheelError, match="bytes, expected 1"):
        wheels.check(folder, (wheels.Wheel("alpha", "1.0", pin.sha256, 1, "test"),))
    (folder / "gamma-1.0-py3-none-any.whl").write_bytes(b"")
    with pytest.raises(wheels.WheelError, match="gamma-1.0-py3-none-any.whl: not one of the kit's"):
        wheels.check(folder, (pin,))


@pytest.mark.parametrize(
    ("member", "problem"),
    [("../evil.py", "unsafe path"), ("alpha-1.0.data/scripts/run", "needs an installer")],
)
def test_wheels_that_need_more_than_unpacking_are_refused(tmp_path, member, problem):
    folder = tmp_path / "wheels"
    folder.mkdir()
    pin = make_wheel(folder, "alpha", "1.0", {member: ""})
    with pytest.raises(wheels.WheelError, match=problem):
        wheels.unpack(folder, tmp_path / "site", (pin,))


def test_the_pins_are_the_projects_and_satisfy_pytest():
    """pytest and packaging as pyproject.toml pins them; pytest's own requirements met by the
    other wheels (read from the pytest this test runs on, the same release)."""
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))[
        "dependency-groups"
    ]
    pinned = {w.name: w.version for w in wheels.WHEELS}
    assert f"pytest=={pinned['pytest']}" in groups["test"]
    assert f"packaging=={pinned['packaging']}" in groups["engine"]
    assert metadata.version("pytest") == pinned["pytest"]
    needed = [Requirement(text) for text in metadata.requires("pytest")]
    needed = [
        r
        for r in needed
        if not r.marker
        or r.marker.evaluate({"python_version": "3.12", "sys_platform": "linux", "extra": ""})
    ]
    assert {r.name for r in needed} == set(pinned) - {"pytest"}
    for req in needed:
        assert req.specifier.contains(pinned[req.name]), f"{req} vs {pinned[req.name]}"
    assert len({w.filename for w in wheels.WHEELS}) == len(wheels.WHEELS)
    total = sum(w.size for w in wheels.WHEELS)
    assert wheels.table().splitlines()[-1].split()[1] == f"{total:,}"


def test_the_readme_names_the_device_call_and_lists_the_wheels():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Running on a GPU", 1)[1].split("\n## ", 1)[0]
    assert "python3 -m verified.gpu fetch" in section
    assert 'command="PYTHONUNBUFFERED=1 python3 -m verified.gpu"' in section
    assert 'carry=["build/gpu-wheels"]' in section
    assert "$OUT/gpu-nvidia-h200.json" in section and "results/gpu-nvidia-h200.json" in section
    assert "python -m pytest snippets -k gpu" not in readme
    for wheel in wheels.WHEELS:
        assert f"| {wheel.name} | {wheel.version} | {wheel.size:,} |" in section, wheel.name
    total = sum(w.size for w in wheels.WHEELS)
    assert f"| total | | {total:,} |" in section


# -- selecting the GPU cases ------------------------------------------------------------------------


def test_the_plugin_keeps_only_the_gpu_cases_it_is_asked_for(pytester, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(ROOT))
    monkeypatch.delenv(
        "MUTANT_UNDER_TEST", raising=False
    )  # mutmut's: pytest there runs the code as it is
    make_snippets(pytester.path)
    pytester.makeconftest('pytest_plugins = ["verified.pytest_plugin"]')
    args = (
        "snippets",
        "--collect-only",
        "-q",
        "-p",
        "verified.gpu.plugin",
        "-p",
        "no:cacheprovider",
    )
    result = pytester.runpytest_subprocess(*args)
    lines = [line for line in result.outlines if "::" in line]
    assert [line.split("::")[1] for line in lines] == [
        "fixture.leaf[torch-gpu]",
        "fixture.chain[torch-gpu]",
    ]
    result.stdout.fnmatch_lines(["*2/14 tests collected (12 deselected)*"])
    both = pytester.runpytest_subprocess(*args, "--gpu-frameworks=paddle,torch")
    assert len([line for line in both.outlines if "::" in line]) == 4
    wrong = pytester.runpytest_subprocess(*args, "--gpu-frameworks=jax")
    assert wrong.ret != 0
    wrong.stderr.fnmatch_lines(["*--gpu-frameworks: 'jax' is not a comma-separated list*"])


def test_a_capped_case_keeps_its_hashes_and_records(tmp_path):
    snippets = make_snippets(tmp_path)
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "torch", "gpu")]
    assert case.timeout == 120
    short = capped(case, 45)
    assert short.timeout == 45 and capped(case, 500).timeout == 120
    assert short.hashes() == case.hashes() and short.source_hash() == case.source_hash()
    env = env_for("torch", "gpu")
    assert record(short, status="skipped", env=env) == record(case, status="skipped", env=env)


def test_the_runner_stops_a_capped_gpu_case_at_the_cap(tmp_path):
    """With the engine's stand-in worker (tests/fakeworker.py) seeing a GPU: a case that never
    answers is stopped at the cap, not at its declared 120 s."""
    from verified.runner import Runner

    grad = all_cases(make_snippets(tmp_path), VERSIONS)[("fixture.leaf", "torch", "gpu")]
    claim = type(grad.claim)("hang", "error", grad.claim.path, grad.claim.statement, ("gpu",),
                             grad.claim.raw)  # fmt: skip
    hang = capped(Case(claim, "torch", "gpu", grad.spec, grad.version), 0.5)
    environ = {**os.environ, "FAKE_WORKER_CUDA": "1"}  # the stand-in sees a GPU
    runner = Runner(module="tests.fakeworker", context=context_for(environ=environ))
    try:
        started = time.monotonic()
        observed = runner.observe(hang)
    finally:
        runner.close()
    assert observed["harness_error"] == "timed out: no answer within 0.5 s (limit 0.5 s)"
    assert time.monotonic() - started < grad.timeout  # stopped at the cap, not at the declared


# -- the kit's records and report ------------------------------------------------------------------


def device_cases(snippets: Path) -> dict:
    """The GPU cases as the GPU machine merges them: PyTorch 2.11, Paddle not installed."""
    out = {}
    for claim in discover(snippets):
        if "gpu" not in claim.devices:
            continue
        out[(claim.id, "torch", "gpu")] = claim.case("torch", "gpu", TORCH_GPU)
        spec, override = _merge(claim.raw, "paddle", "gpu", None)
        out[(claim.id, "paddle", "gpu")] = Case(claim, "paddle", "gpu", spec, None, override)
    return out


def device_context():
    """The run context of the kit on the GPU machine: PyTorch 2.11, no Paddle, "Test CPU"."""
    return context_for(versions=ON_DEVICE)


@pytest.fixture
def on_device():
    return device_context()


GPU_HOST = {"gpu": "NVIDIA H200", "driver": "580.159.04", "cuda_driver": "13.0", "torch": TORCH_GPU,
            "cuda_runtime": "13.0", "cudnn": 91300, "gpus": 1}  # fmt: skip


def torch_record(case, status="passed", reason=None) -> dict:
    info = {"framework": "torch", "version": TORCH_GPU, "python": "3.12.3", "gpu": "NVIDIA H200",
            "cuda": "13.0", "gpu_host": GPU_HOST}  # fmt: skip
    observed = observed_for(case) if status == "passed" else None
    context = device_context()
    env = environment(info, "gpu", context)
    return record(case, status=status, env=env, observed=observed, reason=reason, context=context)


def kit_report(snippets: Path, path: Path, torch_status="passed") -> dict:
    """The report the kit writes on the GPU machine for the fixture claims."""
    cases = device_cases(snippets)
    records = [torch_record(c, torch_status) for k, c in cases.items() if k[1] == "torch"]
    context = device_context()
    records += kit.not_installed_records(cases, ["torch"], context)
    report = write(records, path, name=path.stem, snippets=snippets, context=context)
    report["host"] = kit.host_block(report["claims"], "8.4.2", context)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


def test_cases_of_a_framework_not_installed_are_skipped_saying_so(tmp_path, on_device):
    snippets = make_snippets(tmp_path)
    cases = device_cases(snippets)
    records = kit.not_installed_records(cases, ["torch"], on_device)
    assert [(r["id"], r["framework"], r["status"]) for r in records] == [
        ("fixture.leaf", "paddle", "skipped"),
        ("fixture.chain", "paddle", "skipped"),
    ]
    rec = records[0]
    assert rec["reason"] == (
        "PaddlePaddle is not installed on this machine: only the GPU cases of PyTorch ran here"
    )
    assert rec["skip"] == {"code": "not_installed", "version": None}
    assert rec["env"]["version"] is None and rec["env"]["device"] == "gpu"
    assert rec["env"]["versions"] == ON_DEVICE and rec["env"]["host"]["cpu"] == "Test CPU"
    assert rec["env"]["date"] == "2026-12-01T10:00:00+00:00"
    assert rec["env"]["python"] == on_device.python and rec["env"]["framework"] == "paddle"
    assert rec["hashes"]["version"] is None
    other_engine = on_device.replace(engine_hash="an engine of the run's own")
    (leaf, _) = kit.not_installed_records(cases, ["torch"], other_engine)
    assert leaf["hashes"] == cases[("fixture.leaf", "paddle", "gpu")].hashes(
        other_engine.engine_hash
    )


def test_a_kit_report_is_checked_against_the_declared_cases(tmp_path, on_device):
    snippets = make_snippets(tmp_path)
    cases = device_cases(snippets)
    report = kit_report(snippets, tmp_path / "results" / "gpu-nvidia-h200.json")
    assert run_problems(report, cases, installed=ON_DEVICE, cuda=True) == []
    assert report["host"]["gpu"]["driver"] == "580.159.04" and report["host"]["cores"] >= 1
    assert (report["host"]["cpu"], report["host"]["frameworks"]) == ("Test CPU", ON_DEVICE)
    assert report["generated"] == "2026-12-01T10:00:00+00:00"  # from the kit's context

    def problems_after(change) -> list[str]:
        doctored = json.loads(json.dumps(report))
        change(doctored["claims"])
        return run_problems(doctored, cases, installed=ON_DEVICE, cuda=True)

    def paddle_passed(claims):
        next(r for r in claims if r["framework"] == "paddle")["status"] = "passed"

    assert problems_after(paddle_passed) == [
        "fixture.leaf[paddle-gpu]: paddle is not installed, yet the case is passed (skip code "
        "'not_installed'), not skipped as not installed",
        "fixture.leaf[paddle-gpu]: passed, but its environment names no GPU",
    ]
    assert problems_after(lambda claims: claims.pop()) == ["fixture.chain[torch-gpu]: no record"]
    assert problems_after(lambda claims: claims.append(dict(claims[0]))) == [
        "fixture.leaf[paddle-gpu]: 2 records"
    ]

    def on_the_cpu(claims):
        next(r for r in claims if r["framework"] == "torch")["device"] = "cpu"

    assert problems_after(on_the_cpu) == [
        "fixture.leaf[torch-cpu]: not a declared GPU case",
        "fixture.leaf[torch-gpu]: no record",
    ]

    def other_release(claims):
        next(r for r in claims if r["framework"] == "torch")["env"]["version"] = "2.13.0+cpu"

    assert problems_after(other_release) == [
        "fixture.leaf[torch-gpu]: ran on torch 2.13.0+cpu, but 2.11.0+cu130 is installed"
    ]
    assert run_problems(report, cases, installed=ON_DEVICE, cuda=False) == [
        "fixture.leaf[torch-gpu]: passed on a machine without CUDA",
        "fixture.chain[torch-gpu]: passed on a machine without CUDA",
    ]
    assert run_problems({**report, "host": {}}, cases, installed=ON_DEVICE, cuda=True)[0] == (
        "host: no 'gpu'"
    )


def test_each_way_a_kit_report_can_be_wrong_is_named(tmp_path):
    snippets = make_snippets(tmp_path)
    cases = device_cases(snippets)
    report = kit_report(snippets, tmp_path / "results" / "gpu-nvidia-h200.json")

    def problems(change=None, *, cuda=True, installed=ON_DEVICE) -> list[str]:
        doctored = json.loads(json.dumps(report))
        if change:
            change(doctored, [r for r in doctored["claims"] if r["framework"] == "paddle"][0],
                   [r for r in doctored["claims"] if r["framework"] == "torch"][0])  # fmt: skip
        return run_problems(doctored, cases, installed=installed, cuda=cuda)

    def schema(report, paddle, torch):
        report["schema"] = 0

    assert problems(schema) == [f"schema 0, expected {report['schema']}"]
    assert problems(lambda report, paddle, torch: report.pop("claims"))[:4] == [
        f"{name}: no record" for name in [case_name(*key) for key in cases]
    ]

    def skipped_otherwise(report, paddle, torch):
        paddle["skip"] = {"code": "no_cuda"}

    assert problems(skipped_otherwise) == [
        "fixture.leaf[paddle-gpu]: paddle is not installed, yet the case is skipped (skip code "
        "'no_cuda'), not skipped as not installed"
    ]

    def no_skip(report, paddle, torch):
        paddle["skip"] = None

    assert problems(no_skip)[0].endswith("(skip code None), not skipped as not installed")

    def other_reason(report, paddle, torch):
        paddle["reason"] = "PaddlePaddle is not installed"

    assert problems(other_reason) == [
        "fixture.leaf[paddle-gpu]: the reason does not say it is not installed"
    ]

    def no_reason(report, paddle, torch):
        torch["status"], torch["reason"] = "skipped", ""

    assert problems(no_reason) == ["fixture.leaf[torch-gpu]: skipped without a reason"]
    assert problems(no_reason, cuda=False) == [
        "fixture.leaf[torch-gpu]: skipped without a reason",
        "fixture.chain[torch-gpu]: passed on a machine without CUDA",
    ]

    def no_gpu(report, paddle, torch):
        torch["env"]["gpu"] = None

    assert problems(no_gpu) == ["fixture.leaf[torch-gpu]: passed, but its environment names no GPU"]

    def env_gone(report, paddle, torch):
        torch["env"] = None

    assert problems(env_gone) == [
        "fixture.leaf[torch-gpu]: ran on torch None, but 2.11.0+cu130 is installed",
        "fixture.leaf[torch-gpu]: passed, but its environment names no GPU",
    ]
    assert problems(lambda report, paddle, torch: report.pop("host")) == [
        "host: no 'gpu'", "host: no 'cpu'", "host: no 'cores'", "host: no 'python'",
        "host: no 'frameworks'", "host: no 'pytest'",
    ]  # fmt: skip

    def all_skipped(report, paddle, torch):
        for rec in report["claims"]:
            rec["status"], rec["reason"] = "skipped", rec["reason"] or "no CUDA"
        report["host"]["gpu"] = None
        report["host"]["no_gpu"] = report["host"]["no_gpu"] or "no CUDA"

    assert problems(all_skipped) == []  # with CUDA: no GPU facts needed
    assert problems(all_skipped, cuda=False) == []  # the kit's host block says why

    def no_why(report, paddle, torch):
        all_skipped(report, paddle, torch)
        report["host"]["no_gpu"] = ""

    assert problems(no_why, cuda=False) == ["host: no GPU, and no reason why"]
    assert problems(no_why) == []
    report["host"]["gpu"] = {"gpu": "NVIDIA H200"}
    assert problems(lambda report, paddle, torch: None, cuda=False)[2:] == []


# -- committed GPU reports and how the site shows them ---------------------------------------------


def test_a_committed_gpu_report_from_another_release_is_fresh_and_shown_as_its_own(tmp_path):
    snippets = make_snippets(tmp_path)
    docs = make_docs(tmp_path)
    results = tmp_path / "results"
    kit_report(snippets, results / "gpu-nvidia-h200.json")  # written on the GPU machine
    live = []  # this machine's report: CPU cases passed, GPU ones skipped (no CUDA)
    for case in all_cases(snippets, VERSIONS).values():
        if case.device == "cpu":
            live.append(
                record(
                    case, status="passed", env=env_for(case.framework), observed=observed_for(case)
                )
            )
        else:
            rec = record(case, status="skipped", env=env_for(case.framework), reason="no GPU here")
            rec["skip"] = {"code": "no_cuda" if case.framework == "torch" else "cpu_build",
                           "version": VERSIONS[case.framework]}  # fmt: skip
            live.append(rec)
    write(live, tmp_path / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    # read here, where Paddle 3.3.1 and PyTorch 2.13.0 are installed
    assert results_problems(results, snippets, []) == []
    reports = Reports(tmp_path / "build" / "claims.json", results, snippets, VERSIONS)
    gpu = Report(results / "gpu-nvidia-h200.json", live=False, snippets=snippets)
    assert gpu.stale() == []  # PyTorch's records are 2.11's, Paddle's were merged for none
    rec = reports.get("fixture.chain", "torch", "gpu")
    assert rec["env"]["version"] == TORCH_GPU and rec["env"]["gpu_host"]["driver"] == "580.159.04"
    en = verification_page(reports, "en", docs)
    assert "| gpu-nvidia-h200 | torch 2.11.0 | GPU (NVIDIA H200) | 3.12.3 | Test CPU, " in en
    assert "torch 2.11.0 · NVIDIA H200 · 2026-12-01" in en
    assert "⟳ stale:" not in en and "✗ failed:" not in en
    assert (
        "- PaddlePaddle: not installed on the machine of the GPU run (python3 -m verified.gpu), "
        "where only the other framework ran"
    ) in en
    zh = verification_page(reports, "zh", docs)
    assert (
        "- 飞桨：进行 GPU 运行（python3 -m verified.gpu）的机器上没有安装，那里只运行了另一个框架"
        in zh
    )
    line = verified_line(reports, "en")
    assert "PyTorch 2.13.0 on CPU" in line and "GPU: PyTorch 2.11.0 (NVIDIA H200). " in line


def test_what_makes_a_committed_gpu_report_unfit(tmp_path):
    snippets = make_snippets(tmp_path)
    path = tmp_path / "results" / "gpu-nvidia-h200.json"

    def written(torch_status="passed", name=None):
        kit_report(snippets, path, torch_status)
        if name:
            data = json.loads(path.read_text(encoding="utf-8"))
            path.write_text(json.dumps({**data, "name": name}), encoding="utf-8")
        return report_problems(path, snippets)

    assert written() == []
    assert written(name="gpu") == [
        "results/gpu-nvidia-h200.json: its name is 'gpu', not 'gpu-nvidia-h200'"
    ]
    failed = written("failed")
    assert len(failed) == 2 and failed[0].startswith(
        "results/gpu-nvidia-h200.json: fixture.leaf[torch-gpu] failed on NVIDIA H200 with torch "
        "2.11.0+cu130 (None): declare what the GPU does in the claim's expect.torch.gpu table"
    )
    assert written("skipped") == [
        "results/gpu-nvidia-h200.json: no case passed on a GPU: not a GPU report to keep"
    ]
    written()
    data = json.loads(path.read_text(encoding="utf-8"))
    data["claims"][-1]["status"] = "skipped"  # one case passed, not the last one
    path.write_text(json.dumps(data), encoding="utf-8")
    assert report_problems(path, snippets) == []
    written()
    (snippets / "fixture" / "leaf_torch.py").write_text("# changed\n", encoding="utf-8")
    assert report_problems(path, snippets) == []  # stale: shown as stale, refreshed on a GPU only
    written("failed")
    (snippets / "fixture" / "leaf_torch.py").write_text("# changed again\n", encoding="utf-8")
    assert report_problems(path, snippets) == [  # the stale failure is not the report's problem
        "results/gpu-nvidia-h200.json: fixture.chain[torch-gpu] failed on NVIDIA H200 with torch "
        "2.11.0+cu130 (None): declare what the GPU does in the claim's expect.torch.gpu table (or, "
        "if the release decides it, a [[claim.expect.torch.versions]] range), with the observed "
        "value and why in a comment, or fix the snippet; then run the kit again"
    ]
    path.write_text("{", encoding="utf-8")
    assert "is not valid JSON" in report_problems(path, snippets)[0]
    assert report_problems(path, snippets)[0].endswith(
        " (run python3 -m verified.gpu on a GPU machine (README: Running on a GPU))"
    )
    (snippets / "fixture" / "leaf_torch.py").write_text(SNIPPETS["leaf_torch.py"], "utf-8")
    kit_report(snippets, path)
    data = json.loads(path.read_text(encoding="utf-8"))
    paddle, torch, _, chain = data["claims"]
    torch["env"]["gpu"] = None
    chain["status"], chain["reason"] = "failed", "y" * 300
    data["claims"].append({**paddle, "device": "cpu"})
    path.write_text(json.dumps(data), encoding="utf-8")
    assert [p.split(": ", 1)[1][:75] for p in report_problems(path, snippets)] == [
        "fixture.leaf[torch-gpu] passed, but its environment names no GPU",
        "fixture.chain[torch-gpu] failed on NVIDIA H200 with torch 2.11.0+cu130 (yyy",
        "fixture.leaf[paddle-cpu] is not a GPU case",
    ]
    assert f"({'y' * 200}): declare" in report_problems(path, snippets)[1]


def test_gpu_facts_go_into_the_environment_of_gpu_records_only():
    info = {"framework": "torch", "version": TORCH_GPU, "gpu": "NVIDIA H200", "gpu_host": GPU_HOST}
    context = context_for()
    assert environment(info, "gpu", context)["gpu_host"] == GPU_HOST
    assert "gpu_host" not in environment(info, "cpu", context)
    assert "gpu_host" not in environment({**info, "gpu_host": None}, "gpu", context)


def test_the_worker_reads_the_gpu_facts_in_its_setup(monkeypatch):
    """With CUDA faked: the torch worker's setup() describes the GPU, driver and build."""
    torch = pytest.importorskip("torch")  # not in the mutation venv: tests/test_worker.py there

    from verified import worker

    real_nvml = worker.nvml_facts
    props = SimpleNamespace(name="Fake H200", major=9, minor=0, total_memory=150 * 2**30,
                            multi_processor_count=132)  # fmt: skip
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(torch.cuda, "get_device_name", lambda i=0: "Fake H200")
    monkeypatch.setattr(torch.cuda, "get_device_properties", lambda i=0: props)
    monkeypatch.setattr(torch.cuda, "device_count", lambda: 1)
    monkeypatch.setattr(torch.backends.cudnn, "version", lambda: 91300)
    monkeypatch.setattr(
        worker, "nvml_facts", lambda: {"driver": "580.159.04", "cuda_driver": "13.0"}
    )
    info = worker.setup("torch", "cpu")
    assert info["gpu"] == "Fake H200"
    assert info["gpu_host"] == {
        "driver": "580.159.04",
        "cuda_driver": "13.0",
        "gpu": "Fake H200",
        "capability": "9.0",
        "memory_bytes": 150 * 2**30,
        "multiprocessors": 132,
        "torch": torch.__version__,
        "torch_git": torch.version.git_version,
        "cuda_runtime": torch.version.cuda,
        "cudnn": 91300,
        "gpus": 1,
    }

    def broken(i=0):
        raise RuntimeError("no device properties")

    monkeypatch.setattr(torch.cuda, "get_device_properties", broken)
    facts = worker.gpu_host("torch")
    assert facts["unread"] == {"gpu": "RuntimeError: no device properties"} and "gpu" not in facts
    assert facts["driver"] == "580.159.04"
    nvml = real_nvml()  # {} without an NVIDIA driver (here), else what the driver says
    assert set(nvml) <= {"driver", "cuda_driver"} and all(nvml.values())


# -- the summary, the exit status, the deadline --------------------------------------------------


def outcome(records, **changes) -> kit.Outcome:
    fields = {
        "name": "nvidia-h200",
        "records": records,
        "expected": ["a[torch-gpu]", "b[torch-gpu]", "a[paddle-gpu]"],
        "report": "results/gpu-nvidia-h200.json",
        "copy": "$OUT/gpu-nvidia-h200.json",
        "log": "build/gpu/pytest.log",
        "wall_s": 83.4,
        "deadline_s": 270.0,
        "stopped": False,
        "host": {
            "gpu": GPU_HOST,
            "cpu": "AMD EPYC 9454",
            "cores": 16,
            "usable_cores": 16,
            "python": "3.12.3",
            "pytest": "9.2.0",
            "machine_pytest": "8.3.5",
        },  # fmt: skip
        "pytest_rc": 1,
        "log_tail": "E   boom\n1 failed",
    }
    return kit.Outcome(**{**fields, **changes})


def rec(cid, fw, status, reason=None, code=None) -> dict:
    return {"id": cid, "framework": fw, "device": "gpu", "status": status, "reason": reason,
            "skip": {"code": code} if code else None}  # fmt: skip


def test_the_summary_says_everything_in_one_screen():
    records = [
        rec("a", "torch", "passed"),
        rec("b", "torch", "failed", "bytes: expected 1,024 ± 0, observed 1,536\nTraceback …"),
        rec(
            "a",
            "paddle",
            "skipped",
            "PaddlePaddle is not installed on this machine",
            "not_installed",
        ),
    ]
    text = kit.summary(outcome(records))
    assert text == textwrap.dedent(
        """\
        GPU run gpu-nvidia-h200
          NVIDIA H200 ×1, driver 580.159.04 (CUDA 13.0); build 2.11.0+cu130 (CUDA 13.0, cuDNN 91300)
          AMD EPYC 9454 (16 of 16 cores); Python 3.12.3; pytest 9.2.0 (the machine's: 8.3.5)
        PaddlePaddle: 1 skipped
        PyTorch: 1 failed, 1 passed
        failed (1):
          b[torch-gpu]: bytes: expected 1,024 ± 0, observed 1,536
        skipped:
          PaddlePaddle, 1 case: PaddlePaddle is not installed on this machine
        report: results/gpu-nvidia-h200.json (3 cases), copied to $OUT/gpu-nvidia-h200.json
        pytest's log: build/gpu/pytest.log
        wall time: 1 min 23 s"""
    )
    assert outcome(records).exit_code() == 1
    assert outcome([records[0], records[2], rec("b", "torch", "passed")]).exit_code() == 0


def test_the_summary_names_what_has_no_record_and_why():
    records = [rec("a", "paddle", "skipped", "not installed", "not_installed")]
    stopped = outcome(records, stopped=True, pytest_rc=2, wall_s=281.0)
    text = kit.summary(stopped)
    assert (
        "no record (2; the 4 min 30 s deadline stopped pytest): a[torch-gpu], b[torch-gpu]" in text
    )
    assert "end of pytest's log:\n  | E   boom\n  | 1 failed" in text
    assert text.endswith("wall time: 4 min 41 s (stopped at the deadline)")
    assert stopped.exit_code() == 2
    crashed = kit.summary(outcome(records, pytest_rc=4, copy=None, host={"no_gpu": "no CUDA"}))
    assert "no record (2; pytest exited with code 4)" in crashed
    assert "no GPU: no CUDA" in crashed and "copied" not in crashed
    assert "\nreport: results/gpu-nvidia-h200.json (1 cases)\npytest's log: " in crashed
    long = [rec("a", "paddle", "skipped", "r" * 121, "cpu_build")]
    assert "\n  PaddlePaddle, 1 case: " + "r" * 119 + "…\n" in kit.summary(outcome(long))


@pytest.mark.parametrize("caller", ["interactive", "background"])
def test_past_the_deadline_the_run_is_interrupted_and_what_it_started_is_killed(tmp_path, caller):
    """A stand-in for pytest: it starts a child in a session of its own (as the engine starts
    its workers), and on Ctrl-C waits for that child before it writes its report.

    The stand-in starts with SIGINT blocked (a process inherits its signal mask) and unblocks it
    only once it has started its child and is inside its ``try``: an interrupt sent earlier
    waits until then. So the test does not depend on how fast Python starts on a loaded
    machine, and the deadline can be short. In the background (``cmd &`` in a script) the
    caller ignores SIGINT, and the kit must not pass that on."""
    script = tmp_path / "stand_in.py"
    script.write_text(
        textwrap.dedent(
            """\
            import signal, subprocess, sys, time
            child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"],
                                     start_new_session=True)
            print(child.pid, flush=True)
            try:
                print("ready", flush=True)
                signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
                time.sleep(600)
            except KeyboardInterrupt:
                child.wait()  # as pytest's session end waits for its lanes
                print("report written", flush=True)
                sys.exit(2)
            """
        ),
        encoding="utf-8",
    )
    log = tmp_path / "log"
    handler = signal.SIG_IGN if caller == "background" else signal.default_int_handler
    previous = signal.signal(signal.SIGINT, handler)
    unblocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:  # grace: only how long a broken kit may hold the test; a stand-in exits in ~1 s
        rc, stopped = kit.run_with_deadline(
            [sys.executable, str(script)], env={}, cwd=tmp_path, log=log, deadline=0.2, grace=60
        )
        kept = signal.getsignal(signal.SIGINT)
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, unblocked)
        signal.signal(signal.SIGINT, previous)
    assert kept == handler  # the kit gave the caller its own handler back
    pid, *lines = log.read_text().splitlines()
    # 2: the stand-in ended on its own, after the interrupt reached its try and its child died
    assert (rc, stopped, lines) == (2, True, ["ready", "report written"])
    assert not Path(f"/proc/{pid}").exists()  # killed, and reaped by the stand-in
    assert kit.run_with_deadline(
        [sys.executable, "-c", "print('quick')"], env={}, cwd=tmp_path, log=log, deadline=120
    ) == (0, False)
    assert log.read_text() == "quick\n"


def test_report_names_come_from_the_gpu():
    assert kit.slug("NVIDIA H200") == "nvidia-h200"
    assert kit.slug("NVIDIA GeForce RTX 4090 (24 GB)") == "nvidia-geforce-rtx-4090-24-gb"
    assert kit.NAME.match("nvidia-h200") and not kit.NAME.match("../x")
    assert re.fullmatch(r"[\w.-]+", kit.slug("Tesla V100-SXM2-16GB"))


def test_the_command_refuses_to_start_without_its_wheels_or_with_a_bad_name(tmp_path, monkeypatch):
    monkeypatch.delenv(
        "MUTANT_UNDER_TEST", raising=False
    )  # mutmut's: the command runs the code as it is

    def kit_command(*args):
        return subprocess.run(
            [sys.executable, "-m", "verified.gpu", *args],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )

    missing = kit_command("--wheels", str(tmp_path))
    assert missing.returncode == 2
    assert "pytest-9.2.0-py3-none-any.whl: missing" in missing.stderr
    assert "fetch them with `python3 -m verified.gpu fetch`" in missing.stderr
    bad = kit_command("run", "--name", "../x")
    assert bad.returncode == 2 and "--name '../x'" in bad.stdout
    listed = kit_command("wheels")
    assert listed.returncode == 0 and listed.stdout == wheels.table() + "\n"


# -- the kit's parts one by one: stand-ins for the processes, the clock and /proc ---------------


def test_gpu_cases_are_the_declared_gpu_cases_only(tmp_path):
    snippets = make_snippets(tmp_path)
    assert sorted(kit.gpu_cases(snippets)) == [
        ("fixture.chain", "paddle", "gpu"),
        ("fixture.chain", "torch", "gpu"),
        ("fixture.leaf", "paddle", "gpu"),
        ("fixture.leaf", "torch", "gpu"),
    ]


def test_the_not_installed_reason_names_what_ran_or_no_framework():
    assert kit.not_installed_reason("torch", []) == (
        "PyTorch is not installed on this machine: only the GPU cases of no framework ran here"
    )
    assert kit.not_installed_reason("paddle", ["torch", "paddle"]).endswith(
        "only the GPU cases of PyTorch and PaddlePaddle ran here"
    )


class FakeStat:
    """An entry of the stand-in /proc: ``<pid>/stat`` with ``text`` (None: unreadable)."""

    def __init__(self, pid: int, text: str | None):
        self.parent = SimpleNamespace(name=str(pid))
        self.text = text

    def read_text(self):
        if self.text is None:
            raise PermissionError("gone")
        return self.text


def test_children_are_read_from_proc_whatever_their_names(monkeypatch):
    stats = [
        FakeStat(10, None),  # ended while /proc was read
        FakeStat(11, "11 (py) 2 3) S 42 11"),  # a name with a space and a parenthesis
        FakeStat(12, "12 (other) S 43 12"),
        FakeStat(13, "13 (short) S"),  # no parent field
        FakeStat(14, "14 (x) R 42"),
        FakeStat(15, "15 S 42"),  # no name in parentheses: not read as a stat line
    ]
    globbed = []

    def fake_path(text):
        assert text == "/proc"
        return SimpleNamespace(glob=lambda pattern: globbed.append(pattern) or stats)

    monkeypatch.setattr(kit, "Path", fake_path)
    assert kit.children(42) == [11, 14]
    assert kit.children(13) == []
    assert globbed == ["[0-9]*/stat", "[0-9]*/stat"]


def test_kill_children_kills_each_group_or_else_the_process(monkeypatch):
    calls = []

    def killpg(pid, sig):
        calls.append(("killpg", pid, sig))
        if pid == 2:
            raise ProcessLookupError  # not a group leader
        if pid == 3:
            raise PermissionError  # not ours

    def kill(pid, sig):
        calls.append(("kill", pid, sig))
        if pid == 2:
            raise ProcessLookupError  # ended meanwhile

    monkeypatch.setattr(kit, "children", lambda pid: [1, 2, 3, 4] if pid == 7 else [])
    monkeypatch.setattr(kit.os, "killpg", killpg)
    monkeypatch.setattr(kit.os, "kill", kill)
    kit.kill_children(7)
    kill_signal = signal.SIGKILL
    assert calls == [
        ("killpg", 1, kill_signal),
        ("killpg", 2, kill_signal),
        ("kill", 2, kill_signal),
        ("killpg", 3, kill_signal),
        ("killpg", 4, kill_signal),
    ]


class FakeProcess:
    """A stand-in for the Popen of pytest: ``waits`` says what each wait() does (an exit code,
    or None: still running, the clock moves on by the timeout); ``calls`` records everything."""

    def __init__(self, calls: list, clock: list, waits: list):
        self.calls, self.clock, self.waits, self.pid = calls, clock, list(waits), 4242

    def wait(self, timeout=None):
        self.calls.append(("wait", timeout))
        rc = self.waits.pop(0)
        if rc is None:
            self.clock[0] += timeout
            raise subprocess.TimeoutExpired("pytest", timeout)
        return rc

    def send_signal(self, sig):
        self.calls.append(("signal", sig))

    def kill(self):
        self.calls.append("kill")


def deadline_run(monkeypatch, tmp_path, waits, *, grace=2.0, caller=None):
    """run_with_deadline on a FakeProcess, with a stand-in clock; returns (result, calls,
    the SIGINT handler the process started with)."""
    calls, clock, started = [], [100.0], {}

    def popen(cmd, **kwargs):
        started["handler"] = signal.getsignal(signal.SIGINT)
        calls.append(("popen", cmd, kwargs["cwd"], kwargs["env"], kwargs["stdout"].name))
        assert kwargs["stderr"] == subprocess.STDOUT and kwargs["stdout"].mode == "w"
        return FakeProcess(calls, clock, waits)

    monkeypatch.setattr(kit.subprocess, "Popen", popen)
    monkeypatch.setattr(kit, "time", SimpleNamespace(monotonic=lambda: clock[0]))
    monkeypatch.setattr(kit, "kill_children", lambda pid: calls.append(("kill_children", pid)))
    log = tmp_path / "pytest.log"
    log.write_text("from an earlier run\n", encoding="utf-8")
    previous = signal.signal(signal.SIGINT, caller) if caller else None
    try:
        result = kit.run_with_deadline(
            ["pytest"], env={"A": "1"}, cwd=tmp_path, log=log, deadline=30.0, grace=grace
        )
        after = signal.getsignal(signal.SIGINT)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    assert log.read_text(encoding="utf-8") == ""  # the log is this run's
    assert calls[0] == ("popen", ["pytest"], tmp_path, {"A": "1"}, str(log))
    if caller:
        assert after == caller
    return result, calls[1:], started["handler"]


def test_a_run_within_its_deadline_returns_its_exit_code(monkeypatch, tmp_path):
    result, calls, _ = deadline_run(monkeypatch, tmp_path, [0])
    assert (result, calls) == ((0, False), [("wait", 30.0)])
    result, calls, _ = deadline_run(monkeypatch, tmp_path, [1])
    assert result == (1, False)


def test_past_the_deadline_pytest_is_interrupted_first(monkeypatch, tmp_path):
    result, calls, _ = deadline_run(monkeypatch, tmp_path, [None, 2])
    assert result == (2, True)
    assert calls == [("wait", 30.0), ("signal", signal.SIGINT), ("wait", 1)]


def test_then_what_it_started_is_killed_until_it_ends_or_the_grace_is_over(monkeypatch, tmp_path):
    result, calls, _ = deadline_run(monkeypatch, tmp_path, [None, None, None, 3])
    assert result == (3, True)
    assert calls == [("wait", 30.0), ("signal", signal.SIGINT), ("wait", 1),
                     ("kill_children", 4242), ("wait", 0.5),
                     ("kill_children", 4242), ("wait", 0.5)]  # fmt: skip
    # grace 2 s from the interrupt: 1 s, then 0.5 s twice; then pytest itself is killed
    result, calls, _ = deadline_run(monkeypatch, tmp_path, [None, None, None, None, -9])
    assert result == (-9, True)
    assert calls == [("wait", 30.0), ("signal", signal.SIGINT), ("wait", 1),
                     ("kill_children", 4242), ("wait", 0.5),
                     ("kill_children", 4242), ("wait", 0.5),
                     ("kill_children", 4242), "kill", ("wait", None)]  # fmt: skip
    result, calls, _ = deadline_run(monkeypatch, tmp_path, [None, None, -9], grace=1.0)
    assert calls[3:] == [("kill_children", 4242), "kill", ("wait", None)]


@pytest.mark.parametrize(
    "caller", [signal.SIG_IGN, signal.default_int_handler], ids=["ignored", "default"]
)
def test_pytest_starts_with_ctrl_c_caught_whatever_the_caller_does_with_it(
    monkeypatch, tmp_path, caller
):
    result, _, handler = deadline_run(monkeypatch, tmp_path, [0], caller=caller)
    assert result == (0, False) and handler == signal.default_int_handler


def test_the_host_block_has_the_gpu_facts_or_why_there_are_none(on_device):
    def gpu_rec(fw, status, reason=None, code=None, device="gpu", gpu_host=None):
        return {**rec("a", fw, status, reason, code), "device": device,
                "env": {"gpu_host": gpu_host} if gpu_host else None}  # fmt: skip

    other = {**GPU_HOST, "gpu": "Other"}
    records = [
        gpu_rec("torch", "passed", device="cpu", gpu_host=other),  # not a GPU case
        gpu_rec("paddle", "skipped", "no CUDA build", "cpu_build"),
        gpu_rec("torch", "passed", gpu_host=GPU_HOST),
        gpu_rec("torch", "passed", gpu_host=other),
    ]
    host = kit.host_block(records, "8.4.2", on_device)
    assert host == {
        "gpu": GPU_HOST,
        "no_gpu": None,
        "cpu": "Test CPU",
        "cores": on_device.host["cores"],
        "usable_cores": on_device.host["usable_cores"],
        "python": on_device.python,
        "executable": sys.executable,
        "platform": on_device.platform,
        "frameworks": ON_DEVICE,
        "pytest": metadata.version("pytest"),
        "machine_pytest": "8.4.2",
    }
    skipped = [
        gpu_rec("torch", "skipped", "CUDA is not available", "no_cuda"),
        gpu_rec("paddle", "skipped", "a CPU build", "cpu_build"),
        gpu_rec("torch", "failed", "boom"),
    ]
    assert kit.host_block(skipped, None, on_device)["no_gpu"] == (
        "a CPU build; CUDA is not available"
    )
    not_installed = gpu_rec("paddle", "skipped", "not installed", "not_installed")
    assert kit.host_block([not_installed], None, on_device)["no_gpu"] == "no GPU case ran"
    assert kit.host_block([], None, on_device)["gpu"] is None


def test_durations_and_reasons_are_shown_short():
    assert [kit.minutes(s) for s in (59.4, 59.5, 60, 61, 3725.2)] == [
        "59.4 s", "1 min 00 s", "1 min 00 s", "1 min 01 s", "62 min 05 s"
    ]  # fmt: skip
    assert kit.one_line(None) == kit.one_line(" \n ") == "(no reason)"
    assert kit.one_line("  first\nsecond") == "first"
    assert kit.one_line("x" * 150) == "x" * 150
    assert kit.one_line("x" * 151) == "x" * 149 + "…"
    assert kit.one_line("abcdef", 5) == "abcd…"


def test_the_host_line_without_gpu_facts_says_what_it_can():
    bare = {"gpu": {"gpu": "Some GPU", "paddle": "3.3.1"}, "machine_pytest": None, "cores": 4,
            "usable_cores": 2, "cpu": "CPU", "python": "3.12.3", "pytest": "9.2.0"}  # fmt: skip
    assert kit.host_line(bare) == (
        "Some GPU ×1, driver ? (CUDA ?); build 3.3.1 ()\n"
        "  CPU (2 of 4 cores); Python 3.12.3; pytest 9.2.0 (the machine's: none)"
    )
    cuda_only = {"gpu": {**GPU_HOST, "cudnn": None, "gpus": 2}}
    assert kit.host_line(cuda_only).startswith(
        "NVIDIA H200 ×2, driver 580.159.04 (CUDA 13.0); build 2.11.0+cu130 (CUDA 13.0)\n"
    )
    cudnn_only = {"gpu": {**GPU_HOST, "cuda_runtime": None}}
    assert "; build 2.11.0+cu130 (cuDNN 91300)\n" in kit.host_line(cudnn_only)
    assert kit.host_line({"no_gpu": "x" * 120}).startswith("no GPU: " + "x" * 109 + "…\n")


def test_the_summary_counts_cases_and_cuts_long_lists():
    records = [rec("a", "torch", "skipped", "no CUDA", "no_cuda"),
               rec("b", "torch", "skipped", "no CUDA", "no_cuda")]  # fmt: skip
    expected = [f"c{i}[torch-gpu]" for i in range(7)]
    text = kit.summary(outcome(records, expected=expected, pytest_rc=0))
    assert "\n  PyTorch, 2 cases: no CUDA\n" in text and "failed (" not in text
    assert (
        "no record (7; pytest exited with code 0): c0[torch-gpu], c1[torch-gpu], c2[torch-gpu], "
        "c3[torch-gpu], c4[torch-gpu], c5[torch-gpu], … (1 more)\n"
    ) in text
    six = kit.summary(outcome(records, expected=expected[:6]))
    assert "c5[torch-gpu]\n" in six and "more" not in six
    assert "end of pytest's log" in six  # something has no record
    done = outcome([rec("a", "torch", "passed")], expected=["a[torch-gpu]"])
    for rc, shown in ((0, False), (1, False), (None, False), (2, True), (-9, True)):
        text = kit.summary(outcome(done.records, expected=done.expected, pytest_rc=rc))
        assert ("end of pytest's log:\n  | E   boom" in text) == shown, rc
    assert "log:\n" not in kit.summary(outcome([], expected=[], pytest_rc=4, log_tail=""))
    assert kit.summary(outcome([], expected=[])).splitlines()[2:4] == [
        "  AMD EPYC 9454 (16 of 16 cores); Python 3.12.3; pytest 9.2.0 (the machine's: 8.3.5)",
        "report: results/gpu-nvidia-h200.json (0 cases), copied to $OUT/gpu-nvidia-h200.json",
    ]


def test_the_pytest_command_and_the_paths_shown():
    assert kit.pytest_command(["paddle", "torch"], 60.0) == [
        sys.executable, "-m", "pytest", "snippets", "-q", "-p", "verified.gpu.plugin",
        "-p", "no:cacheprovider", "--gpu-frameworks=paddle,torch", "--gpu-case-timeout=60",
    ]  # fmt: skip
    assert kit.pytest_command(["torch"], 2.5)[-2:] == [
        "--gpu-frameworks=torch",
        "--gpu-case-timeout=2.5",
    ]
    assert kit.shown(ROOT / "build" / "gpu" / "pytest.log") == "build/gpu/pytest.log"
    assert kit.shown(Path("/elsewhere/x.json")) == "/elsewhere/x.json"


@pytest.fixture
def kit_here(tmp_path, monkeypatch):
    """kit.run on the fixture claims in ``tmp_path``, as on the GPU machine (PyTorch 2.11, no
    Paddle), with a stand-in for pytest that records what it is given and writes a report of
    the torch cases (one passed, one failed) and a 20-line log; the clock gives 100 s, then
    183.4 s."""
    snippets = make_snippets(tmp_path)
    cases = device_cases(snippets)
    clock = iter([100.0, 183.4, 200.0, 210.0])
    given = []

    def pytest_run(cmd, *, env, cwd, log, deadline):
        given.append({"cmd": cmd, "env": env, "cwd": cwd, "log": log, "deadline": deadline})
        torch = [c for k, c in cases.items() if k[1] == "torch"]
        claims = [torch_record(torch[0]), torch_record(torch[1], "failed", "1,024 ± 0 expected")]
        raw = json.dumps({"claims": claims}, ensure_ascii=False)  # "±" as pytest's report has it
        Path(env["AUTOGRAD_REPORT"]).write_text(raw, encoding="utf-8")
        lines = [f"line {i}" for i in range(18)] + ["± in UTF-8"]
        log.write_bytes("\n".join(lines).encode() + b"\n\xff not UTF-8\n")
        return 1, False

    monkeypatch.setattr(kit, "WORK", tmp_path / "build" / "gpu")
    monkeypatch.setattr(kit, "RESULTS", tmp_path / "results")
    monkeypatch.setattr(kit, "gpu_cases", lambda: cases)
    monkeypatch.setattr(kit, "RunContext", SimpleNamespace(capture=device_context))
    monkeypatch.setattr(kit, "write", functools.partial(write, snippets=snippets))
    monkeypatch.setattr(kit, "time", SimpleNamespace(monotonic=lambda: next(clock)))
    monkeypatch.setattr(kit, "run_with_deadline", pytest_run)
    monkeypatch.setenv("PYTHONPATH", "/extra")
    monkeypatch.delenv("OUT", raising=False)
    return SimpleNamespace(snippets=snippets, cases=cases, given=given, work=kit.WORK,
                           results=kit.RESULTS)  # fmt: skip


def test_the_kit_runs_pytest_and_writes_the_report_with_its_host(kit_here, tmp_path,
                                                                 monkeypatch):  # fmt: skip
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("OUT", str(out))
    target = kit_here.results / "gpu-nvidia-h200.json"
    leaf = all_cases(kit_here.snippets, ON_DEVICE)[("fixture.leaf", "torch", "cpu")]
    old = record(leaf, status="skipped", env=env_for("torch", version=TORCH_GPU), reason="old")
    write([old], target, name="gpu-nvidia-h200", snippets=kit_here.snippets,
          context=device_context())  # fmt: skip
    assert [r["device"] for r in json.loads(target.read_text(encoding="utf-8"))["claims"]] == [
        "cpu"
    ]
    printed = []  # kit's print: what and how (flushed: the GPU machine's output is a pipe)
    monkeypatch.setattr(kit, "print", lambda *a, **kw: printed.append((*a, kw)), raising=False)
    with ascii_locale():
        done = kit.run(site=tmp_path / "site", machine_pytest="8.4.2")
    log, raw = kit_here.work / "pytest.log", kit_here.work / "pytest-report.json"
    (given,) = kit_here.given
    assert given["cmd"] == kit.pytest_command(["torch"], 60.0) and given["cwd"] == ROOT
    assert (given["log"], given["deadline"]) == (log, 255.0)
    env = given["env"]
    assert env["PYTHONPATH"] == os.pathsep.join([str(tmp_path / "site"), str(ROOT), "/extra"])
    assert env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] == "1" and env["AUTOGRAD_REPORT"] == str(raw)
    assert env["AUTOGRAD_REPORT_NAME"] == "gpu run" and env["OUT"] == str(out)
    text = target.read_text(encoding="utf-8")
    report = json.loads(text)
    assert text == json.dumps(report, indent=1, ensure_ascii=False) + "\n"  # "±" as it is
    assert [(r["id"], r["framework"], r["status"]) for r in report["claims"]] == [
        ("fixture.leaf", "paddle", "skipped"),
        ("fixture.leaf", "torch", "passed"),
        ("fixture.chain", "paddle", "skipped"),
        ("fixture.chain", "torch", "failed"),
    ]  # nothing kept from the report that was there before
    assert report["host"] == kit.host_block(report["claims"], "8.4.2", device_context())
    assert (report["name"], report["generated"]) == ("gpu-nvidia-h200", "2026-12-01T10:00:00+00:00")
    assert (out / "gpu-nvidia-h200.json").read_text(encoding="utf-8") == text
    assert (out / "gpu-nvidia-h200.log").read_bytes() == log.read_bytes()
    assert done == kit.Outcome(
        name="nvidia-h200",
        records=report["claims"],
        expected=[case_name(*key) for key in kit_here.cases],
        report=str(target),
        copy="$OUT/gpu-nvidia-h200.json (and the log, $OUT/gpu-nvidia-h200.log)",
        log=str(log),
        wall_s=pytest.approx(83.4),
        deadline_s=255.0,
        stopped=False,
        host=report["host"],
        pytest_rc=1,
        log_tail="\n".join(
            [*(f"line {i}" for i in range(5, 18)), "± in UTF-8", "\ufffd not UTF-8"]
        ),
    )
    assert done.exit_code() == 1
    assert printed == [
        (
            "GPU kit: the GPU cases of PyTorch (2), deadline 4 min 15 s, at most 60 s a case; "
            f"pytest's log: {log}",
            {"flush": True},
        ),
        (kit.summary(done), {"flush": True}),
    ]
    both = {"paddle": "3.3.1", "torch": TORCH_GPU}
    monkeypatch.setattr(kit, "RunContext", SimpleNamespace(
        capture=lambda: context_for(versions=both)))  # fmt: skip
    monkeypatch.delenv("PYTHONPATH")
    kit.run(site=tmp_path / "site", name="both")
    assert kit_here.given[1]["env"]["PYTHONPATH"] == os.pathsep.join(
        [str(tmp_path / "site"), str(ROOT)]
    )
    assert printed[2][0].startswith("GPU kit: the GPU cases of PaddlePaddle, PyTorch (4), ")


def test_without_a_framework_the_kit_records_every_case_as_not_installed(kit_here, tmp_path,
                                                                         monkeypatch):  # fmt: skip
    nothing = {"paddle": None, "torch": None}
    monkeypatch.setattr(kit, "RunContext", SimpleNamespace(
        capture=lambda: context_for(versions=nothing)))  # fmt: skip
    monkeypatch.setenv("OUT", str(tmp_path / "no-such-folder"))
    kit_here.work.mkdir(parents=True)
    (kit_here.work / "pytest-report.json").write_text('{"claims": [{}]}', encoding="utf-8")
    (kit_here.work / "pytest.log").write_text("an earlier run's\n", encoding="utf-8")
    done = kit.run(site=tmp_path, name="mine", deadline=30, case_timeout=5, started=50.0)
    assert kit_here.given == [] and not (kit_here.work / "pytest.log").exists()
    assert {(r["status"], r["skip"]["code"]) for r in done.records} == {
        ("skipped", "not_installed")
    }
    assert len(done.records) == 4 and done.records[0]["reason"].endswith("of no framework ran here")
    assert (done.name, done.copy, done.log_tail, done.pytest_rc, done.stopped) == (
        "mine", None, "", None, False
    )  # fmt: skip
    assert (done.wall_s, done.deadline_s) == (50.0, 30)
    assert (kit_here.results / "gpu-mine.json").is_file()
    assert kit.run(site=tmp_path, started=0.0).name == "no-gpu"
    with pytest.raises(ValueError, match=r"--name '\.\./x': use lowercase letters"):
        kit.run(site=tmp_path, name="../x", started=0.0)
