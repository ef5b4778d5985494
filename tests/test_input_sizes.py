"""The inputs that the pages name in words (a 4 MiB tensor, 1024 × 1024, 1000 calls) are the
ones the snippets run.

They are not measurements: each is what a snippet's code sets, and the figures measured on
them come from the claims report. So that the words cannot drift from the code, each row below
reads the value from the snippet's source, in both frameworks, and requires the page to say
it, in both languages. Changing a snippet's size without its pages fails here.
"""

from __future__ import annotations

import ast
import re
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SNIPPETS = ROOT / "snippets"
DOCS = ROOT / "docs"
FRAMEWORKS = ("paddle", "torch")


def constant(source: str, pattern: str) -> int | tuple[int, ...]:
    """The value of the one integer expression (literals and ``<<``, ``*``, ``**``), or tuple
    of them, that ``pattern`` captures in ``source``."""
    found = re.findall(pattern, source)
    assert len(found) == 1, f"{pattern!r} matches {len(found)} times"
    node = ast.parse(found[0], mode="eval").body

    def value(n: ast.AST):
        if isinstance(n, ast.Tuple):
            return tuple(value(e) for e in n.elts)
        if isinstance(n, ast.Constant) and isinstance(n.value, int):
            return n.value
        if isinstance(n, ast.BinOp) and isinstance(n.op, (ast.LShift, ast.Mult, ast.Pow)):
            left, right = value(n.left), value(n.right)
            if isinstance(n.op, ast.LShift):
                return left << right
            return left * right if isinstance(n.op, ast.Mult) else left**right
        raise AssertionError(f"{found[0]!r} is not an integer expression")

    return value(node)


def kib(elements: int) -> str:
    """float32 elements -> "64 KiB"."""
    size = elements * 4
    assert size % 2**10 == 0, f"{elements} float32 values are not a whole number of KiB"
    return f"{size // 2**10} KiB"


def kib_of_bytes(size: int) -> str:
    """bytes -> "4 KiB"."""
    assert size % 2**10 == 0, f"{size} bytes are not a whole number of KiB"
    return f"{size // 2**10} KiB"


def mib(elements: int) -> str:
    """float32 elements -> "4 MiB" (``torch.rand``/``paddle.rand`` default to float32)."""
    size = elements * 4
    assert size % 2**20 == 0, f"{elements} float32 values are not a whole number of MiB"
    return f"{size // 2**20} MiB"


# (snippet stem, the expression in its source, the words it becomes (named fields), {language:
# [(page, what the page says, with the fields where the values go)]})
INPUTS = [
    (
        "inplace/activation",
        r"\nN = (.+?)  #",
        lambda n: {"size": mib(n)},
        {
            "en": [("inplace/memory.md", "`exp` then `sin` on a {size} tensor")],
            "zh": [("inplace/memory.md", "对 {size} 的张量先 `exp` 再 `sin`")],
        },
    ),
    (
        "inplace/speed",
        r"\nN = (.+?)  #",
        lambda n: {"size": mib(n)},
        {
            "en": [("inplace/speed.md", "in PyTorch ({size} tensors)")],
            "zh": [("inplace/speed.md", "对 {size} 的张量（Tensor）")],
        },
    ),
    (
        "inplace/speed",
        r"small_signal = \w+\.rand\(\[?(.+?)\]?\)  #",
        lambda n: {"size": kib(n)},
        {
            "en": [("inplace/speed.md", "| {{{{ inplace.speed-small | torch | env }}}}, {size} |")],
            "zh": [("inplace/speed.md", "| {{{{ inplace.speed-small | torch | env }}}}，{size} |")],
        },
    ),
    (
        "inplace/speed",
        r"large_signal = \w+\.rand\(\[?(.+?)\]?\)  #",
        lambda n: {"size": mib(n)},
        {
            "en": [
                ("inplace/speed.md", "as fast for {size} "),
                ("inplace/speed.md", "| {{{{ inplace.speed-large | torch | env }}}}, {size} |"),
            ],
            "zh": [
                ("inplace/speed.md", "{size} 时，原位写法的速度"),
                ("inplace/speed.md", "| {{{{ inplace.speed-large | torch | env }}}}，{size} |"),
            ],
        },
    ),
    (
        "inplace/long_loop",
        r"signal = \w+\.rand\(\[?(.+?)\]?\)  #",
        lambda n: {"size": mib(n)},
        {
            "en": [("inplace/speed.md", "with glibc's defaults, {size} results in Paddle")],
            "zh": [("inplace/speed.md", "飞桨中 {size} 的结果")],
        },
    ),
    (
        "inplace/long_loop",
        r"for _ in range\((.+?)\):",
        lambda n: {"calls": str(n)},
        {
            "en": [("inplace/speed.md", "on the last of {calls} calls")],
            "zh": [("inplace/speed.md", "在 {calls} 次调用的最后一次")],
        },
    ),
    (
        # the page-fault claims count "pages per result" in pages of this size: the page says
        # a fault per page of the same size (the worker turns huge pages off; worker.py)
        "inplace/page_faults",
        r"element_size\(\) // (.+?),",
        lambda n: {"page": kib_of_bytes(n)},
        {
            "en": [
                ("inplace/speed.md", "every new {page} page cost a page fault in these runs"),
                (
                    "inplace/speed.md",
                    "each {page} page costs a page fault when it is first written",
                ),
            ],
            "zh": [
                ("inplace/speed.md", "每个新的 {page} 内存页都触发了一次缺页"),
                ("inplace/speed.md", "每个 {page} 的页在第一次写入时都会触发一次缺页"),
            ],
        },
    ),
    (
        "inplace/relu_layer",
        r"batch = \w+\.rand\(\[?(\d+, \d+)\]?\)",
        lambda shape: {"shape": f"{shape[0]} × {shape[1]}", "size": mib(shape[0] * shape[1])},
        {
            "en": [
                ("inplace/memory.md", "activation below is a {shape} `float32` tensor ({size})")
            ],
            "zh": [("inplace/memory.md", "下面每个激活值都是 {shape} 的 `float32` 张量（{size}）")],
        },
    ),
]


def page_text(lang: str, page: str) -> str:
    path = DOCS / lang / page
    assert path.is_file(), f"{path} is missing"
    return re.sub(r"\s*\n\s*", " ", path.read_text("utf-8"))  # a phrase may wrap a line


@pytest.mark.parametrize(
    ("stem", "pattern", "words", "pages"), INPUTS, ids=[f"{r[0]}:{r[1]}" for r in INPUTS]
)
def test_pages_name_the_inputs_the_snippets_run(stem, pattern, words, pages):
    shown = set()
    for fw in FRAMEWORKS:
        path = SNIPPETS / f"{stem}_{fw}.py"
        source = path.read_text("utf-8")
        try:
            shown.add(tuple(words(constant(source, pattern)).items()))
        except AssertionError as error:
            raise AssertionError(f"{path.relative_to(ROOT)}: {error}") from None
    assert len(shown) == 1, f"{stem}_*.py: the frameworks run different inputs: {shown}"
    fields = dict(shown.pop())
    value = ", ".join(fields.values())
    missing = [
        f"docs/{lang}/{page}: {phrase.format(**fields)!r}"
        for lang, phrases in pages.items()
        for page, phrase in phrases
        if phrase.format(**fields) not in page_text(lang, page)
    ]
    assert not missing, f"{stem}_*.py runs {value}; the pages do not say so:\n" + "\n".join(missing)


def test_a_changed_input_fails(tmp_path, monkeypatch):
    """The check reads the snippet: a size that differs from the page's fails it."""
    stem, pattern, words, pages = INPUTS[0]
    for fw in FRAMEWORKS:
        source = (SNIPPETS / f"{stem}_{fw}.py").read_text("utf-8")
        target = tmp_path / f"{stem}_{fw}.py"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(source.replace("N = 1 << 20", "N = 1 << 21"), "utf-8")
    monkeypatch.setattr(sys.modules[__name__], "SNIPPETS", tmp_path)
    with pytest.raises(AssertionError, match="runs 8 MiB"):
        test_pages_name_the_inputs_the_snippets_run(stem, pattern, words, pages)
