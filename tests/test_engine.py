"""The claims engine with real worker processes and both frameworks: every kind of check reports
`failed` when fed a wrong expectation (proof that checks can fail), memory is exact and
repeatable, timing ratios point the right way, every mode records where its tensors were, and
a wrong expectation fails the whole suite by name. (Loading, judging, reports and rendering
without frameworks: test_claims_format.py, test_judge.py, test_report.py, test_render.py.)"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest

from verified.claims import load_claims
from verified.runner import TIMING_CONDITIONS, Runner, judge

SNIPPETS = {
    "leaf_torch.py": """
        import torch

        leaf = torch.ones(3, requires_grad=True)
        leaf.add_(1)
    """,
    "leaf_paddle.py": """
        import paddle

        leaf = paddle.ones([3])
        leaf.stop_gradient = False
        leaf.add_(paddle.ones([3]))
    """,
    "grad_torch.py": """
        import torch

        w = torch.tensor([1.0], requires_grad=True)
        loss = (2.0 * w - 6.0) ** 2
        loss.backward()
        print("grad:", w.grad.item())
    """,
    "grad_paddle.py": """
        import paddle

        w = paddle.to_tensor([1.0], stop_gradient=False)
        loss = (2.0 * w - 6.0) ** 2
        loss.backward()
        print("grad:", w.grad.item())
    """,
    "chain_torch.py": """
        import torch

        torch.set_num_threads(1)  # as in the site's timing snippets
        x = torch.rand(256, 1024)  # 1 MiB of float32

        def chain(t):
            return t.exp().sin()
    """,
    "chain_paddle.py": """
        import paddle

        x = paddle.rand([256, 1024])  # 1 MiB of float32

        def chain(t):
            return t.exp().sin()
    """,
    "slow_torch.py": """
        import time

        def slow():
            time.sleep(0.02)

        def fast():
            time.sleep(0.002)
    """,
    "crash_torch.py": """
        import os
        import signal

        import torch

        before = torch.ones(1)
        os.kill(os.getpid(), signal.SIGSEGV)
    """,
    "where_torch.py": """
        import sys
        from pathlib import Path

        import torch

        here = torch.ones(2)
        print(Path.cwd().name, Path(sys.argv[0]).name)
    """,
    "where_paddle.py": """
        import sys
        from pathlib import Path

        import paddle

        here = paddle.ones([2])
        print(Path.cwd().name, Path(sys.argv[0]).name)
    """,
}

CLAIMS = """
[[claim]]
id = "fixture.leaf"
kind = "error"
snippet = "leaf"
devices = ["cpu"]
statement = {en = "e", zh = "z"}
[claim.expect.torch]
type = "RuntimeError"
match = "a leaf Variable that requires grad is being used in an in-place operation"
[claim.expect.paddle]
type = "ValueError"
match = "(?i)leaf"

[[claim]]
id = "fixture.grad"
kind = "value"
snippet = "grad"
devices = ["cpu"]
observe = "w.grad.item()"
statement = {en = "e", zh = "z"}
expect.torch.value = -16.0
expect.paddle.value = -16.0

[[claim]]
id = "fixture.same"
kind = "behaviour"
snippet = "grad"
devices = ["cpu"]
observe = "{'is_leaf': w.is_leaf, 'grad': w.grad.item()}"
statement = {en = "e", zh = "z"}
expect.torch.facts = {is_leaf = true}
expect.paddle.facts = {is_leaf = true}

[[claim]]
id = "fixture.chain"
kind = "memory"
snippet = "chain"
devices = ["cpu"]
region = "chain(x)"
theoretical = "2 * 256 * 1024 * 4"
statement = {en = "e", zh = "z"}
expect.torch.bytes = 2097152
expect.paddle.bytes = 2097152

[[claim]]
id = "fixture.speed"
kind = "timing"
snippet = "slow"
devices = ["cpu"]
baseline = "slow()"
candidate = "slow()"
repeat = 15
statement = {en = "e", zh = "z"}
expect.torch = {verdict = "similar", margin = 1.5, max_noise = 2.0}
expect.paddle = {verdict = "similar", margin = 1.5, max_noise = 2.0}

[[claim]]
id = "fixture.direction"
kind = "timing"
snippet = "slow"
devices = ["cpu"]
baseline = "slow()"
candidate = "fast()"
repeat = 5
statement = {en = "e", zh = "z"}
expect.torch = {verdict = "faster", margin = 2.0, max_noise = 1.5}
expect.paddle = {verdict = "faster", margin = 2.0, max_noise = 1.5}

[[claim]]
id = "fixture.crash"
kind = "value"
snippet = "crash"
mode = "script"
devices = ["cpu"]
observe = "1"
value = 1
statement = {en = "e", zh = "z"}
expect.torch = {}
expect.paddle = {snippet = "grad"}

[[claim]]
id = "fixture.where"
kind = "behaviour"
snippet = "where"
mode = "script"
devices = ["cpu"]
observe = "{'cwd': Path.cwd().name, 'argv0': Path(sys.argv[0]).name}"
statement = {en = "e", zh = "z"}
expect.torch.facts = {cwd = "fixture", argv0 = "where_torch.py"}
expect.paddle.facts = {cwd = "fixture", argv0 = "where_paddle.py"}
"""


def write_fixture(tmp_path: Path, claims: str = CLAIMS) -> Path:
    folder = tmp_path / "snippets" / "fixture"
    folder.mkdir(parents=True)
    for name, code in SNIPPETS.items():
        (folder / name).write_text(textwrap.dedent(code).lstrip(), encoding="utf-8")
    (folder / "slow_paddle.py").write_text(textwrap.dedent(SNIPPETS["slow_torch.py"]), "utf-8")
    path = folder / "claims.toml"
    path.write_text(claims, encoding="utf-8")
    return path


@pytest.fixture(scope="session")  # session: one worker process for every engine test
def runner():
    runner = Runner()
    yield runner
    runner.close()


@pytest.fixture
def cases(tmp_path):
    path = write_fixture(tmp_path)
    return {(c.claim.id, c.framework): c for claim in load_claims(path) for c in claim.cases()}


def with_expect(case, **changes):
    """The same case with a (wrong) expectation swapped in."""
    return type(case)(case.claim, case.framework, case.device, {**case.spec, **changes})


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_error_claim_passes_and_fails(runner, cases, framework):
    case = cases[("fixture.leaf", framework)]
    observed = runner.observe(case)
    assert judge(case, observed) == ("passed", None), observed
    status, reason = judge(with_expect(case, type="TypeError"), observed)
    assert status == "failed" and "expected TypeError" in reason
    status, reason = judge(with_expect(case, match="this text is not in the message"), observed)
    assert status == "failed" and "does not match" in reason


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_value_claim_fails_on_wrong_value(runner, cases, framework):
    case = cases[("fixture.grad", framework)]
    observed = runner.observe(case)
    assert observed["value"] == -16.0 and observed["output"] == "grad: -16.0\n"
    assert judge(case, observed)[0] == "passed"
    status, reason = judge(with_expect(case, value=-20.0), observed)
    assert status == "failed" and "expected -20.0" in reason


def test_behaviour_claim_fails_on_wrong_fact(runner, cases):
    case = cases[("fixture.same", "torch")]
    observed = runner.observe(case)
    assert judge(case, observed)[0] == "passed"
    assert observed["value"] == {"is_leaf": True, "grad": -16.0}  # evidence is kept
    assert judge(with_expect(case, facts={"is_leaf": False}), observed)[0] == "failed"


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_memory_claim_is_exact_repeatable_and_can_fail(runner, cases, framework):
    case = cases[("fixture.chain", framework)]
    first, second = runner.observe(case), runner.observe(case)
    assert first["bytes"] == second["bytes"] == 2 * 2**20, (first, second)
    assert first["theoretical_bytes"] == 2 * 2**20
    assert judge(case, first) == ("passed", None)
    status, reason = judge(with_expect(case, bytes=2**20), first)
    assert status == "failed" and "expected 1,048,576" in reason


def test_timing_claim_reports_medians_its_control_and_can_fail(runner, cases):
    case = cases[("fixture.speed", "torch")]
    observed = runner.observe(case)
    assert {"median_baseline_s", "median_candidate_s", "median_control_s", "ratio"} <= set(observed)
    assert observed["repeat"] == 15
    assert observed["ratio"] == observed["median_baseline_s"] / observed["median_candidate_s"]
    control = observed["median_baseline_s"] / observed["median_control_s"]
    assert observed["control_ratio"] == control and observed["noise"] == max(control, 1 / control)
    for statistic, which in (("median", "median"), ("min", "min")):  # both, for the judge
        base, cand, again = (observed[f"{which}_{side}_s"] for side in ("baseline", "candidate",
                             "control"))  # fmt: skip
        assert observed[f"ratio_{statistic}"] == base / cand
        control = base / again  # as the worker computes it: 1 / (b / a) is not a / b in floats
        assert observed[f"noise_{statistic}"] == max(control, 1 / control)
    # every condition was measured, each in a process of its own with no allocator setting,
    # transparent huge pages off; the busy core spun by another process, the pinned one on
    # a single core
    conditions = observed["conditions"]
    assert list(conditions) == list(TIMING_CONDITIONS)
    assert all(c["allocator"] == {} and c["attempts"] >= 1 for c in conditions.values())
    assert all(c["thp"]["disabled_for_worker"] for c in conditions.values()), conditions
    assert all({"ratio_min", "ratio_median", "noise_min", "noise_median"} <= set(c)
               for c in conditions.values())  # fmt: skip
    assert conditions["perturbed"]["history"] == "perturbed"
    cores = sorted(os.sched_getaffinity(0))
    assert conditions["busy core"]["busy_core"] == (cores[-1] if len(cores) > 1 else None)
    assert conditions["pinned to one core"]["cpus"] == cores[:1]
    assert all("cpus" not in c for n, c in conditions.items() if n != "pinned to one core")
    # identical code on both sides: "similar" holds, and "faster" fails. The code is a 20 ms
    # sleep, not arithmetic, so what is timed is what the test set, not how busy the processor
    # is: with another process on the other core (issue 25) the sides stay within a few %.
    assert judge(case, observed) == ("passed", None), conditions
    assert judge(with_expect(case, verdict="faster", margin=1.1), observed)[0] == "failed"


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_timing_ratio_is_baseline_over_candidate(runner, cases, framework):
    """A 20 ms sleep against a 2 ms one: the ratio is about 10; even with a few milliseconds
    of scheduling delay on a loaded machine it stays above 2."""
    case = cases[("fixture.direction", framework)]
    observed = runner.observe(case)
    assert observed["median_baseline_s"] > observed["median_candidate_s"]
    assert judge(case, observed) == ("passed", None), observed["ratio"]
    low, high = observed["spread_baseline"]
    assert low == observed["min_baseline_s"] <= observed["median_baseline_s"] <= high
    assert observed["statistic"] == "median" and observed["ratio"] == observed["ratio_median"]
    assert observed["ratio_min"] == observed["min_baseline_s"] / observed["min_candidate_s"]
    fastest = runner.observe(with_expect(case, statistic="min"))
    assert fastest["statistic"] == "min" and fastest["ratio"] == fastest["ratio_min"] > 2


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_every_mode_records_where_the_tensors_were(runner, cases, framework):
    """The shared worker, a fresh worker (memory) and script mode all report the devices of
    the snippet's tensors; script mode runs in the snippet's folder as the snippet itself."""
    shared = runner.observe(cases[("fixture.grad", framework)])
    assert shared["tensor_devices"] == {"cpu": 2}  # w and loss
    fresh = runner.observe(cases[("fixture.chain", framework)])
    assert fresh["tensor_devices"] == {"cpu": 1}
    script = runner.observe(cases[("fixture.where", framework)])
    assert script["tensor_devices"] == {"cpu": 1}
    assert script["output"] == f"fixture where_{framework}.py\n"
    assert judge(cases[("fixture.where", framework)], script) == ("passed", None)


def test_snippet_that_raises_fails_a_value_claim(runner, cases):
    leaf = cases[("fixture.leaf", "torch")]
    grad = cases[("fixture.grad", "torch")]
    wrong = type(grad)(grad.claim, "torch", "cpu", {**grad.spec, "snippet": "leaf"})
    status, reason = judge(wrong, runner.observe(wrong))
    assert status == "failed" and "snippet raised RuntimeError: a leaf Variable" in reason
    assert judge(leaf, runner.observe(leaf)) == ("passed", None)


def test_a_fresh_process_that_crashes_is_reported_with_its_signal(runner, cases):
    """A case in a fresh process (forked from the template) that dies of a signal: recorded as
    a harness error that names the signal, and the template survives for the next case."""
    case = cases[("fixture.crash", "torch")]
    observed = runner.observe(case)
    assert observed["harness_error"] == "the fresh process died (signal 11 (Segmentation fault))"
    assert judge(case, observed) == ("failed", observed["harness_error"])
    assert (
        judge(cases[("fixture.grad", "torch")], runner.observe(cases[("fixture.grad", "torch")]))[0]
        == "passed"
    )
    where = runner.observe(cases[("fixture.where", "torch")])
    assert where["output"] == "fixture where_torch.py\n"  # the template still forks


def test_timeout_is_a_failure_and_the_worker_restarts(runner, cases):
    case = cases[("fixture.grad", "torch")]
    slow = with_expect(case, observe="__import__('time').sleep(30)", timeout=1)
    status, reason = judge(slow, runner.observe(slow))
    assert status == "failed" and "timed out" in reason
    assert judge(case, runner.observe(case))[0] == "passed"


def test_wrong_expectation_fails_the_suite_naming_the_claim(pytester, monkeypatch):
    """End to end through pytest: one wrong expected value fails exactly that test, by name,
    and the report records it as failed."""
    root = pytester.path
    monkeypatch.setenv("PYTHONPATH", str(Path(__file__).resolve().parent.parent))
    write_fixture(root, CLAIMS.replace("expect.torch.value = -16.0", "expect.torch.value = -15.0"))
    (root / "conftest.py").write_text('pytest_plugins = ["verified.pytest_plugin"]\n')
    result = pytester.runpytest_inprocess(
        "snippets", "-k", "fixture.grad or fixture.leaf", "-p", "no:cacheprovider"
    )
    result.assert_outcomes(passed=3, failed=1)
    result.stdout.fnmatch_lines(["*fixture.grad[[]torch-cpu[]]*expected -15.0*observed -16.0*"])
    report = json.loads((root / "build" / "claims.json").read_text())
    records = {(r["id"], r["framework"]): r for r in report["claims"]}
    assert records[("fixture.grad", "torch")]["status"] == "failed"
    assert records[("fixture.grad", "paddle")]["status"] == "passed"
    env = records[("fixture.grad", "torch")]["env"]
    assert env["framework"] == "torch" and env["device"] == "cpu"
    assert env["version"] == env["versions"]["torch"] and env["module_version"].startswith("2.")
    assert records[("fixture.grad", "paddle")]["env"]["framework"] == "paddle"


def site_timing_claims() -> dict[str, list]:
    """The site's own CPU timing cases, per verdict."""
    from verified.claims import all_cases

    found: dict[str, list] = {"faster": [], "similar": [], "shown": []}
    for (_, _, dev), case in all_cases().items():
        if case.claim.kind == "timing" and dev == "cpu":
            found[case.spec["verdict"]].append(case)
    return found


def timed_as(fixture, case):
    """The fixture claim, timed and judged as the site's ``case`` is."""
    keys = ("verdict", "margin", "max_noise", "repeat", "statistic")
    return with_expect(fixture, **{k: case.spec[k] for k in keys if k in case.spec})


@pytest.mark.parametrize("framework", ["torch", "paddle"])
def test_the_sites_speed_claims_fail_on_the_wrong_code(runner, cases, framework):
    """Identical code on both sides, timed as each of the site's "faster" claims is (as many
    alternating runs, the same statistic, margin and noise limit), fails it; a tenfold
    difference (20 ms against 2 ms sleeps) would fail each "similar" claim: since issue 25 the
    site asserts none (a ratio near 1 depends on the processor's caches; those are shown).
    The code is 20 ms sleeps, as in the tests above: what is timed is what the test set, not
    how busy the processor is, so it runs among the other tests while the claims' lanes run,
    not alone (until 2026-12-07 it ran alone: about 11 s of both cores idle in every run)."""
    claims = {
        v: [c for c in cs if c.framework == framework] for v, cs in site_timing_claims().items()
    }
    assert claims["faster"] and claims["shown"] and not claims["similar"], claims
    for verdict, fixture in (("faster", "fixture.speed"), ("similar", "fixture.direction")):
        for case in claims[verdict]:
            wrong = timed_as(cases[(fixture, framework)], case)
            one = {"clean": ({}, None, False)}  # one condition is enough
            observed = runner.observe(wrong, conditions=one)
            status, reason = judge(wrong, observed)
            assert status == "failed", f"{case.name} passed on {fixture}: {observed['ratio']:.3f}"
            assert "too noisy" not in reason, reason
