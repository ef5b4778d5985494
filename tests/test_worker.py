"""The worker in this process, with stand-ins for the frameworks, NVML, the C library and the
process calls (modules put into ``sys.modules`` and functions replaced, all through
monkeypatch): how a timing pair alternates the baseline with its control and what it reports,
the values it turns into JSON, the huge-page mode and allocator settings it records, what its
setup says of each framework with and without a GPU, where it finds tensors, how it measures
memory, how it runs a claim's snippet and answers, and how a fresh process and the protocol
loop are driven. The worker as a real process, with each framework, is tested in
tests/test_engine.py and tests/test_runner.py."""

from __future__ import annotations

import codecs
import io
import itertools
import json
import os
import platform
import re
import signal
import sys
import types
from pathlib import Path
from types import SimpleNamespace

import pytest

from verified import worker


def clocked(monkeypatch, baseline_cost, candidate_cost=1.0):
    """A baseline, a candidate (``candidate_cost`` s each call) and the worker's clock, which
    only the calls advance. ``baseline_cost(round, first)`` is the baseline's duration in
    round ``round`` (the three unmeasured rounds are -3 to -1) as the first or the last call
    of the round."""
    now = [0.0]
    monkeypatch.setattr(worker, "time", SimpleNamespace(perf_counter=lambda: now[0]))
    calls: list[str] = []

    def baseline():
        calls.append("b")
        round_, first = (len(calls) - 1) // 3 - 3, len(calls) % 3 == 1
        now[0] += baseline_cost(round_, first)

    def candidate():
        calls.append("c")
        now[0] += candidate_cost

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
    assert (out[f"control_ratio_{statistic}"], out[f"noise_{statistic}"]) == (control, noise)


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


def test_a_slower_candidate_divides_the_baseline_in_both_statistics(monkeypatch):
    """Baseline 3 s, candidate 2 s: ratios 1.5 (baseline / candidate), the control's 1."""
    baseline, candidate, _ = clocked(monkeypatch, lambda r, first: 3.0, candidate_cost=2.0)
    out = worker.time_pair("torch", "cpu", baseline, candidate, repeat=3)
    assert (out["ratio_min"], out["ratio_median"], out["min_candidate_s"]) == (1.5, 1.5, 2.0)
    assert (out["control_ratio_min"], out["control_ratio_median"]) == (1.0, 1.0)


# --- stand-ins for the frameworks -----------------------------------------------------------


def recorder(calls: list, name: str, result=None):
    """A function that appends ``(name, *args)`` to ``calls`` and returns ``result``."""

    def record(*args):
        calls.append((name, *args))
        return result

    return record


class TorchTensor:
    def __init__(self, device_type: str):
        self.device = SimpleNamespace(type=device_type)


class Module:
    """A torch.nn.Module or paddle.nn.Layer: its parameters and buffers."""

    def __init__(self, parameters=(), buffers=()):
        self._parameters, self._buffers = list(parameters), list(buffers)

    def parameters(self):
        return iter(self._parameters)

    def buffers(self):
        return iter(self._buffers)


GPUS = [
    SimpleNamespace(name="NVIDIA H100", major=9, minor=0, total_memory=85 * 10**9,
                    multi_processor_count=132),
    SimpleNamespace(name="NVIDIA A100", major=8, minor=6, total_memory=40 * 10**9,
                    multi_processor_count=108),
]  # fmt: skip


def fake_torch(monkeypatch, calls: list, *, cuda: bool = False) -> types.ModuleType:
    """A torch whose CUDA (with two GPUs when ``cuda``) and allocator statistics record their
    calls in ``calls``: 1,000 bytes allocated when a peak is reset, 5,096 at the peak."""
    torch = types.ModuleType("torch")
    torch.__version__ = "2.9.0+cu128" if cuda else "2.9.0+cpu"
    torch.version = SimpleNamespace(cuda="12.8" if cuda else None, git_version="abc123")
    torch.backends = SimpleNamespace(cudnn=SimpleNamespace(version=lambda: 91002))
    torch.Tensor = TorchTensor
    torch.tensor = TorchTensor
    torch.nn = SimpleNamespace(Module=Module)
    torch.cuda = SimpleNamespace(
        is_available=lambda: cuda,
        get_device_name=lambda index: GPUS[index].name,
        get_device_properties=GPUS.__getitem__,
        device_count=lambda: len(GPUS),
        synchronize=recorder(calls, "torch.cuda.synchronize"),
        reset_peak_memory_stats=recorder(calls, "torch.cuda.reset_peak_memory_stats"),
        memory_allocated=recorder(calls, "torch.cuda.memory_allocated", 1000),
        max_memory_allocated=recorder(calls, "torch.cuda.max_memory_allocated", 5096),
    )
    torch.set_default_device = recorder(calls, "torch.set_default_device")
    torch.manual_seed = recorder(calls, "torch.manual_seed")
    torch.ones = recorder(calls, "torch.ones")
    monkeypatch.setitem(sys.modules, "torch", torch)
    return torch


class Place:
    def __init__(self, kind: str):
        self.kind = kind

    def is_gpu_place(self):
        return self.kind == "gpu"

    def is_cpu_place(self):
        return self.kind == "cpu"

    def is_cuda_pinned_place(self):
        return self.kind == "pinned"

    def __str__(self):
        return f"Place({self.kind}:0)"


class PaddleTensor:
    def __init__(self, kind: str):
        self.place = Place(kind)


def fake_paddle(monkeypatch, calls: list, *, compiled=False, count=0, version_cuda="False"):
    """A paddle built with CUDA or not (``compiled``), seeing ``count`` GPUs; its
    ``version.cuda()`` says ``version_cuda`` (None: a paddle.version without it)."""
    paddle = types.ModuleType("paddle")
    paddle.__version__ = "3.3.1"
    paddle.version = SimpleNamespace(commit="deadbeef", cudnn=lambda: "9.5.1")
    if version_cuda is not None:
        paddle.version.cuda = lambda: version_cuda
    paddle.Tensor = PaddleTensor
    paddle.nn = SimpleNamespace(Layer=Module)
    paddle.device = SimpleNamespace(
        is_compiled_with_cuda=lambda: compiled,
        synchronize=recorder(calls, "paddle.device.synchronize"),
        cuda=SimpleNamespace(
            device_count=recorder(calls, "paddle.device.cuda.device_count", count),
            get_device_name=lambda index: GPUS[index].name,
            get_device_properties=GPUS.__getitem__,
            reset_max_memory_allocated=recorder(calls, "paddle.reset_max_memory_allocated"),
            memory_allocated=recorder(calls, "paddle.memory_allocated", 1000),
            max_memory_allocated=recorder(calls, "paddle.max_memory_allocated", 5096),
        ),
    )
    paddle.set_device = recorder(calls, "paddle.set_device")
    paddle.seed = recorder(calls, "paddle.seed")
    paddle.ones = recorder(calls, "paddle.ones")
    monkeypatch.setitem(sys.modules, "paddle", paddle)
    return paddle


def test_a_gpu_timing_pair_waits_for_the_device_around_every_call(monkeypatch):
    """On a GPU each timed call is framed by the framework's synchronisation (torch's or
    Paddle's, not the other's); on a CPU by none."""
    baseline, candidate, calls = clocked(monkeypatch, lambda r, first: 2.0)
    fake_torch(monkeypatch, calls)
    fake_paddle(monkeypatch, calls)
    worker.time_pair("torch", "gpu", baseline, candidate, repeat=1)
    sync = "torch.cuda.synchronize"
    assert calls == [(sync,), "b", (sync,), (sync,), "c", (sync,), (sync,), "b", (sync,)] * 4
    calls.clear()
    worker.time_pair("paddle", "gpu", baseline, candidate, repeat=1)
    sync = "paddle.device.synchronize"
    assert calls == [(sync,), "b", (sync,), (sync,), "c", (sync,), (sync,), "b", (sync,)] * 4
    calls.clear()
    worker.time_pair("paddle", "cpu", baseline, candidate, repeat=1)
    assert calls == list("bcb" * 4)


@pytest.mark.parametrize("text", ["a] [b]\n", "[a [b]\n"])
def test_only_a_word_in_brackets_on_both_sides_is_the_mode(tmp_path, text):
    path = tmp_path / "enabled"
    path.write_text(text, encoding="utf-8")
    assert worker.thp_mode(path) == "b"


def test_the_huge_page_mode_is_read_as_utf8_whatever_the_locale(tmp_path, ascii_locale):
    path = tmp_path / "enabled"
    path.write_text("always [mäßig] never\n", encoding="utf-8")
    assert worker.thp_mode(path) == "mäßig"


# --- the C library: huge pages ---------------------------------------------------------------


def fake_ctypes(monkeypatch, calls: list, libraries: dict) -> None:
    """A ctypes whose CDLL(name) is ``libraries[name]`` (OSError for another name), with the
    real buffers and references."""
    import ctypes

    def cdll(name, **options):
        calls.append(("CDLL", name, options))
        if name not in libraries:
            raise OSError(f"{name}: cannot open shared object file")
        return libraries[name]

    fake = types.ModuleType("ctypes")
    fake.CDLL = cdll
    fake.create_string_buffer = ctypes.create_string_buffer
    fake.c_int = ctypes.c_int
    fake.byref = ctypes.byref
    monkeypatch.setitem(sys.modules, "ctypes", fake)


def test_prctl_calls_the_c_library_with_its_option_and_argument(monkeypatch):
    calls: list = []
    libc = SimpleNamespace(prctl=recorder(calls, "prctl", 1))
    fake_ctypes(monkeypatch, calls, {None: libc})
    assert worker.prctl(42) == 1
    assert worker.prctl(41, 7) == 1
    assert calls == [
        ("CDLL", None, {"use_errno": True}),
        ("prctl", 42, 0, 0, 0, 0),
        ("CDLL", None, {"use_errno": True}),
        ("prctl", 41, 7, 0, 0, 0),
    ]
    fake_ctypes(monkeypatch, calls, {})  # no C library
    assert worker.prctl(42) is None


@pytest.mark.parametrize(
    ("allow", "calls"), [(None, [("prctl", 41, 1)]), ("0", [("prctl", 41, 1)]), ("1", [])]
)
def test_huge_pages_are_turned_off_unless_allowed(monkeypatch, allow, calls):
    recorded: list = []
    monkeypatch.setattr(worker, "prctl", recorder(recorded, "prctl"))
    if allow is None:
        monkeypatch.delenv("AUTOGRAD_ALLOW_THP", raising=False)
    else:
        monkeypatch.setenv("AUTOGRAD_ALLOW_THP", allow)
    worker.disable_thp()
    assert recorded == calls


@pytest.mark.parametrize(("answer", "disabled"), [(1, True), (0, False), (None, False)])
def test_the_huge_page_facts_are_the_mode_and_this_processs_setting(monkeypatch, answer, disabled):
    calls: list = []
    monkeypatch.setattr(worker, "prctl", recorder(calls, "prctl", answer))
    monkeypatch.setattr(worker, "thp_mode", lambda: "madvise")
    assert worker.huge_pages() == {"system": "madvise", "disabled_for_worker": disabled}
    assert calls == [("prctl", 42)]


# --- set-up: the framework, the device, the environment -------------------------------------


@pytest.fixture
def environment(monkeypatch):
    """The allocator settings and huge-page facts every description starts with."""
    monkeypatch.setenv("MALLOC_ARENA_MAX", "2")
    monkeypatch.setattr(worker, "huge_pages", lambda: {"system": "never"})
    monkeypatch.setattr(worker, "gpu_host", lambda framework: {"host of": framework})
    return {
        "python": platform.python_version(),
        "allocator": worker.allocator_settings(),
        "thp": {"system": "never"},
    }


def test_setup_torch_without_cuda(monkeypatch, environment):
    calls: list = []
    fake_torch(monkeypatch, calls)
    assert worker.setup("torch", "cpu") == {
        **environment,
        "framework": "torch",
        "device": "cpu",
        "version": "2.9.0+cpu",
        "cuda_available": False,
        "why_no_gpu": "torch 2.9.0+cpu: torch.cuda.is_available() is False on this machine",
        "why_no_gpu_code": "no_cuda",
        "cuda": None,
    }
    assert calls == [("torch.manual_seed", 0)]
    assert environment["allocator"]["MALLOC_ARENA_MAX"] == "2"


@pytest.mark.parametrize(
    ("device", "calls"),
    [
        ("gpu", [("torch.set_default_device", "cuda"), ("torch.manual_seed", 0)]),
        ("cpu", [("torch.manual_seed", 0)]),
    ],
)
def test_setup_torch_with_cuda_describes_the_first_gpu(monkeypatch, environment, device, calls):
    recorded: list = []
    fake_torch(monkeypatch, recorded, cuda=True)
    assert worker.setup("torch", device) == {
        **environment,
        "framework": "torch",
        "device": device,
        "version": "2.9.0+cu128",
        "cuda_available": True,
        "why_no_gpu": None,
        "why_no_gpu_code": None,
        "cuda": "12.8",
        "gpu": "NVIDIA H100",
        "gpu_host": {"host of": "torch"},
    }
    assert recorded == calls


@pytest.mark.parametrize(
    ("compiled", "count", "version_cuda", "facts"),
    [
        (
            False,
            0,
            "False",  # what a CPU build of Paddle says
            {
                "cuda": None,
                "cuda_available": False,
                "why_no_gpu": "paddle 3.3.1 is a CPU build "
                "(paddle.device.is_compiled_with_cuda() is False)",
                "why_no_gpu_code": "cpu_build",
            },
        ),
        (
            False,
            3,
            None,  # a paddle.version without cuda()
            {
                "cuda": None,
                "cuda_available": False,
                "why_no_gpu": "paddle 3.3.1 is a CPU build "
                "(paddle.device.is_compiled_with_cuda() is False)",
                "why_no_gpu_code": "cpu_build",
            },
        ),
        (
            True,
            0,
            "",
            {
                "cuda": None,
                "cuda_available": False,
                "why_no_gpu": "paddle 3.3.1: no CUDA device visible",
                "why_no_gpu_code": "no_device",
            },
        ),
        (
            True,
            2,
            "12.6",
            {
                "cuda": "12.6",
                "cuda_available": True,
                "why_no_gpu": None,
                "why_no_gpu_code": None,
                "gpu": "NVIDIA H100",
                "gpu_host": {"host of": "paddle"},
            },
        ),
    ],
)
@pytest.mark.parametrize("device", ["cpu", "gpu"])
def test_setup_paddle_says_why_there_is_no_gpu(
    monkeypatch, environment, compiled, count, version_cuda, facts, device
):
    calls: list = []
    fake_paddle(monkeypatch, calls, compiled=compiled, count=count, version_cuda=version_cuda)
    info = worker.setup("paddle", device)
    assert info == {
        **environment,
        "framework": "paddle",
        "device": device,
        "version": "3.3.1",
        **facts,
    }
    assert calls == [
        *([("paddle.device.cuda.device_count",)] if compiled else []),  # only a CUDA build's
        ("paddle.set_device", device),
        ("paddle.seed", 0),
    ]


# --- the GPU machine: NVML and the framework's build ----------------------------------------


class Nvml:
    """libnvidia-ml.so.1: ``init`` and each reading return NVML's status (0: success); a
    reading named in ``missing`` is a function this driver lacks."""

    def __init__(self, calls: list, init=0, driver=0, cuda=0, missing=()):
        self.calls, self.status = calls, {"init": init, "driver": driver, "cuda": cuda}
        self.missing = missing

    def nvmlInit_v2(self):
        self.calls.append("init")
        return self.status["init"]

    def nvmlSystemGetDriverVersion(self, text, size):
        self.calls.append(("driver", len(text), size))
        text.value = b"550.54.15"
        return self.status["driver"]

    def __getattr__(self, name):
        if name == "nvmlSystemGetCudaDriverVersion_v2" and "cuda" not in self.missing:
            return self.cuda_version
        raise AttributeError(f"function '{name}' not found")

    def cuda_version(self, number):
        self.calls.append("cuda")
        number._obj.value = 12010  # CUDA 12.1; not 12.1 in 1,001ths (11.9) or 12.99
        return self.status["cuda"]

    def nvmlShutdown(self):
        self.calls.append("shutdown")


@pytest.mark.parametrize(
    ("status", "facts"),
    [
        ({}, {"driver": "550.54.15", "cuda_driver": "12.1"}),
        ({"driver": 3}, {"cuda_driver": "12.1"}),
        ({"cuda": 1}, {"driver": "550.54.15"}),
    ],
)
def test_nvml_gives_the_driver_and_its_cuda_version(monkeypatch, status, facts):
    calls: list = []
    fake_ctypes(monkeypatch, calls, {"libnvidia-ml.so.1": Nvml(calls, **status)})
    assert worker.nvml_facts() == facts
    assert calls == [
        ("CDLL", "libnvidia-ml.so.1", {}),
        "init",
        ("driver", 96, 96),  # a 96-byte buffer (NVML asks for 80) and its own size as the length
        "cuda",
        "shutdown",
    ]


def test_nvml_that_cannot_be_loaded_or_started_gives_nothing(monkeypatch):
    calls: list = []
    fake_ctypes(monkeypatch, calls, {})
    assert worker.nvml_facts() == {}
    fake_ctypes(monkeypatch, calls, {"libnvidia-ml.so.1": Nvml(calls, init=1)})
    assert worker.nvml_facts() == {}
    assert calls[-1] == "init"  # no reading, no shutdown of what did not start


def test_nvml_is_shut_down_when_a_function_is_missing(monkeypatch):
    calls: list = []
    fake_ctypes(monkeypatch, calls, {"libnvidia-ml.so.1": Nvml(calls, missing=("cuda",))})
    with pytest.raises(AttributeError, match="nvmlSystemGetCudaDriverVersion_v2"):
        worker.nvml_facts()
    assert calls[-1] == "shutdown"


NVML = {"driver": "550.54.15", "cuda_driver": "12.1"}


def test_the_gpu_host_of_torch(monkeypatch):
    fake_torch(monkeypatch, [], cuda=True)
    monkeypatch.setattr(worker, "nvml_facts", lambda: NVML)
    assert worker.gpu_host("torch") == {
        **NVML,
        "gpu": "NVIDIA H100",
        "capability": "9.0",
        "memory_bytes": 85 * 10**9,
        "multiprocessors": 132,
        "torch": "2.9.0+cu128",
        "torch_git": "abc123",
        "cuda_runtime": "12.8",
        "cudnn": 91002,
        "gpus": 2,
    }


def test_the_gpu_host_of_paddle(monkeypatch):
    calls: list = []
    fake_paddle(monkeypatch, calls, compiled=True, count=2, version_cuda="12.6")
    monkeypatch.setattr(worker, "nvml_facts", lambda: NVML)
    assert worker.gpu_host("paddle") == {
        **NVML,
        "gpu": "NVIDIA H100",
        "capability": "9.0",
        "memory_bytes": 85 * 10**9,
        "multiprocessors": 132,
        "paddle": "3.3.1",
        "paddle_commit": "deadbeef",
        "cuda_runtime": "12.6",
        "cudnn": "9.5.1",
        "gpus": 2,
    }


def test_gpu_facts_that_cannot_be_read_are_none_with_the_reason(monkeypatch):
    torch = fake_torch(monkeypatch, [], cuda=True)

    def no_nvml_function():
        raise AttributeError("function 'nvmlSystemGetCudaDriverVersion_v2' not found")

    def no_properties(index):
        raise RuntimeError("CUDA error: no kernel image")

    monkeypatch.setattr(worker, "nvml_facts", no_nvml_function)
    monkeypatch.setattr(torch.cuda, "get_device_properties", no_properties)
    assert worker.gpu_host("torch") == {
        "driver": None,
        "cuda_driver": None,
        "unread": {
            "driver": "function 'nvmlSystemGetCudaDriverVersion_v2' not found",
            "gpu": "RuntimeError: CUDA error: no kernel image",
        },
    }
    monkeypatch.setattr(worker, "nvml_facts", dict)  # no NVML: {}
    assert worker.gpu_host("torch") == {
        "driver": None,
        "cuda_driver": None,
        "unread": {"gpu": "RuntimeError: CUDA error: no kernel image"},
    }


# --- where the tensors are ------------------------------------------------------------------


def test_a_torch_tensors_device(monkeypatch):
    fake_torch(monkeypatch, [])
    assert worker.device_of(TorchTensor("cuda"), "torch") == "gpu"
    assert worker.device_of(TorchTensor("cpu"), "torch") == "cpu"
    assert worker.device_of(TorchTensor("mps"), "torch") == "mps"
    assert worker.device_of(PaddleTensor("gpu"), "torch") is None
    assert worker.device_of([TorchTensor("cuda")], "torch") is None


def test_a_paddle_tensors_device(monkeypatch):
    fake_paddle(monkeypatch, [])
    assert worker.device_of(PaddleTensor("gpu"), "paddle") == "gpu"
    assert worker.device_of(PaddleTensor("cpu"), "paddle") == "cpu"
    assert worker.device_of(PaddleTensor("pinned"), "paddle") == "cpu"
    assert worker.device_of(PaddleTensor("xpu"), "paddle") == "Place(xpu:0)"
    assert worker.device_of(TorchTensor("cuda"), "paddle") is None


def test_the_snippets_tensors_are_counted_once_each_to_two_levels_and_in_modules(monkeypatch):
    fake_torch(monkeypatch, [])
    gpu, cpu = TorchTensor("cuda"), TorchTensor("cpu")
    namespace = {
        "nothing": None,  # visited first: None is not a tensor, and is no reason to stop
        "__hidden": TorchTensor("cuda"),  # dunder names are the namespace's own
        "x": gpu,
        "same": gpu,  # one tensor under two names
        "_private": TorchTensor("cpu"),
        "nested": [cpu, (TorchTensor("cpu"), [TorchTensor("cuda")])],  # level 3 unseen
        "table": {
            "a": TorchTensor("cpu"),
            "b": {"c": TorchTensor("cpu"), "d": {"e": TorchTensor("cuda")}},
        },
        "sets": {frozenset({TorchTensor("mps")})},
        "model": Module([TorchTensor("cuda"), TorchTensor("cuda")], [TorchTensor("cpu")]),
        "models": [Module([TorchTensor("cuda")])],  # a module in a list: its parameters too
        "other": "text",
    }
    assert worker.tensor_devices(namespace, "torch") == {"gpu": 4, "cpu": 6, "mps": 1}


def test_paddle_layers_are_modules(monkeypatch):
    fake_paddle(monkeypatch, [])
    layer = Module([PaddleTensor("gpu")], [PaddleTensor("pinned")])
    namespace = {"layer": layer, "t": PaddleTensor("gpu"), "pair": (layer, PaddleTensor("cpu"))}
    assert worker.tensor_devices(namespace, "paddle") == {"gpu": 2, "cpu": 2}


def test_a_modules_parameters_are_at_the_modules_own_level(monkeypatch):
    """What a module's parameters() or buffers() gives is visited at the module's level: a
    group of tensors in a top-level module is counted, one in a module two levels down is not."""
    fake_torch(monkeypatch, [])
    namespace = {
        "model": Module([[TorchTensor("cuda")]], [(TorchTensor("cpu"),)]),
        "deep": [[Module([[TorchTensor("mps")]])]],
    }
    assert worker.tensor_devices(namespace, "torch") == {"gpu": 1, "cpu": 1}


# --- measurements ---------------------------------------------------------------------------


class Core:
    """Paddle's C++ core with its host allocator statistics (``names``, without the
    ``host_memory_stat_`` prefix): 2,000 bytes allocated at the reset, 10,000 at the peak."""

    def __init__(self, calls: list, names=("reset_peak_value", "current_value", "peak_value")):
        for name in names:
            result = {"current_value": 2000, "peak_value": 10000}.get(name)
            setattr(self, f"host_memory_stat_{name}", recorder(calls, name, result))


@pytest.mark.parametrize("where", ["base", "fluid"])
def test_paddles_core_is_under_base_or_fluid(monkeypatch, where):
    paddle = fake_paddle(monkeypatch, [])
    core = Core([])
    setattr(paddle, where, SimpleNamespace(core=core))
    assert worker.paddle_core() is core


def test_a_paddle_without_host_statistics_is_unmeasurable(monkeypatch):
    paddle = fake_paddle(monkeypatch, [])
    paddle.base = SimpleNamespace(core=Core([], names=["reset_peak_value"]))
    with pytest.raises(worker.Unmeasurable) as raised:
        worker.paddle_core()
    assert str(raised.value) == (
        "paddle 3.3.1 has no host allocator statistics to measure with "
        "(core.host_memory_stat_current_value, core.host_memory_stat_peak_value missing)"
    )
    paddle.base = SimpleNamespace()  # no core at all
    with pytest.raises(worker.Unmeasurable, match="core.host_memory_stat_reset_peak_value, "):
        worker.paddle_core()
    del paddle.base  # neither base nor fluid
    with pytest.raises(worker.Unmeasurable, match="_peak_value missing"):
        worker.paddle_core()


def region_of(calls: list):
    def region():
        calls.append("region")
        return object()

    return region


def test_paddle_gpu_memory_is_the_peak_above_the_start_after_a_warm_up(monkeypatch):
    calls: list = []
    fake_paddle(monkeypatch, calls)
    assert worker.peak_bytes("paddle", "gpu", region_of(calls)) == 4096
    assert calls == [
        "region",  # the warm-up: CUDA libraries' workspaces are not the region's memory
        ("paddle.device.synchronize",),
        ("paddle.reset_max_memory_allocated",),
        ("paddle.memory_allocated",),
        "region",
        ("paddle.device.synchronize",),
        ("paddle.max_memory_allocated",),
    ]


def test_paddle_cpu_memory_comes_from_the_host_allocator_statistics(monkeypatch):
    calls: list = []
    monkeypatch.setattr(worker, "paddle_core", lambda: Core(calls))
    assert worker.peak_bytes("paddle", "cpu", region_of(calls)) == 8000
    assert calls == [
        ("reset_peak_value", "Allocated", 0),
        ("current_value", "Allocated", 0),
        "region",
        ("peak_value", "Allocated", 0),
    ]


def test_torch_gpu_memory_is_the_peak_above_the_start_after_a_warm_up(monkeypatch):
    calls: list = []
    fake_torch(monkeypatch, calls, cuda=True)
    assert worker.peak_bytes("torch", "gpu", region_of(calls)) == 4096
    assert calls == [
        "region",
        ("torch.cuda.synchronize",),
        ("torch.cuda.reset_peak_memory_stats",),
        ("torch.cuda.memory_allocated",),
        "region",
        ("torch.cuda.synchronize",),
        ("torch.cuda.max_memory_allocated",),
    ]


class Event:
    def __init__(self, start_ns: int, nbytes: int, name: str = "[memory]"):
        self.start, self.bytes, self.label = start_ns, nbytes, name

    def start_ns(self):
        return self.start

    def nbytes(self):
        return self.bytes

    def name(self):
        return self.label


def fake_profiler(monkeypatch, calls: list, events=()) -> None:
    """torch.profiler: profile(...) records its arguments, its start and its end; its
    results are ``events``."""

    class Profile:
        def __init__(self, **options):
            calls.append(("profile", options))
            results = SimpleNamespace(events=lambda: list(events))
            self.profiler = SimpleNamespace(kineto_results=results)

        def __enter__(self):
            calls.append("start")
            return self

        def __exit__(self, *exc):
            calls.append("stop")

    profiler = types.ModuleType("torch.profiler")
    profiler.profile = Profile
    profiler.ProfilerActivity = SimpleNamespace(CPU="activity CPU")
    monkeypatch.setitem(sys.modules, "torch.profiler", profiler)


def test_torch_cpu_memory_is_the_peak_of_the_profilers_running_sum(monkeypatch):
    """The memory events in time order (the profiler's order is not), ties in the order
    recorded: +100 at 10 ns, +50 and -50 at 20 ns, -100 at 30 ns: a peak of 150. Other events
    have no bytes to count."""
    calls: list = []
    fake_torch(monkeypatch, calls)
    events = [
        Event(30, -100),
        Event(10, 100),
        Event(15, 1000, "aten::empty"),
        Event(20, 50),
        Event(20, -50),
    ]
    fake_profiler(monkeypatch, calls, events)
    assert worker.peak_bytes("torch", "cpu", region_of(calls)) == 150
    assert calls == [
        ("profile", {"activities": ["activity CPU"], "profile_memory": True}),
        "start",
        "region",
        "stop",
    ]
    fake_profiler(monkeypatch, calls, [Event(5, -10)])  # only frees: nothing above the start
    assert worker.peak_bytes("torch", "cpu", region_of(calls)) == 0


# --- running one claim ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("framework", "sizes"),
    [("torch", [4 * 2**20, 10 * 2**20]), ("paddle", [[4 * 2**20], [10 * 2**20]])],
)
def test_perturbing_allocates_16_and_40_mib_of_float32(monkeypatch, framework, sizes):
    calls: list = []
    fake_torch(monkeypatch, calls)
    fake_paddle(monkeypatch, calls)
    worker.perturb(framework)
    assert calls == [(f"{framework}.ones", size) for size in sizes]
    counts = [size[0] if framework == "paddle" else size for _, size in calls]
    assert all(type(count) is int for count in counts)


@pytest.mark.parametrize(("framework", "profiled"), [("torch", True), ("paddle", False)])
def test_importing_a_framework_starts_torchs_profiler_once(
    monkeypatch, environment, framework, profiled
):
    calls: list = []
    fake_torch(monkeypatch, calls)
    fake_paddle(monkeypatch, calls)
    fake_profiler(monkeypatch, calls)
    version = {"torch": "2.9.0+cpu", "paddle": "3.3.1"}[framework]
    assert worker.import_framework(framework) == {
        "python": environment["python"],
        "framework": framework,
        "version": version,
        "allocator": environment["allocator"],
        "thp": environment["thp"],
    }
    assert calls == (
        [
            ("profile", {"activities": ["activity CPU"], "profile_memory": True}),
            "start",
            ("torch.ones", 1),
            "stop",
        ]
        if profiled
        else []
    )


SNIPPET = """\
import sys
import torch

first_path = sys.path[0]
argv = list(sys.argv)
x = torch.tensor("cuda")
y = [torch.tensor("cpu"), x]
n = 10
print("printed by the snippet")


def observe():
    sys.stdout.write("printed while observed")
    return {
        "name": __name__,
        "file": __file__,
        "argv": argv,
        "first_path": first_path,
        "names": sorted(globals()),
    }


def one():
    return two()


def two():
    return three()


def three():
    return four()


def four():
    return five()


def five():
    return 1 / 0
"""

NAMES = ["__builtins__", "__file__", "__name__", "argv", "first_path", "five", "four", "n"]
NAMES += ["observe", "one", "sys", "three", "torch", "two", "x", "y"]


@pytest.fixture
def claim(monkeypatch, tmp_path):
    """A claim's snippet, run as by a torch worker on a CPU: its calls (the history's
    perturbation and pinning, the measurements) recorded, its clock advancing 2.5 s while
    the snippet runs, ``sys.path`` and ``sys.argv`` restored afterwards."""
    calls: list = []
    folder = tmp_path / "claim"
    folder.mkdir()
    path = folder / "snippet.py"
    path.write_text(SNIPPET, encoding="utf-8")
    fake_torch(monkeypatch, calls)
    monkeypatch.setattr(worker, "FRAMEWORK", "torch")
    monkeypatch.setattr(worker, "DEVICE", "cpu")
    monkeypatch.setattr(worker, "huge_pages", lambda: {"system": "never"})
    monkeypatch.setattr(worker, "perturb", recorder(calls, "perturb"))
    cpus = iter([{3, 5, 7}, {3}])  # the process's CPUs before and after it is pinned

    def sched_getaffinity(pid):
        calls.append(("get", pid))
        return next(cpus)

    monkeypatch.setattr(os, "sched_getaffinity", sched_getaffinity)
    monkeypatch.setattr(os, "sched_setaffinity", recorder(calls, "set"))
    clock = itertools.cycle([10.0, 12.5])  # each run: its start, its end
    monkeypatch.setattr(worker, "time", SimpleNamespace(perf_counter=lambda: next(clock)))
    monkeypatch.setattr(sys, "path", [*sys.path])
    monkeypatch.setattr(sys, "argv", ["pytest"])
    request = {"id": "claim-1", "kind": "value", "snippet": str(path), "spec": {"observe": "n"}}
    base = {
        "allocator": worker.allocator_settings(),
        "thp": {"system": "never"},
        "output": "printed by the snippet\n",
        "snippet_s": 2.5,
        "tensor_devices": {"gpu": 1, "cpu": 1},
    }
    return SimpleNamespace(path=path, calls=calls, request=request, base=base)


def frames(text: str) -> list[str]:
    """The functions a traceback names, outermost first."""
    return re.findall(r'^  File ".*", line \d+, in (\S+)$', text, re.MULTILINE)


@pytest.mark.parametrize("kind", ["value", "behaviour", "measurement"])
def test_a_snippet_runs_as_main_beside_its_files_and_is_observed(claim, capsys, kind):
    request = {**claim.request, "kind": kind, "spec": {"observe": "observe()"}}
    observed = worker.run(request)
    path = str(claim.path)
    assert observed == {
        **claim.base,
        "value": {
            "name": "__main__",
            "file": path,
            "argv": [path],
            "first_path": str(claim.path.parent),
            "names": NAMES,
        },
    }
    assert sys.path[0] != str(claim.path.parent) and str(claim.path.parent) not in sys.path
    assert capsys.readouterr().out == ""  # neither the snippet's output nor the observation's
    assert claim.calls == []  # no history: nothing perturbed, not pinned


def test_a_snippet_is_read_as_utf8_whatever_the_locale(claim, ascii_locale):
    claim.path.write_text(SNIPPET + '\nword = "é"\n', encoding="utf-8")
    observed = worker.run({**claim.request, "spec": {"observe": "word"}})
    assert observed == {**claim.base, "value": "é"}


def test_a_perturbed_history_runs_before_the_snippet(claim):
    observed = worker.run({**claim.request, "history": "perturbed"})
    assert observed == {**claim.base, "value": 10}
    assert claim.calls == [("perturb", "torch")]


def test_a_pinned_process_runs_on_the_first_cpu_it_may_use(claim):
    observed = worker.run({**claim.request, "history": "pinned"})
    assert observed == {**claim.base, "cpus": [3], "value": 10}
    assert claim.calls == [("get", 0), ("set", 0, {3}), ("get", 0)]


def test_a_snippets_exception_is_observed_with_its_last_three_frames(claim):
    claim.path.write_text(
        SNIPPET + "\n\nclass Errors:\n    class Refused(ValueError):\n        pass\n\n\n"
        "def a():\n    b()\n\n\ndef b():\n    c()\n\n\n"
        "def c():\n    raise Errors.Refused('no such thing')\n\n\na()\n",
        encoding="utf-8",
    )
    observed = worker.run({**claim.request, "spec": {"observe": "observe()"}})
    exception = observed.pop("exception")
    assert observed == claim.base  # nothing observed after the exception
    traceback = exception.pop("traceback")
    assert exception == {
        "type": "Refused",
        "qualified_type": "__main__.Errors.Refused",
        "message": "no such thing",
    }
    assert frames(traceback) == ["a", "b", "c"]
    assert traceback.count(f'File "{claim.path}"') == 3
    assert traceback.endswith("Errors.Refused: no such thing\n")


def unplaced():
    return where_is_it()


def where_is_it():
    raise RuntimeError("the tensor lost its device")


class Unplaced(TorchTensor):
    def __init__(self):
        pass

    @property
    def device(self):
        return unplaced()


def test_a_failed_device_check_is_a_harness_error_and_ends_the_run(claim, monkeypatch):
    sys.modules["torch"].Unplaced = Unplaced
    claim.path.write_text(SNIPPET + "\nbad = torch.Unplaced()\n", encoding="utf-8")
    observed = worker.run({**claim.request, "spec": {"observe": "observe()"}})
    error = observed.pop("harness_error")
    assert observed == {k: v for k, v in claim.base.items() if k != "tensor_devices"}
    assert error.startswith("device check failed:\nTraceback (most recent call last):\n")
    assert frames(error) == ["device", "unplaced", "where_is_it"]
    assert error.endswith("RuntimeError: the tensor lost its device\n")


def test_an_observation_that_fails_is_a_harness_error_with_its_last_four_frames(claim):
    observed = worker.run({**claim.request, "spec": {"observe": "one()"}})
    error = observed.pop("harness_error")
    assert observed == claim.base
    assert frames(error) == ["two", "three", "four", "five"]
    assert error.endswith("ZeroDivisionError: division by zero\n")
    observed = worker.run({**claim.request, "spec": {"observe": "1 / 0"}})
    assert 'File "<claim-1>", line 1, in <module>' in observed["harness_error"]


@pytest.mark.parametrize("kind", ["page", "layout"])
def test_a_kind_without_observation_observes_nothing_more(claim, kind):
    assert worker.run({**claim.request, "kind": kind, "spec": {"observe": "1 / 0"}}) == claim.base


def fake_peak_bytes(monkeypatch):
    """peak_bytes: the framework, the device and what the region evaluates to."""

    def peak_bytes(framework, device, region):
        return f"{framework}-{device}: {region()}"

    monkeypatch.setattr(worker, "peak_bytes", peak_bytes)


def test_a_memory_region_is_measured_beside_its_theoretical_bytes(claim, monkeypatch):
    fake_peak_bytes(monkeypatch)
    monkeypatch.setattr(worker, "DEVICE", "gpu")
    spec = {"region": "n * 3", "theoretical": "n * 4.5"}
    observed = worker.run({**claim.request, "kind": "memory", "spec": spec})
    assert observed == {**claim.base, "bytes": "torch-gpu: 30", "theoretical_bytes": 45}
    assert type(observed["theoretical_bytes"]) is int


@pytest.mark.parametrize(
    ("theoretical", "expected"),
    [({"small": "n", "large": "n * 2.0"}, {"small": 10, "large": 20}), ("n * 5.0", 50)],
)
def test_memory_regions_are_measured_each_by_name(claim, monkeypatch, theoretical, expected):
    fake_peak_bytes(monkeypatch)
    spec = {"regions": {"small": "n", "large": "n * 2"}, "theoretical": theoretical}
    observed = worker.run({**claim.request, "kind": "memory", "spec": spec})
    bytes_ = {"small": "torch-cpu: 10", "large": "torch-cpu: 20"}
    assert observed == {**claim.base, "bytes": bytes_, "theoretical_bytes": expected}


def test_an_unmeasurable_region_says_why(claim, monkeypatch):
    def peak_bytes(framework, device, region):
        raise worker.Unmeasurable("no allocator statistics")

    monkeypatch.setattr(worker, "peak_bytes", peak_bytes)
    spec = {"region": "n", "theoretical": "n"}
    observed = worker.run({**claim.request, "kind": "memory", "spec": spec})
    assert observed == {**claim.base, "unmeasurable": "no allocator statistics"}


@pytest.mark.parametrize(
    ("spec", "repeat", "statistic"),
    [({}, 30, "median"), ({"repeat": "7", "statistic": "min"}, 7, "min")],
)
def test_a_timing_claim_times_its_expressions_in_the_snippets_namespace(
    claim, monkeypatch, spec, repeat, statistic
):
    def time_pair(framework, device, baseline, candidate, repeat, statistic):
        return {"pair": [baseline(), candidate()], "args": [framework, device, repeat, statistic]}

    monkeypatch.setattr(worker, "time_pair", time_pair)
    spec = {"baseline": "n + 1", "candidate": "n * 2", **spec}
    observed = worker.run({**claim.request, "kind": "timing", "spec": spec})
    assert observed == {**claim.base, "pair": [11, 20], "args": ["torch", "cpu", repeat, statistic]}
    failing = {**spec, "candidate": "1 / 0"}
    observed = worker.run({**claim.request, "kind": "timing", "spec": failing})
    assert 'File "<claim-1>", line 1, in <module>' in observed["harness_error"]


def test_an_answer_is_the_runs_result_or_the_error_that_ended_it(monkeypatch):
    monkeypatch.setattr(worker, "run", lambda request: {"ran": request})
    assert worker.answer({"id": "a"}) == {"ran": {"id": "a"}}

    def run(request):
        raise KeyError("kind")

    monkeypatch.setattr(worker, "run", run)
    error = worker.answer({"id": "a"})
    assert list(error) == ["harness_error"]
    assert error["harness_error"].startswith("Traceback (most recent call last):\n")
    assert error["harness_error"].endswith("KeyError: 'kind'\n")


# --- the process: fresh children and the protocol -------------------------------------------


class Os:
    """The worker's ``os``: the functions given, the rest the real module's."""

    def __init__(self, **functions):
        self.__dict__.update(functions)

    def __getattr__(self, name):
        return getattr(os, name)


class Exited(Exception):
    """os._exit in a child that is this process."""


def exit_(code):
    raise Exited(code)


def closing(calls: list):
    def close(fd):
        calls.append(("close", fd))
        os.close(fd)

    return close


@pytest.fixture
def fresh(monkeypatch):
    """A paddle GPU worker whose set-up, answers and waits are recorded in ``calls``."""
    calls: list = []
    monkeypatch.setattr(worker, "FRAMEWORK", "paddle")
    monkeypatch.setattr(worker, "DEVICE", "gpu")
    monkeypatch.setattr(worker, "setup", recorder(calls, "setup"))
    answer = recorder(calls, "answer", {"value": "é"})
    monkeypatch.setattr(worker, "answer", answer)
    return calls


@pytest.mark.parametrize(("cwd", "chdir"), [("/claims/a", [("chdir", "/claims/a")]), ("", [])])
def test_a_fresh_child_sets_up_answers_and_exits(monkeypatch, fresh, cwd, chdir):
    """The child (os.fork() is 0): it closes the pipe's read end, sets the device up, goes to
    the request's folder, answers on the write end and exits with 0."""
    read_end, write_end = os.pipe()
    kept = os.dup(read_end)
    fake = Os(pipe=lambda: (read_end, write_end), fork=lambda: 0, _exit=exit_,
              close=closing(fresh), chdir=recorder(fresh, "chdir"),
              waitpid=recorder(fresh, "waitpid", (0, 0)))  # fmt: skip
    monkeypatch.setattr(worker, "os", fake)
    request = {"id": "c", "cwd": cwd}
    with pytest.raises(Exited) as exited:
        worker.fresh(request)
    assert exited.value.args == (0,)
    with os.fdopen(kept, encoding="utf-8") as pipe:
        assert json.loads(pipe.read()) == {"value": "é"}
    assert fresh == [("close", read_end), ("setup", "paddle", "gpu"), *chdir, ("answer", request)]


class Interrupted(BaseException):
    pass


def test_a_fresh_child_that_fails_to_set_up_answers_with_the_error(monkeypatch, fresh):
    def setup(framework, device):
        raise Interrupted("set-up interrupted")

    monkeypatch.setattr(worker, "setup", setup)
    read_end, write_end = os.pipe()
    kept = os.dup(read_end)
    fake = Os(pipe=lambda: (read_end, write_end), fork=lambda: 0, _exit=exit_,
              waitpid=recorder(fresh, "waitpid", (0, 0)))  # fmt: skip
    monkeypatch.setattr(worker, "os", fake)
    with pytest.raises(Exited):
        worker.fresh({"id": "c", "cwd": "/claims/a"})
    with os.fdopen(kept, encoding="utf-8") as pipe:
        error = json.loads(pipe.read())
    assert list(error) == ["harness_error"]
    assert error["harness_error"].startswith("Traceback (most recent call last):\n")
    assert error["harness_error"].endswith("Interrupted: set-up interrupted\n")
    assert fresh == []  # neither the folder nor an answer


@pytest.mark.parametrize(
    ("written", "status", "result"),
    [
        ('{"value": "\\u00e9"}', 0, {"value": "é"}),
        ("", signal.SIGKILL, {"harness_error": "the fresh process died (signal 9 (Killed))"}),
        ("", 3 << 8, {"harness_error": "the fresh process died (exit code 3)"}),
    ],
)
def test_the_parent_reads_the_childs_answer_and_waits_for_it(
    monkeypatch, fresh, written, status, result
):
    read_end, write_end = os.pipe()
    os.write(write_end, written.encode())  # what the child wrote before it ended
    fake = Os(pipe=lambda: (read_end, write_end), fork=lambda: 4242, _exit=exit_,
              close=closing(fresh), waitpid=recorder(fresh, "waitpid", (4242, status)))  # fmt: skip
    monkeypatch.setattr(worker, "os", fake)
    assert worker.fresh({"id": "c"}) == result
    assert fresh == [("close", write_end), ("waitpid", 4242, 0)]


def opening(opened: list):
    """os.fdopen, keeping each file it opens in ``opened``."""

    def fdopen(*args, **kwargs):
        opened.append(os.fdopen(*args, **kwargs))
        return opened[-1]

    return fdopen


@pytest.mark.parametrize("pid", [0, 4242])
def test_the_fresh_pipe_is_utf8_at_both_ends_whatever_the_locale(
    monkeypatch, fresh, ascii_locale, pid
):
    """The child (pid 0) writes its answer and the parent reads it as UTF-8, not in the
    locale's character set."""
    read_end, write_end = os.pipe()
    kept = os.dup(read_end)  # the child closes its read end: the pipe stays open
    if pid:
        os.write(write_end, b'{"value": "\\u00e9"}')
    opened: list = []
    fake = Os(pipe=lambda: (read_end, write_end), fork=lambda: pid, _exit=exit_,
              fdopen=opening(opened), waitpid=recorder(fresh, "waitpid", (pid, 0)))  # fmt: skip
    monkeypatch.setattr(worker, "os", fake)
    if pid:
        assert worker.fresh({"id": "c"}) == {"value": "é"}
    else:
        with pytest.raises(Exited):
            worker.fresh({"id": "c"})
    os.close(kept)
    assert [codecs.lookup(file.encoding).name for file in opened] == ["utf-8"]


@pytest.fixture
def protocol(monkeypatch, tmp_path):
    """main() in this process: fd 1's copy is a file, the redirection of fd 1 is recorded
    (not done), stdin holds two requests; ``sys.stdout`` and ``sys.path`` are restored."""
    calls: list = []
    path = tmp_path / "protocol"
    opened: list = []

    def dup(fd):
        calls.append(("dup", fd))
        return os.open(path, os.O_WRONLY | os.O_CREAT)

    fdopen = opening(opened)
    monkeypatch.setattr(worker, "os", Os(dup=dup, dup2=recorder(calls, "dup2"), fdopen=fdopen))
    monkeypatch.delenv("AUTOGRAD_ALLOW_THP", raising=False)
    monkeypatch.setattr(worker, "prctl", recorder(calls, "prctl"))
    monkeypatch.setattr(worker, "FRAMEWORK", "torch")
    monkeypatch.setattr(worker, "DEVICE", "cpu")
    monkeypatch.setattr(sys, "stdout", sys.stdout)
    monkeypatch.setattr(sys, "stdin", io.StringIO('{"id": "a"}\n{"id": "b"}\n'))
    monkeypatch.setattr(sys, "path", [*sys.path])
    monkeypatch.setattr(worker, "setup", lambda framework, device: {"setup": [framework, device]})
    monkeypatch.setattr(worker, "answer", lambda request: {"answered": request["id"]})
    monkeypatch.setattr(worker, "import_framework", lambda framework: {"imported": framework})
    monkeypatch.setattr(worker, "fresh", lambda request: {"fresh": request["id"]})

    def written():
        for file in opened:
            file.close()
        return path.read_text(encoding="utf-8")

    return SimpleNamespace(calls=calls, written=written, opened=opened)


def test_the_worker_answers_each_request_line_on_the_protocol_pipe(protocol):
    worker.main()
    assert protocol.written() == (
        '{"ready": {"setup": ["torch", "cpu"]}}\n{"answered": "a"}\n{"answered": "b"}\n'
    )
    assert protocol.calls == [("prctl", 41, 1), ("dup", 1), ("dup2", 2, 1)]
    assert sys.stdout is sys.stderr
    assert sys.path[0] == str(Path(worker.__file__).resolve().parent.parent)


def test_a_forking_worker_imports_only_and_answers_from_fresh_children(protocol, monkeypatch):
    monkeypatch.setattr(worker, "FORK", True)
    worker.main()
    written = protocol.written()
    assert written == '{"ready": {"imported": "torch"}}\n{"fresh": "a"}\n{"fresh": "b"}\n'
    assert protocol.calls == [("prctl", 41, 1), ("dup", 1), ("dup2", 2, 1)]


def test_the_protocol_pipe_is_utf8_whatever_the_locale(protocol, ascii_locale):
    """The runner reads the protocol as UTF-8: the worker writes it so in any locale."""
    worker.main()
    assert [codecs.lookup(file.encoding).name for file in protocol.opened] == ["utf-8"]
    assert protocol.written().startswith('{"ready": ')
