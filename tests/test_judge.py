"""Judging what a case observed: every kind passes on the right observation and fails, with a
reason, on each way it can be wrong; a device is a device. No framework runs here."""

from __future__ import annotations

import math

import pytest
from claimkit import make_snippets, observed_for

from verified.claims import all_cases
from verified.runner import close_enough, device_problem, facts_problem, judge


@pytest.fixture
def cases(tmp_path):
    snippets = make_snippets(tmp_path)
    return all_cases(snippets, {"paddle": "3.3.1", "torch": "2.13.0"})


def with_spec(case, **changes):
    return type(case)(case.claim, case.framework, case.device, {**case.spec, **changes},
                      case.version, case.override)  # fmt: skip


def test_every_fixture_case_passes_its_own_observation(cases):
    for case in cases.values():
        assert judge(case, observed_for(case)) == ("passed", None), case.name


# -- error -------------------------------------------------------------------------------------


def test_error_claims(cases):
    case = cases[("fixture.leaf", "torch", "cpu")]
    observed = observed_for(case)
    status, reason = judge(with_spec(case, type="TypeError"), observed)
    assert status == "failed" and reason.startswith("expected TypeError, got RuntimeError: a leaf")
    status, reason = judge(with_spec(case, match="not in it"), observed)
    assert status == "failed" and reason.startswith("message does not match 'not in it': a leaf")
    status, reason = judge(with_spec(case, match="requires grad.more"), observed)
    assert status == "passed", reason  # DOTALL: the match may span lines
    del observed["exception"]
    assert judge(case, observed) == (
        "failed",
        "expected RuntimeError but the snippet ran without raising",
    )


def test_a_snippet_that_raises_fails_other_kinds(cases):
    case = cases[("fixture.grad", "torch", "cpu")]
    observed = observed_for(case) | {
        "exception": {"type": "KeyError", "message": "'w'", "traceback": "TB-LINES"}
    }
    status, reason = judge(case, observed)
    assert status == "failed" and reason == "snippet raised KeyError: 'w'\nTB-LINES"


# -- value and behaviour --------------------------------------------------------------------------


def test_value_claims(cases):
    case = cases[("fixture.grad", "torch", "cpu")]
    assert judge(case, {**observed_for(case), "value": -16.0 + 1e-7})[0] == "passed"
    status, reason = judge(case, {**observed_for(case), "value": -15.0})
    assert (status, reason) == ("failed", "value: expected -16.0 ± 1e-06, observed -15.0")
    assert judge(with_spec(case, tol=2.0), {**observed_for(case), "value": -15.0})[0] == "passed"
    status, reason = judge(case, {**observed_for(case), "value": None})
    assert status == "failed" and "expected number -16.0" in reason


@pytest.mark.parametrize(
    ("expected", "observed", "tol", "problem"),
    [
        (1, 1, 0, None),
        (1, 2, 0, "value: expected 1, observed 2"),
        (1.0, 1.05, 0.1, None),
        (1.0, 1.2, 0.1, "value: expected 1.0 ± 0.1, observed 1.2"),
        (100.0, 109.0, 0.1, None),  # relative tolerance
        (0.0, 0.05, 0.1, None),  # absolute tolerance near zero
        (1.0, True, 0.1, "value: expected number 1.0, observed True"),
        (1, "1", 0, "value: expected number 1, observed '1'"),
        (True, 1, 0, "value: expected True, observed 1"),
        (True, True, 0, None),
        (False, True, 0, "value: expected False, observed True"),
        (None, None, 0, None),
        (None, 0, 0, "value: expected None, observed 0"),
        ("a", "a", 0, None),
        ("a", "b", 0, "value: expected 'a', observed 'b'"),
        ([1, 2], [1, 2], 0, None),
        ([1, 2], [1, 3], 0, "value[1]: expected 2, observed 3"),
        ([1, 2], [1], 0, "value: expected a list of 2, observed [1]"),
        ([1, 2], (1, 2), 0, "value: expected a list of 2, observed (1, 2)"),
        ({"a": 1}, {"a": 1}, 0, None),
        ({"a": 1}, {"a": 2}, 0, "value.a: expected 1, observed 2"),
        ({"a": 1}, {"a": 1, "b": 2}, 0, "value: expected keys ['a'], observed {'a': 1, 'b': 2}"),
        ({"a": 1}, [1], 0, "value: expected keys ['a'], observed [1]"),
        (
            {"a": [1.0, {"b": "x"}]},
            {"a": [1.0, {"b": "y"}]},
            0.1,
            "value.a[1].b: expected 'x', observed 'y'",
        ),
        (1.0, math.nan, 0.1, "value: expected 1.0 ± 0.1, observed nan"),
        ((1,), (1,), 0, "value: cannot compare expected (1,)"),
    ],
)
def test_close_enough(expected, observed, tol, problem):
    assert close_enough(expected, observed, tol) == problem


def test_behaviour_claims(cases):
    case = cases[("fixture.launch", "torch", "cpu")]
    good = observed_for(case)
    assert judge(case, good)[0] == "passed"
    assert judge(case, {**good, "value": {"agree": True}}) == (
        "failed",
        "facts not observed: ['silent_loss']",
    )
    assert judge(case, {**good, "value": {"agree": 1, "silent_loss": True}}) == (
        "failed",
        "agree: expected True, observed 1",
    )
    assert judge(case, {**good, "value": [True]}) == (
        "failed",
        "observe must return a dict, got [True]",
    )
    assert facts_problem({"a": 0.5}, {"a": 0.5000001}) == "a: expected 0.5 ± 0, observed 0.5000001"


# -- memory ------------------------------------------------------------------------------------


def test_memory_claims(cases):
    case = cases[("fixture.chain", "paddle", "cpu")]
    good = observed_for(case)
    assert judge(case, good)[0] == "passed"
    status, reason = judge(case, {**good, "bytes": {"out": 2049, "inplace": 0}})
    assert (status, reason) == ("failed", "out: bytes: expected 2,048 ± 0, observed 2,049")
    status, reason = judge(case, {**good, "bytes": {"out": 2048}})
    assert status == "failed" and reason.startswith("bytes: expected regions ['inplace', 'out']")
    status, reason = judge(case, {**good, "bytes": 2048})
    assert status == "failed" and "expected regions" in reason
    status, reason = judge(case, {**good, "bytes": {"out": "2048", "inplace": 0}})
    assert (status, reason) == ("failed", "out: bytes: observed '2048', not a byte count")
    # the theoretical figure is checked against the measurement
    status, reason = judge(case, {**good, "theoretical_bytes": {"out": 1024, "inplace": 0}})
    assert (status, reason) == (
        "failed",
        "out: measured vs theoretical: expected 1,024 ± 0, observed 2,048",
    )
    status, reason = judge(case, {k: v for k, v in good.items() if k != "theoretical_bytes"})
    assert status == "failed" and "theoretical: no figure to compare" in reason


def test_memory_tolerances(cases):
    case = cases[("fixture.chain", "torch", "cpu")]  # tol_bytes = tol_theoretical = 16
    good = observed_for(case)
    near = {**good, "bytes": {"out": 2048 + 16, "inplace": 0}}
    assert judge(case, near)[0] == "passed"
    far = {**good, "bytes": {"out": 2048 + 17, "inplace": 0}}
    assert judge(case, far) == ("failed", "out: bytes: expected 2,048 ± 16, observed 2,065")
    theory = {**good, "theoretical_bytes": {"out": 2048 - 17, "inplace": 0}}
    assert judge(case, theory) == (
        "failed",
        "out: measured vs theoretical: expected 2,031 ± 16, observed 2,048",
    )
    gpu = cases[("fixture.chain", "paddle", "gpu")]  # tol_bytes = 512, tol_theoretical = 0
    observed = {**observed_for(gpu), "bytes": {"out": 2048 + 512, "inplace": 0}}
    status, reason = judge(gpu, observed)
    assert status == "failed" and reason.startswith("out: measured vs theoretical")


# -- timing ------------------------------------------------------------------------------------


def both(ratio, noise, **other) -> dict:
    """A measurement whose fastest and median runs gave the same ratio and control."""
    figures = {"ratio": ratio, "noise": noise, **other}
    for statistic in ("min", "median"):
        figures[f"ratio_{statistic}"], figures[f"noise_{statistic}"] = ratio, noise
    return figures


def test_timing_claims_are_judged_against_their_own_control(cases):
    """The bound is the run's own control (identical code on both sides), not a figure found
    on some machine: "faster" needs the ratio above noise × margin, "similar" within a factor
    noise × margin of 1; a control too far from 1 is too noisy to judge a "similar" (it would
    widen the band), and only raises the bar of a "faster"."""
    faster = cases[("fixture.speed", "torch", "cpu")]  # margin 1.5, default max_noise 1.2
    good = observed_for(faster)
    assert judge(faster, {**good, **both(1.5, 1.0)}) == ("passed", None)
    assert judge(faster, {**good, **both(1.66, 1.1)}) == ("passed", None)
    assert judge(faster, {**good, **both(1.6, 1.1)}) == (
        "failed",
        "clean: min: ratio 1.600 not above control 1.100 × margin 1.5 = 1.650",
    )
    # a control noisier than max_noise raises the bar of "faster" instead of refusing it
    assert judge(faster, {**good, **both(9.0, 1.21)}) == ("passed", None)
    assert judge(faster, {**good, **both(1.8, 1.21)}) == (
        "failed",
        "clean: min: ratio 1.800 not above control 1.210 × margin 1.5 = 1.815",
    )
    assert judge(faster, {**good, **both(4.0, 2.7)}) == (
        "failed",
        "clean: min: ratio 4.000 not above control 2.700 × margin 1.5 = 4.050",
    )
    assert judge(faster, {**good, **both(None, 1.0)}) == (
        "failed",
        "clean: min: no ratio and control observed: None, 1.0",
    )
    similar = cases[("fixture.speed", "paddle", "cpu")]  # margin 1.25, max_noise 1.2
    assert judge(similar, {**good, **both(1.0, 1.0)}) == ("passed", None)
    assert judge(similar, {**good, **both(1.25, 1.0)}) == ("passed", None)
    assert judge(similar, {**good, **both(0.8, 1.0)}) == ("passed", None)
    assert judge(similar, {**good, **both(1.3, 1.0)})[0] == "failed"
    assert judge(similar, {**good, **both(0.76, 1.0)})[0] == "failed"
    assert judge(similar, {**good, **both(1.4, 1.15)}) == ("passed", None)
    assert judge(similar, {**good, **both(1.0, 1.21)})[0] == "failed"


def test_a_timing_verdict_must_hold_for_the_fastest_and_the_median_runs(cases):
    """Load that lands on one side moves the minimum (one lucky run) and the median (load
    through many runs) differently: each statistic must bear the verdict out against its own
    control; a noisy control in either raises the bar of "faster" and makes a "similar" too
    noisy to judge."""
    faster = cases[("fixture.speed", "torch", "cpu")]  # margin 1.5, default max_noise 1.2
    good = {**observed_for(faster), **both(2.0, 1.0)}
    assert judge(faster, good) == ("passed", None)
    assert judge(faster, {**good, "ratio_median": 1.2}) == (
        "failed",
        "clean: median: ratio 1.200 not above control 1.000 × margin 1.5 = 1.500",
    )
    assert judge(faster, {**good, "ratio_min": 1.2}) == (
        "failed",
        "clean: min: ratio 1.200 not above control 1.000 × margin 1.5 = 1.500",
    )
    assert judge(faster, {**good, "ratio_median": 1.7, "noise_median": 1.15}) == (
        "failed",
        "clean: median: ratio 1.700 not above control 1.150 × margin 1.5 = 1.725",
    )
    assert judge(faster, {**good, "noise_median": 1.4}) == (
        "failed",
        "clean: median: ratio 2.000 not above control 1.400 × margin 1.5 = 2.100",
    )
    similar = cases[("fixture.speed", "paddle", "cpu")]
    near = {**observed_for(similar), **both(1.0, 1.0)}
    assert judge(similar, {**near, "noise_median": 1.3})[1].startswith(
        "clean: median: too noisy to judge: identical code on both sides differed 1.300×"
    )
    del good["ratio_median"]  # a measurement from before both were recorded cannot pass
    assert judge(faster, good) == (
        "failed",
        "clean: median: no ratio and control observed: None, 1.0",
    )


def test_a_timing_shown_only_passes_whatever_its_figures_and_fails_if_it_cannot_run(cases):
    """``verdict = "shown"``: nothing about the figures is asserted, so no ratio and no
    control fails it; the snippet raising, or its process dying, still does."""
    shown = with_spec(cases[("fixture.speed", "paddle", "cpu")], verdict="shown")
    good = observed_for(shown)
    for ratio, noise in ((0.5, 1.0), (3.0, 1.0), (1.0, 2.5)):
        assert judge(shown, {**good, **both(ratio, noise)}) == ("passed", None)
    raised = {"type": "RuntimeError", "message": "boom", "traceback": "Traceback"}
    assert judge(shown, {**good, "exception": raised})[0] == "failed"
    dead = {**good, "conditions": {"clean": {"harness_error": "the fresh process died"}}}
    assert judge(shown, dead) == ("failed", "clean: the fresh process died")


MEASUREMENT = """
[[claim]]
id = "fixture.sweep"
kind = "measurement"
snippet = "grad"
devices = ["cpu"]
statement = {en = "Measured here.", zh = "本机实测。"}
observe = "{'ratios': ratios}"
expect.torch = {}
expect.paddle = {}
"""


def test_a_measurement_passes_whatever_it_observed_and_fails_if_it_cannot_run(tmp_path):
    from claimkit import CLAIMS

    case = all_cases(make_snippets(tmp_path, CLAIMS + MEASUREMENT), {"paddle": "3.3.1",
                     "torch": "2.13.0"})[("fixture.sweep", "torch", "cpu")]  # fmt: skip
    base = {"output": "", "tensor_devices": {"cpu": 1}}
    for value in ({"ratios": [0.61, 0.78]}, {"ratios": [5.0]}, None):
        assert judge(case, {**base, "value": value}) == ("passed", None)
    assert judge(case, base) == ("failed", "nothing observed")
    raised = {"type": "ZeroDivisionError", "message": "division by zero", "traceback": "T"}
    assert judge(case, {**base, "exception": raised})[0] == "failed"
    assert judge(case, {**base, "harness_error": "died"}) == ("failed", "died")


def test_every_condition_of_a_timing_case_must_pass(cases):
    """A timing case is measured in several conditions (after a perturbing history, from
    shells that set the allocator, with another core busy, pinned to one core): one failing
    condition fails the case, named."""
    case = cases[("fixture.speed", "torch", "cpu")]
    good = both(3.0, 1.01)
    observed = {
        **observed_for(case),
        **good,
        "conditions": {"clean": good, "busy core": both(1.02, 1.01)},
    }
    status, reason = judge(case, observed)
    assert status == "failed" and reason.startswith("busy core: min: ratio 1.020 not above")
    observed["conditions"]["busy core"] = {"harness_error": "the fresh process died"}
    assert judge(case, observed) == ("failed", "busy core: the fresh process died")
    observed["conditions"]["busy core"] = good
    assert judge(case, observed) == ("passed", None)


# -- harness, devices, versions ------------------------------------------------------------------


def test_harness_errors_fail(cases):
    case = cases[("fixture.grad", "torch", "cpu")]
    observed = {**observed_for(case), "harness_error": "timed out"}
    assert judge(case, observed) == ("failed", "timed out")


def test_unmeasurable_is_not_runnable(cases):
    case = cases[("fixture.chain", "paddle", "cpu")]
    observed = {"output": "", "tensor_devices": {}, "unmeasurable": "no statistics"}
    assert judge(case, observed) == ("not-runnable", "no statistics")


def test_declared_unrunnable_versions(cases, tmp_path):
    case = cases[("fixture.leaf", "paddle", "cpu")].claim.case("paddle", "cpu", "1.5.0")
    raised = {
        "output": "",
        "tensor_devices": {},
        "exception": {"type": "AttributeError", "message": "no inplace here", "traceback": ""},
    }
    assert judge(case, raised) == ("not-runnable", "AttributeError: no inplace here")
    two_lines = {
        **raised,
        "exception": {"type": "AttributeError", "message": "no\ninplace", "traceback": ""},
    }
    assert judge(case, two_lines) == ("not-runnable", "AttributeError: no\ninplace")  # DOTALL
    long = {
        **raised,
        "exception": {"type": "AttributeError", "message": "inplace " + "x" * 400, "traceback": ""},
    }
    assert len(judge(case, long)[1]) == 300
    other = {**raised, "exception": {"type": "ValueError", "message": "x", "traceback": ""}}
    status, reason = judge(case, other)
    assert status == "failed" and reason.endswith("but ValueError: x")
    ran = {"output": "", "tensor_devices": {"cpu": 1}}
    status, reason = judge(case, ran)
    assert status == "failed" and reason.endswith("but it ran without an error")
    crashed = {
        "output": "",
        "harness_error": "worker exited (code -11):\nFatalError: Segmentation fault",
    }
    status, reason = judge(case, crashed)
    assert status == "failed" and reason.endswith(
        "but worker exited (code -11):\nFatalError: Segmentation fault"
    )
    import re as regex

    segfault = type(case)(case.claim, "paddle", "cpu", case.spec, "1.5.0",
                          {**case.override, "unrunnable": "Segmentation fault"})  # fmt: skip
    assert judge(segfault, crashed) == ("not-runnable", crashed["harness_error"])
    assert regex.search("Segmentation fault", crashed["harness_error"])
    assert judge(case, {**raised, "harness_error": "boom"})[0] == "not-runnable"  # raised first


@pytest.mark.parametrize(
    ("device", "devices", "problem"),
    [
        ("gpu", {"gpu": 3}, None),
        ("gpu", {"gpu": 1, "cpu": 2}, None),
        (
            "gpu",
            {"cpu": 3},
            "declared for the GPU, but no tensor of the snippet was on a GPU ({'cpu': 3})",
        ),
        ("gpu", {}, "declared for the GPU, but no tensor of the snippet was on a GPU ({})"),
        ("cpu", {"cpu": 3}, None),
        ("cpu", {}, None),
        (
            "cpu",
            {"cpu": 1, "gpu": 2},
            "declared for the CPU, but 2 tensor(s) of the snippet were on a GPU",
        ),
        ("cpu", None, "no record of where the snippet's tensors were"),
        ("gpu", None, "no record of where the snippet's tensors were"),
    ],
)
def test_a_device_is_a_device(cases, device, devices, problem):
    case = cases[("fixture.chain", "torch", device)]
    observed = observed_for(case)
    if devices is None:
        del observed["tensor_devices"]
    else:
        observed["tensor_devices"] = devices
    assert device_problem(case, observed) == problem
    expected = ("passed", None) if problem is None else ("failed", problem)
    assert judge(case, observed) == expected


def test_device_is_checked_for_error_claims_too(cases):
    case = cases[("fixture.leaf", "torch", "gpu")]
    observed = observed_for(case)
    observed["tensor_devices"] = {"cpu": 1}
    status, reason = judge(case, observed)
    assert status == "failed" and "declared for the GPU" in reason


# -- reasons cut to length, and the timing judgement's parts ----------------------------------

LONG = "a leaf Variable " + "x" * 600


def test_reasons_keep_the_first_300_or_500_characters_of_a_message(cases):
    leaf = cases[("fixture.leaf", "torch", "cpu")]
    raised = {**observed_for(leaf)}
    raised["exception"] = {**raised["exception"], "message": LONG, "traceback": "Traceback (tb)"}
    assert judge(with_spec(leaf, type="TypeError"), raised) == (
        "failed",
        f"expected TypeError, got RuntimeError: {LONG[:300]}",
    )
    assert judge(with_spec(leaf, match="absent"), raised) == (
        "failed",
        f"message does not match 'absent': {LONG[:500]}",
    )
    grad = cases[("fixture.grad", "torch", "cpu")]
    assert judge(grad, {**observed_for(grad), "exception": raised["exception"]}) == (
        "failed",
        f"snippet raised RuntimeError: {LONG[:300]}\nTraceback (tb)",
    )
    unrunnable = cases[("fixture.leaf", "paddle", "cpu")].claim.case("paddle", "cpu", "1.5.0")
    other = {"output": "", "harness_error": "worker exited " + "y" * 400}
    assert judge(unrunnable, other) == (
        "failed",
        f"expected to be unrunnable ({unrunnable.unrunnable!r}), but "
        f"{other['harness_error'][:300]}",
    )


def test_an_integer_observed_for_a_float_is_compared_within_the_tolerance():
    assert close_enough(1.0000001, 1, 1e-6) is None
    assert close_enough(2, 2.0000001, 1e-6) is None


def test_the_summary_of_a_timing_condition_keeps_its_figures_and_its_failure():
    from verified.runner import TIMING_SUMMARY, condition_summary

    figures = {key: i for i, key in enumerate(TIMING_SUMMARY)}
    observed = {**figures, "output": "printed", "duration_s": 3.0}
    shell = {"MALLOC_MMAP_THRESHOLD_": "131072"}
    assert condition_summary(observed, 2, shell, "perturbed") == {
        **figures,
        "attempts": 2,
        "shell": shell,
        "history": "perturbed",
    }
    exc = {"type": "E", "message": "m", "traceback": "t"}
    failed = {**observed, "harness_error": "timed out", "exception": exc}
    assert condition_summary(failed, 1, {}, None) == {
        **figures,
        "attempts": 1,
        "shell": {},
        "history": None,
        "harness_error": "timed out",
        "exception": exc,
    }


def noises(min_noise, median_noise) -> dict:
    return {"noise_min": min_noise, "noise_median": median_noise}


def test_a_control_is_too_noisy_only_beyond_max_noise_and_never_for_a_figure_shown():
    from verified.runner import MAX_NOISE, too_noisy

    similar = {"verdict": "similar"}
    assert MAX_NOISE == 1.2
    assert too_noisy(similar, noises(1.2, 1.2)) is False  # at the limit: judged
    assert too_noisy(similar, noises(1.0, 1.21)) is True
    assert too_noisy(similar, noises(1.21, None)) is True
    assert too_noisy({**similar, "max_noise": 1.5}, noises(1.3, 1.4)) is False
    assert too_noisy({"verdict": "shown"}, noises(3.0, 3.0)) is False
    assert too_noisy({"verdict": "faster"}, noises(3.0, 1.0)) is True


def timed(ratio: float, noise: float) -> dict:
    return {"ratio_min": ratio, "ratio_median": ratio, **noises(noise, noise)}


def test_timing_problem_defaults_and_boundaries():
    from verified.runner import timing_problem

    # default margin 1.15 over the control
    assert timing_problem({"verdict": "faster"}, timed(1.16, 1.0)) is None
    assert timing_problem({"verdict": "faster"}, timed(1.14, 1.0)) == (
        "min: ratio 1.140 not above control 1.000 × margin 1.15 = 1.150"
    )
    # a control at max_noise is judged; the claim's own max_noise replaces the default
    assert timing_problem({"verdict": "similar"}, timed(1.0, 1.2)) is None
    assert timing_problem({"verdict": "similar", "max_noise": 1.5}, timed(1.0, 1.3)) is None
    assert timing_problem({"verdict": "similar"}, timed(1.0, 1.3)) == (
        "min: too noisy to judge: identical code on both sides differed 1.300× "
        "(at most 1.2× allowed)"
    )
    exc = {"type": "RuntimeError", "message": LONG, "traceback": "t"}
    assert timing_problem({"verdict": "shown"}, {"exception": exc}) == (
        f"snippet raised RuntimeError: {LONG[:300]}"
    )
