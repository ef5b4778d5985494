"""The worker's own arithmetic and readings, in this process and without a framework: how a
timing pair alternates the baseline with its control and what it reports, the values it turns
into JSON, the huge-page mode it reads, how a process's end is put into words. The worker as a
process, with each framework, is tested in tests/test_engine.py and tests/test_runner.py."""

from __future__ import annotations

import os
import signal
from types import SimpleNamespace

import pytest

from verified import worker


def clocked(monkeypatch, baseline_cost):
    """A baseline, a candidate (1 s each call) and the worker's clock, which only the calls
    advance. ``baseline_cost(round, first)`` is the baseline's duration in round ``round``
    (the three unmeasured rounds are -3 to -1) as the first or the last call of the round."""
    now = [0.0]
    monkeypatch.setattr(worker, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    calls: list[str] = []

    def baseline():
        calls.append("b")
        round_, first = (len(calls) - 1) // 3 - 3, len(calls) % 3 == 1
        now[0] += baseline_cost(round_, first)

    def candidate():
        calls.append("c")
        now[0] += 1.0

    return baseline, candidate, calls


def test_a_timing_pair_swaps_which_baseline_run_is_the_control_every_round(monkeypatch):
    """The first baseline run of each round is slower (3 s against 2 s): with the order
    swapped every round, the baseline and its control share that cost, and the control ratio
    is exactly 1; the three unmeasured rounds come first."""
    baseline, candidate, calls = clocked(monkeypatch, lambda r, first: 3.0 if first else 2.0)
    out = worker.time_pair("torch", "cpu", baseline, candidate, repeat=4)
    assert calls == list("bcb" * 7)
    assert out == {
        "median_baseline_s": 2.5,
        "median_candidate_s": 1.0,
        "median_control_s": 2.5,
        "min_baseline_s": 2.0,
        "min_candidate_s": 1.0,
        "min_control_s": 2.0,
        "ratio_min": 2.0,
        "control_ratio_min": 1.0,
        "noise_min": 1.0,
        "ratio_median": 2.5,
        "control_ratio_median": 1.0,
        "noise_median": 1.0,
        "statistic": "median",
        "ratio": 2.5,
        "control_ratio": 1.0,
        "noise": 1.0,
        "repeat": 4,
        "spread_baseline": [2.0, 3.0],
        "spread_candidate": [1.0, 1.0],
        "spread_control": [2.0, 3.0],
    }


@pytest.mark.parametrize(
    ("cost", "statistic", "ratio", "control", "noise"),
    [
        # even rounds: the baseline run (first) is slow; odd rounds: the control run (first) is
        # fast. Baseline [3, 2, 3, 2], control [2, 2, 2, 2].
        (lambda r, first: 3.0 if first and r % 2 == 0 else 2.0, "median", 2.5, 1.25, 1.25),
        (lambda r, first: 3.0 if first and r % 2 == 0 else 2.0, "min", 2.0, 1.0, 1.0),
        # the control slower: baseline [2, 2, 2, 2], control [4, 4, 4, 4]: noise 1 / 0.5
        (lambda r, first: 4.0 if (r % 2 == 0) != first else 2.0, "median", 2.0, 0.5, 2.0),
        (lambda r, first: 4.0 if (r % 2 == 0) != first else 2.0, "min", 2.0, 0.5, 2.0),
    ],
)
def test_the_declared_statistic_gives_the_ratio_the_control_and_the_noise(
    monkeypatch, cost, statistic, ratio, control, noise
):
    baseline, candidate, _ = clocked(monkeypatch, cost)
    out = worker.time_pair("paddle", "cpu", baseline, candidate, repeat=4, statistic=statistic)
    assert (out["statistic"], out["ratio"], out["control_ratio"], out["noise"]) == (
        statistic,
        ratio,
        control,
        noise,
    )
    other = "median" if statistic == "min" else "min"
    assert out[f"ratio_{statistic}"] == ratio and f"ratio_{other}" in out


def test_values_become_json_friendly():
    class Tensor:
        def __init__(self, value):
            self.value = value

        def tolist(self):
            return self.value

    class Scalar:
        def item(self):
            return 2.5

    class Opaque:
        def __repr__(self):
            return "<opaque>"

    assert worker.plain(
        {1: (Tensor([1, 2]), Scalar()), "b": [True, None, "s", Opaque(), Tensor(Scalar())]}
    ) == {"1": [[1, 2], 2.5], "b": [True, None, "s", "<opaque>", 2.5]}


@pytest.mark.parametrize(
    ("text", "mode"),
    [
        ("always [madvise] never\n", "madvise"),
        ("[always] madvise never\n", "always"),
        ("always madvise [never]", "never"),
        ("always madvise never\n", None),
    ],
)
def test_the_huge_page_mode_is_the_bracketed_word(tmp_path, text, mode):
    path = tmp_path / "enabled"
    path.write_text(text, encoding="utf-8")
    assert worker.thp_mode(path) == mode
    assert worker.thp_mode(tmp_path / "missing") is None


def test_the_allocators_settings_are_the_malloc_variables_and_the_tunables(monkeypatch):
    for name in list(os.environ):
        if name.startswith("MALLOC_") or name == "GLIBC_TUNABLES":
            monkeypatch.delenv(name)
    assert worker.allocator_settings() == {}
    monkeypatch.setenv("MALLOC_MMAP_THRESHOLD_", "131072")
    monkeypatch.setenv("GLIBC_TUNABLES", "glibc.malloc.hugetlb=1")
    monkeypatch.setenv("XMALLOC_OTHER", "1")
    assert worker.allocator_settings() == {
        "GLIBC_TUNABLES": "glibc.malloc.hugetlb=1",
        "MALLOC_MMAP_THRESHOLD_": "131072",
    }
    assert list(worker.allocator_settings()) == ["GLIBC_TUNABLES", "MALLOC_MMAP_THRESHOLD_"]


def test_how_a_process_ended_in_words():
    assert worker.status_text(3 << 8) == "exit code 3"
    assert worker.status_text(0) == "exit code 0"
    assert worker.status_text(signal.SIGSEGV) == (
        f"signal {int(signal.SIGSEGV)} ({signal.strsignal(signal.SIGSEGV)})"
    )


def test_a_profiler_events_start_in_nanoseconds():
    assert worker.start_of(SimpleNamespace(start_ns=lambda: 1234, start_us=lambda: 1)) == 1234
    assert worker.start_of(SimpleNamespace(start_us=lambda: 7)) == 7000
