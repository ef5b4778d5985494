"""Fixture claims, records and reports for the engine's unit tests (no framework is run).

``make_snippets(tmp_path)`` writes a small ``snippets/fixture/`` tree (one claim of every kind,
a launcher that names a worker script, a version override and a silent failure) and returns
its path; ``observed_for`` gives an observation that passes each claim, and ``env_for`` the
environment a record carries; ``context_for`` a run context with the same fixed date, processor
and versions (the engine's code builds records from a context, never from patched globals);
``ascii_locale()`` makes ASCII the default encoding of files for the code run inside it.
"""

from __future__ import annotations

import contextlib
import locale
import textwrap
from pathlib import Path

VERSIONS = {"paddle": "3.3.1", "torch": "2.13.0+cpu"}

SNIPPETS = {
    "leaf_paddle.py": "import paddle\nleaf = paddle.ones([3])\n",
    "leaf_torch.py": "import torch\nleaf = torch.ones(3, requires_grad=True)\nleaf.add_(1)\n",
    "grad_paddle.py": "import paddle\nw = paddle.to_tensor([1.0])\n",
    "grad_torch.py": "import torch\nw = torch.tensor([1.0])\n",
    "launch_paddle.py": 'from pathlib import Path\nworker = Path(__file__).with_name("work_paddle.py")\n',
    "launch_torch.py": 'from pathlib import Path\nworker = Path(__file__).with_name("work_torch.py")\n',
    "work_paddle.py": "import helper\n",
    "work_torch.py": "import helper\n",
    "helper.py": "VALUE = 1\n",
    "data.json": "{}\n",
    "chain_paddle.py": "import paddle\n",
    "chain_torch.py": "import torch\n",
}

CLAIMS = """
[[claim]]
id = "fixture.leaf"
kind = "error"
snippet = "leaf"
statement = {en = "Leaf error.", zh = "叶子张量报错。"}
[claim.expect.paddle]
type = "ValueError"
match = "Leaf .* can't use inplace"
[[claim.expect.paddle.versions]]
range = "<3.0"
note = {en = "Paddle 2 says Var.", zh = "飞桨 2 的报错写作 Var。"}
match = "Var .* can't use inplace"
[[claim.expect.paddle.versions]]
range = ">=1.0,<2.0"
note = {en = "Paddle 1 has no such API.", zh = "飞桨 1 没有这个 API。"}
unrunnable = "AttributeError: .*inplace"
[claim.expect.torch]
type = "RuntimeError"
match = "a leaf Variable"

[[claim]]
id = "fixture.grad"
kind = "value"
snippet = "grad"
devices = ["cpu"]
observe = "w.grad.item()"
statement = {en = "The gradient is -16.", zh = "梯度为 -16。"}
expect.torch.value = -16.0
[claim.expect.paddle]
value = -16.0
observe = "w.grad.item() * 1"

[[claim]]
id = "fixture.launch"
kind = "behaviour"
snippet = "launch"
devices = ["cpu"]
observe = "report"
files = ["data.json"]
statement = {en = "Both workers agree.", zh = "两个进程一致。"}
[claim.expect.paddle]
facts = {agree = true, silent_loss = false}
[claim.expect.torch]
facts = {agree = true, silent_loss = true}
[[claim.silent]]
fact = "silent_loss"
section = "a-section"
symptom = {en = "The loss is lost.", zh = "损失丢失。"}
fix = {en = "Keep the loss.", zh = "保留损失。"}

[[claim]]
id = "fixture.chain"
kind = "memory"
snippet = "chain"
regions = {out = "chain(x)", inplace = "chain_(x)"}
theoretical = {out = "2 * 1024", inplace = "0"}
statement = {en = "Out of place needs two tensors.", zh = "非原位需要两个张量。"}
[claim.expect.paddle]
bytes = {out = 2048, inplace = 0}
[claim.expect.paddle.gpu]
tol_bytes = 512
[claim.expect.torch]
bytes = {out = 2048, inplace = 0}
tol_bytes = 16
tol_theoretical = 16

[[claim]]
id = "fixture.speed"
kind = "timing"
snippet = "chain"
devices = ["cpu"]
baseline = "chain(x)"
candidate = "chain_(x)"
repeat = 5
statement = {en = "In place is faster.", zh = "原位更快。"}
expect.torch = {verdict = "faster", margin = 1.5}
expect.paddle = {verdict = "similar", margin = 1.25, max_noise = 1.2}
"""

PAGE_EN = """# Fixture

{{ verified }}

## A section

Value {{ fixture.grad | torch | value }} and {{ fixture.launch | paddle | statement }}

=== "PyTorch"

    {{ fixture.leaf | torch | output }}

## Memory

Out: {{ fixture.chain | paddle | bytes.out }}, theory {{ fixture.chain | torch | theoretical.out }}.
"""


def make_snippets(root: Path, claims: str = CLAIMS) -> Path:
    """``root/snippets/fixture/`` with the fixture files; returns ``root/snippets``."""
    folder = root / "snippets" / "fixture"
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in SNIPPETS.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "claims.toml").write_text(textwrap.dedent(claims), encoding="utf-8")
    return root / "snippets"


def make_docs(root: Path) -> Path:
    for lang in ("en", "zh"):
        page = root / "docs" / lang / "fixture.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(PAGE_EN, encoding="utf-8")
    return root / "docs"


DATE = "2026-12-01T10:00:00+00:00"


def context_for(**changes):
    """This process's run context with the fixture's date, processor ("Test CPU") and
    framework versions, and any other ``changes`` (``environ``, ``engine_hash``, ...)."""
    from verified.context import RunContext

    here = RunContext.capture()
    fixed = {"host": {**here.host, "cpu": "Test CPU"}, "versions": VERSIONS, "clock": lambda: DATE}
    return here.replace(**{**fixed, **changes})


def env_for(framework: str, device: str = "cpu", version: str | None = None, **extra) -> dict:
    env = {
        "framework": framework,
        "version": version or VERSIONS[framework],
        "module_version": version or VERSIONS[framework],
        "versions": {**VERSIONS, framework: version or VERSIONS[framework]},
        "device": device,
        "gpu": "NVIDIA H200" if device == "gpu" else None,
        "cuda": "13.0" if device == "gpu" else None,
        "python": "3.11.7",
        "platform": "Linux",
        "cpu": "Test CPU",
        "date": DATE,
    }
    env.update(extra)
    return env


def observed_for(case) -> dict:
    """An observation that passes ``case``."""
    kind = case.claim.kind
    gpu = case.device == "gpu"
    observed: dict = {"output": "hello\n", "tensor_devices": {"gpu" if gpu else "cpu": 2}}
    if kind == "error":
        message = {"paddle": "(InvalidArgument) Leaf Var x can't use inplace strategy.\nmore"}
        observed["exception"] = {
            "type": case.spec["type"],
            "message": message.get(case.framework, "a leaf Variable that requires grad\nmore"),
            "traceback": "Traceback",
        }
    elif kind == "value":
        observed["value"] = case.spec["value"]
    elif kind == "behaviour":
        observed["value"] = {**case.spec["facts"], "evidence": 3}
    elif kind == "memory":
        observed["bytes"] = dict(case.spec["bytes"])
        observed["theoretical_bytes"] = dict(case.spec["bytes"])
    else:
        observed.update(
            {
                "median_baseline_s": 0.004,
                "median_candidate_s": 0.002,
                "median_control_s": 0.004,
                "ratio": 2.0 if case.spec["verdict"] == "faster" else 1.01,
                "control_ratio": 1.01,
                "noise": 1.01,
                "repeat": 5,
            }
        )
        for statistic in ("min", "median"):  # the judge needs both (runner.STATISTICS)
            observed[f"ratio_{statistic}"] = observed["ratio"]
            observed[f"noise_{statistic}"] = observed["noise"]
    return observed


@contextlib.contextmanager
def ascii_locale():
    """The C locale's character set (ASCII) as the default encoding of files inside the block:
    a file of Chinese text read without naming UTF-8 fails there."""
    before = locale.setlocale(locale.LC_CTYPE)
    locale.setlocale(locale.LC_CTYPE, "C")
    try:
        yield
    finally:
        locale.setlocale(locale.LC_CTYPE, before)
