"""Downloadable notebooks: one per article × language × framework, generated and executed.

``python -m verified.notebooks build`` turns each article (``docs/en/<article>.md`` with a
``snippets/<article>/`` folder) into ``docs/<lang>/notebooks/<article>-<framework>.ipynb``
for both languages and both frameworks, and executes each one with nbclient:

- prose outside tabs goes to both frameworks' notebooks; prose and snippet includes inside a
  ``=== "PaddlePaddle"`` / ``=== "PyTorch"`` tab go to that framework's notebook;
- a ``--8<-- "<article>/<name>_<fw>.py"`` include becomes a code cell holding the snippet
  file's text, so the notebook cannot drift from the snippet (``check`` and the tests compare
  them);
- claim placeholders in prose are rendered from ``build/claims.json`` by the very function the
  site uses (:func:`verified.mkdocs_hooks.render`); ``{{ … | output }}`` placeholders are
  dropped (the executed cell shows its own output); admonitions become quotes, figures are
  embedded as attachments, relative links point to the site;
- the first code cell picks the device (GPU when available, else CPU; ``AUTOGRAD_DEVICE``
  overrides), sets it as the default device and fixes the seed;
- cells of ``error`` claims carry the ``raises-exception`` tag; cells of GPU-only claims start
  with ``%%gpu_only`` (skipped with a message on CPU); a snippet that another snippet runs as a
  script (the DDP workers) is written to disk with ``%%writefile`` instead of executed;
- execution is cached under ``build/notebooks/cache`` by a hash of the code cells, the
  framework versions and the device, so a warm build copies outputs instead of executing;
  prose-only edits never re-execute. Times go to ``build/notebooks.json``.

``python -m verified.notebooks check`` only verifies that the notebooks on disk match what the
current pages and snippets generate (no execution).
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import copy
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from verified.claims import FRAMEWORKS, LANGS, ROOT, SNIPPETS, all_cases

DOCS = ROOT / "docs"
BUILD = ROOT / "build"
CACHE = BUILD / "notebooks" / "cache"
RECORD = BUILD / "notebooks.json"
FORMAT = "1"  # bump when the generated cells change shape, to invalidate the cache
DEFAULT_CELL_TIMEOUT = 120
SIGNATURE = "autograd_verified"  # notebook and cell metadata key

TABS = {"PaddlePaddle": "paddle", "PyTorch": "torch"}
FW_NAMES = {"paddle": "PaddlePaddle", "torch": "PyTorch"}
DISTRIBUTIONS = {"paddle": "paddlepaddle", "torch": "torch"}

TAB_RE = re.compile(r'^===[!+]?\s+"(?P<name>[^"]*)"\s*$')
ADMONITION_RE = re.compile(
    r'^(?:!!!|\?\?\?\+?)\s+(?P<type>[\w-]+)(?:\s+[\w-]+)*(?:\s+"(?P<title>[^"]*)")?\s*$'
)
FENCE_RE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
INCLUDE_RE = re.compile(r'^--8<--\s+"(?P<path>[^"]+)"\s*$')
SECTION_MARK_RE = re.compile(r"^\s*#\s*-{1,2}8<-{1,2}\s*\[(?:start|end):[\w-]+\]\s*$")
HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*$")
ATTR_LIST_RE = re.compile(r"\s*\{:?\s*[#.][^}]*\}\s*$")
LINK_RE = re.compile(
    r'(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+"[^"]*")?\)'
)
FIGURE_RE = re.compile(r"<figure\b[^>]*>(?P<body>.*?)</figure>", re.DOTALL)
CAPTION_RE = re.compile(r"<figcaption>(?P<text>.*?)</figcaption>", re.DOTALL)
SIBLING_RE = re.compile(r"""["'](?P<name>\w+_(?:paddle|torch)\.py)["']""")

TEXT = {
    "en": {
        "intro": (
            "> This notebook is the {fw} version of the page [{title}]({url}), generated from "
            "the same text and code snippets and executed as it stands. Run the cells from top "
            "to bottom. The first code cell chooses the device: the GPU when one is available, "
            "otherwise the CPU; set the environment variable `AUTOGRAD_DEVICE=cpu` or "
            "`AUTOGRAD_DEVICE=gpu` before starting Jupyter to choose yourself. Values quoted in "
            "the text come from the verified run of the page."
        ),
        "machine": (
            "*The output of the next cell depends on the machine (allocator, processor, load): "
            "your figures may differ from the ones quoted in the text.*"
        ),
        "admonition": {
            "note": "Note",
            "abstract": "Abstract",
            "info": "Info",
            "tip": "Tip",
            "success": "Success",
            "question": "Question",
            "warning": "Warning",
            "failure": "Failure",
            "danger": "Danger",
            "bug": "Bug",
            "example": "Example",
            "quote": "Quote",
        },
    },
    "zh": {
        "intro": (
            "> 本 Notebook 是页面[{title}]({url})的 {fw} 版本，由同一份正文和代码片段生成，并按原样执行。"
            "请从上到下依次运行。第一个代码单元格负责选择设备：有 GPU 时使用 GPU，否则使用 CPU；"
            "也可以在启动 Jupyter 之前设置环境变量 `AUTOGRAD_DEVICE=cpu` 或 `AUTOGRAD_DEVICE=gpu` "
            "自行指定。正文中引用的数值来自本页的验证运行。"
        ),
        "machine": "*下一个单元格的输出取决于运行它的机器（内存分配器、处理器、负载），可能与正文引用的数值不同。*",
        "admonition": {
            "note": "注意",
            "abstract": "摘要",
            "info": "说明",
            "tip": "提示",
            "success": "成功",
            "question": "问题",
            "warning": "警告",
            "failure": "失败",
            "danger": "危险",
            "bug": "缺陷",
            "example": "示例",
            "quote": "引用",
        },
    },
}


# -- the setup cell ---------------------------------------------------------------------------

SETUP = {
    "torch": """\
# Run this cell first. It chooses the device for every cell below (the code cells never do):
# the GPU when one is available, otherwise the CPU; AUTOGRAD_DEVICE=cpu|gpu overrides.
import os

import torch

gpu_available = torch.cuda.is_available()
device = os.environ.get("AUTOGRAD_DEVICE", "gpu" if gpu_available else "cpu").lower()
if device not in ("cpu", "gpu"):
    raise ValueError(f"AUTOGRAD_DEVICE must be 'cpu' or 'gpu', not {device!r}")
if device == "gpu" and not gpu_available:
    raise RuntimeError("AUTOGRAD_DEVICE=gpu, but torch.cuda.is_available() is False")
torch.set_default_device("cuda" if device == "gpu" else "cpu")
torch.manual_seed(0)  # fixed seed: the same numbers on every run
print(f"torch {torch.__version__}, default device: {device}")""",
    "paddle": """\
# Run this cell first. It chooses the device for every cell below (the code cells never do):
# the GPU when one is available, otherwise the CPU; AUTOGRAD_DEVICE=cpu|gpu overrides.
import os
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore")  # Paddle warns about a missing ccache on import
    import paddle

gpu_available = paddle.device.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
device = os.environ.get("AUTOGRAD_DEVICE", "gpu" if gpu_available else "cpu").lower()
if device not in ("cpu", "gpu"):
    raise ValueError(f"AUTOGRAD_DEVICE must be 'cpu' or 'gpu', not {device!r}")
if device == "gpu" and not gpu_available:
    raise RuntimeError("AUTOGRAD_DEVICE=gpu, but Paddle sees no CUDA device")
paddle.set_device(device)
paddle.seed(0)  # fixed seed: the same numbers on every run
print(f"paddle {paddle.__version__}, default device: {device}")""",
}

GPU_ONLY_MAGIC = '''

from IPython.core.magic import register_cell_magic


@register_cell_magic
def gpu_only(line, cell):
    """Cells marked %%gpu_only need a GPU: on the CPU they are skipped with a message."""
    if device != "gpu":
        print("Skipped: this cell needs a GPU, and this notebook runs on the CPU.")
        return
    exec(compile(cell, "<gpu_only cell>", "exec"), get_ipython().user_ns)'''

FILE_SHIM = '''

# Some snippets start other scripts found next to themselves (Path(__file__).with_name(...));
# in a notebook those scripts are written to the working directory by %%writefile cells.
__file__ = "{name}.ipynb"'''


# -- parsing a page ---------------------------------------------------------------------------


@dataclass
class Segment:
    kind: str  # "md" or "code"
    text: str  # Markdown, or the snippet path relative to snippets/
    framework: str | None  # None: both notebooks


def _indented_block(lines: list[str], start: int) -> tuple[list[str], int]:
    """Lines indented by 4 spaces (or blank) from ``start``, dedented; and the next index."""
    body: list[str] = []
    i = start
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith("    ")):
        body.append(lines[i][4:])
        i += 1
    while body and not body[-1].strip():
        body.pop()
        i -= 1
    return body, i


def parse(markdown: str, lang: str = "en") -> list[Segment]:
    """Split a page into Markdown and snippet segments, each tagged with its framework."""
    return _parse(markdown.split("\n"), None, lang)


def _parse(lines: list[str], framework: str | None, lang: str) -> list[Segment]:
    out: list[Segment] = []
    prose: list[str] = []

    def flush() -> None:
        if prose:
            out.append(Segment("md", "\n".join(prose), framework))
            prose.clear()

    i = 0
    while i < len(lines):
        line = lines[i]
        tab = TAB_RE.match(line)
        admonition = ADMONITION_RE.match(line)
        fence = FENCE_RE.match(line)
        if tab:
            flush()
            body, i = _indented_block(lines, i + 1)
            name = tab["name"]
            if name in TABS:
                if framework in (None, TABS[name]):
                    out.extend(_parse(body, TABS[name], lang))
            else:  # a tab that is not about a framework: keep it, titled
                out.append(Segment("md", f"**{name}**", framework))
                out.extend(_parse(body, framework, lang))
            continue
        if admonition:
            flush()
            body, i = _indented_block(lines, i + 1)
            kind = admonition["type"]
            title = admonition["title"]
            if title is None:
                title = TEXT[lang]["admonition"].get(kind, kind.title())
            inner = _parse(body, framework, lang)
            quoted = [Segment("md", f"> **{title}**" if title else ">", framework)]
            for seg in inner:
                if seg.kind == "md":
                    text = "\n".join(
                        "> " + ln if ln.strip() else ">" for ln in seg.text.split("\n")
                    )
                    quoted.append(Segment("md", text, seg.framework))
                else:
                    quoted.append(seg)
            out.extend(quoted)
            continue
        if fence:
            close = fence["fence"]
            end = i + 1
            while end < len(lines) and lines[end].strip() != close:
                end += 1
            content = [ln for ln in lines[i + 1 : end] if ln.strip()]
            includes = [INCLUDE_RE.match(ln.strip()) for ln in content]
            if content and all(includes):
                flush()
                out.extend(Segment("code", m["path"], framework) for m in includes)
            else:
                prose.extend(lines[i : end + 1])
            i = end + 1
            continue
        prose.append(line)
        i += 1
    flush()
    return out


# -- snippets and claims ----------------------------------------------------------------------


def snippet_text(path: str, snippets: Path = SNIPPETS) -> str:
    """What pymdownx.snippets includes for ``path`` (``file`` or ``file:section``)."""
    name, _, section = path.partition(":")
    lines = (snippets / name).read_text(encoding="utf-8").split("\n")
    if section and not section.replace(":", "").isdigit():
        start = re.compile(rf"^\s*#\s*-{{1,2}}8<-{{1,2}}\s*\[start:{re.escape(section)}\]\s*$")
        end = re.compile(rf"^\s*#\s*-{{1,2}}8<-{{1,2}}\s*\[end:{re.escape(section)}\]\s*$")
        first = next(i for i, ln in enumerate(lines) if start.match(ln)) + 1
        last = next(i for i, ln in enumerate(lines) if i >= first and end.match(ln))
        lines = lines[first:last]
    elif section:
        bounds = [int(b) for b in section.split(":") if b]
        lines = lines[bounds[0] - 1 : bounds[1] if len(bounds) > 1 else None]
    lines = [ln for ln in lines if not SECTION_MARK_RE.match(ln)]
    return "\n".join(lines).strip("\n")


@dataclass
class SnippetInfo:
    """What the claims say about one snippet file."""

    error_type: str | None = None  # expected exception class (cpu) for error claims
    gpu_only: bool = False
    machine_dependent: bool = False
    timeout: float = DEFAULT_CELL_TIMEOUT
    claims: list[str] = field(default_factory=list)


def snippet_infos(snippets: Path = SNIPPETS) -> dict[str, SnippetInfo]:
    """Snippet path (relative to snippets/) -> what its claims say about running it."""
    infos: dict[str, SnippetInfo] = {}
    for (cid, _fw, device), case in all_cases(snippets).items():
        rel = case.snippet_path.relative_to(snippets).as_posix()
        info = infos.setdefault(rel, SnippetInfo())
        if cid not in info.claims:
            info.claims.append(cid)
        claim = case.claim
        info.timeout = max(info.timeout, case.timeout)
        if claim.kind in ("memory", "timing"):
            info.machine_dependent = True
        if claim.kind == "error" and (device == "cpu" or info.error_type is None):
            info.error_type = case.spec["type"]
        if tuple(claim.devices) == ("gpu",):
            info.gpu_only = True
    return infos


# -- Markdown for notebooks -------------------------------------------------------------------


def site_url() -> str:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    match = re.search(r"^site_url:\s*['\"]?([^'\"\s]+)", text, re.MULTILINE)
    url = match[1] if match else "/"
    return url if url.endswith("/") else url + "/"


def page_url(lang: str, page: str = "") -> str:
    """The site URL of ``page`` (a docs-relative .md path) in ``lang``."""
    base = site_url() + ("" if lang == LANGS[0] else f"{lang}/")
    if not page:
        return base
    stem = page[:-3] if page.endswith(".md") else page
    if stem == "index":
        return base
    if stem.endswith("/index"):
        stem = stem[: -len("index")]
    return base + stem.rstrip("/") + "/"


@dataclass
class Converter:
    lang: str
    article: str
    docs: Path
    attachments: dict = field(default_factory=dict)  # filled per cell

    def figure(self, match: re.Match) -> str:
        body = match["body"]
        images = LINK_RE.findall(body)
        caption = CAPTION_RE.search(body)
        out = []
        for bang, alt, target, _title in images:
            if bang:
                out.append(f"![{alt}]({target})")
        if caption:
            out.append("")
            out.append(f"*{caption['text'].strip()}*")
        return "\n".join(out)

    def link(self, match: re.Match) -> str:
        bang, text, target = match["bang"], match["text"], match["target"]
        title = match["title"] or ""
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            return match[0]  # absolute URL, mailto:, attachment:
        path, _, anchor = target.partition("#")
        anchor = f"#{anchor}" if anchor else ""
        if bang and path:
            local = self.docs / self.lang / path
            if local.suffix == ".svg" and local.is_file():
                name = local.name
                data = base64.b64encode(local.read_bytes()).decode("ascii")
                self.attachments[name] = {"image/svg+xml": data}
                return f"![{text}](attachment:{name}{title})"
            return f"![{text}]({page_url(self.lang)}{path}{title})"
        if not path:
            url = page_url(self.lang, f"{self.article}.md") + anchor
        elif path.endswith(".md"):
            url = page_url(self.lang, path) + anchor
        else:
            url = page_url(self.lang) + path + anchor
        return f"[{text}]({url}{title})"

    def convert(self, text: str) -> str:
        text = FIGURE_RE.sub(self.figure, text)
        lines = []
        for line in text.split("\n"):
            if line.startswith("*[") and "]:" in line:  # abbreviation definitions
                continue
            if re.fullmatch(r"\s*\{:?\s*[#.][^}]*\}\s*", line):  # stand-alone attribute list
                continue
            if HEADING_RE.match(line):
                line = ATTR_LIST_RE.sub("", line)
            lines.append(line)
        return LINK_RE.sub(self.link, "\n".join(lines))


def drop_output_placeholders(markdown: str) -> str:
    from verified.render import PLACEHOLDER

    kept = []
    for line in markdown.split("\n"):
        whole = PLACEHOLDER.fullmatch(line.strip())
        if whole and whole["field"] == "output":
            continue
        kept.append(line)
    return "\n".join(kept)


def split_cells(markdown: str) -> list[str]:
    """One Markdown cell per heading (outside fences); blank-only cells dropped."""
    cells: list[list[str]] = [[]]
    fence = None
    for line in markdown.split("\n"):
        match = FENCE_RE.match(line.strip())
        if fence is None and match:
            fence = match["fence"]
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None and HEADING_RE.match(line) and any(ln.strip() for ln in cells[-1]):
            cells.append([])
        cells[-1].append(line)
    texts = []
    for cell in cells:
        text = "\n".join(cell).strip("\n")
        text = re.sub(r"\n{3,}", "\n\n", text)
        if text.strip():
            texts.append(text)
    return texts


# -- generating -------------------------------------------------------------------------------


def articles(docs: Path = DOCS, snippets: Path = SNIPPETS) -> list[str]:
    """Articles that get notebooks: pages of the first language with a snippets/ folder."""
    return sorted(p.stem for p in (docs / LANGS[0]).glob("*.md") if (snippets / p.stem).is_dir())


def notebook_path(lang: str, article: str, framework: str, docs: Path = DOCS) -> Path:
    return docs / lang / "notebooks" / f"{article}-{framework}.ipynb"


def _renderer(markdown: str, lang: str, where: str) -> str:
    from verified.mkdocs_hooks import render

    return render(markdown, lang, where, provenance=False)


def generate(
    article: str,
    lang: str,
    framework: str,
    *,
    docs: Path = DOCS,
    snippets: Path = SNIPPETS,
    render=_renderer,
    infos: dict[str, SnippetInfo] | None = None,
):
    """The unexecuted notebook for one article, language and framework."""
    import nbformat

    page = docs / lang / f"{article}.md"
    where = f"{lang}/{article}.md"
    markdown = drop_output_placeholders(page.read_text(encoding="utf-8"))
    segments = [s for s in parse(markdown, lang) if s.framework in (None, framework)]
    if infos is None:
        infos = snippet_infos(snippets)
    converter = Converter(lang, article, docs)
    text = TEXT[lang]

    included = [s.text for s in segments if s.kind == "code"]
    sources = {path: snippet_text(path, snippets) for path in included}
    # snippets that another included snippet starts as a script: written, not executed
    scripts: dict[str, str] = {}  # script path -> path of the first snippet that needs it
    for path in included:
        folder = path.partition(":")[0].rsplit("/", 1)[0]
        for match in SIBLING_RE.finditer(sources[path]):
            target = f"{folder}/{match['name']}"
            if (snippets / target).is_file() and target != path:
                scripts.setdefault(target, path)
    uses_file = any("__file__" in src for src in sources.values())
    gpu_only = any(infos.get(p.partition(":")[0], SnippetInfo()).gpu_only for p in included)

    cells = []
    title = article
    # merge consecutive prose, render placeholders, convert to notebook Markdown
    merged: list[Segment] = []
    for seg in segments:
        if seg.kind == "md" and merged and merged[-1].kind == "md":
            merged[-1] = Segment("md", merged[-1].text + "\n\n" + seg.text, None)
        else:
            merged.append(Segment(seg.kind, seg.text, None))

    def md_cells(prose: str) -> None:
        rendered = render(prose, lang, where)
        for chunk in split_cells(rendered):
            converter.attachments = {}
            converted = converter.convert(chunk)
            cell = nbformat.v4.new_markdown_cell(converted)
            if converter.attachments:
                cell.attachments = converter.attachments
            cells.append(cell)

    def code_cell(path: str, source: str, *, magic: str = "") -> None:
        info = infos.get(path.partition(":")[0], SnippetInfo())
        tags = []
        if info.error_type and not magic.startswith("%%writefile"):
            tags.append("raises-exception")
        if info.machine_dependent:
            cells.append(nbformat.v4.new_markdown_cell(text["machine"]))
        if info.gpu_only and not magic:
            magic = "%%gpu_only"
        meta = {"snippet": path}
        if info.claims:
            meta["claims"] = info.claims
        if info.error_type and "raises-exception" in tags:
            meta["expected_exception"] = info.error_type
        if info.timeout != DEFAULT_CELL_TIMEOUT:
            meta["timeout"] = info.timeout
        cell = nbformat.v4.new_code_cell((magic + "\n" if magic else "") + source)
        if tags:
            cell.metadata["tags"] = tags
        cell.metadata[SIGNATURE] = meta
        cells.append(cell)

    written: set[str] = set()
    setup_done = False
    for seg in merged:
        if seg.kind == "md":
            if not setup_done:
                # the title cell first, then the intro and the setup cell
                lines = seg.text.split("\n")
                h1 = next((i for i, ln in enumerate(lines) if ln.startswith("# ")), None)
                head, rest = (lines[: h1 + 1], lines[h1 + 1 :]) if h1 is not None else ([], lines)
                if h1 is not None:
                    title = ATTR_LIST_RE.sub("", lines[h1][2:]).strip()
                    head[-1] = f"# {title} · {FW_NAMES[framework]}"  # two notebooks, two titles
                intro = text["intro"].format(
                    fw=FW_NAMES[framework], title=title, url=page_url(lang, f"{article}.md")
                )
                cells.append(nbformat.v4.new_markdown_cell("\n".join(head + ["", intro]).strip()))
                setup = SETUP[framework]
                if gpu_only:
                    setup += GPU_ONLY_MAGIC
                if uses_file:
                    setup += FILE_SHIM.format(name=f"{article}-{framework}")
                cell = nbformat.v4.new_code_cell(setup)
                cell.metadata[SIGNATURE] = {"setup": True}
                cells.append(cell)
                setup_done = True
                if "\n".join(rest).strip():
                    md_cells("\n".join(rest))
            else:
                md_cells(seg.text)
            continue
        path = seg.text
        if path in scripts:
            if path not in written:
                name = path.partition(":")[0].rsplit("/", 1)[-1]
                code_cell(path, sources[path], magic=f"%%writefile {name}")
                written.add(path)
            continue
        for script, needed_by in scripts.items():
            if needed_by == path and script not in written:
                name = script.rsplit("/", 1)[-1]
                code_cell(script, snippet_text(script, snippets), magic=f"%%writefile {name}")
                written.add(script)
        code_cell(path, sources[path])

    nb = nbformat.v4.new_notebook()
    nb.cells = cells
    for i, cell in enumerate(nb.cells):
        cell.id = f"c{i:03d}"  # stable ids: an unchanged notebook is byte-identical
    nb.metadata = {
        "kernelspec": {
            "name": "python3",
            "display_name": "Python 3 (ipykernel)",
            "language": "python",
        },
        "language_info": {"name": "python"},
        SIGNATURE: {
            "article": article,
            "lang": lang,
            "framework": framework,
            "title": title,
            "page": page_url(lang, f"{article}.md"),
        },
    }
    return nb


# -- staleness --------------------------------------------------------------------------------


def code_signature(nb) -> list[tuple[str, list[str]]]:
    """What decides the outputs: the code cells' sources and tags, in order."""
    return [
        (cell.source, list(cell.metadata.get("tags", [])))
        for cell in nb.cells
        if cell.cell_type == "code"
    ]


def snippet_problems(nb, snippets: Path = SNIPPETS, where: str = "") -> list[str]:
    """Code cells that do not hold their snippet file's current text."""
    problems = []
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get(SIGNATURE, {})
        path = meta.get("snippet")
        if cell.cell_type != "code" or not path:
            continue
        source = cell.source
        if source.startswith("%%"):
            source = source.split("\n", 1)[1] if "\n" in source else ""
        try:
            current = snippet_text(path, snippets)
        except (OSError, StopIteration):
            problems.append(f"{where}cell {index}: snippet {path} no longer exists")
            continue
        if source != current:
            problems.append(f"{where}cell {index}: differs from snippets/{path} (stale notebook)")
    return problems


def stale(nb, fresh) -> list[str]:
    """Differences between a notebook on disk and the freshly generated one."""
    problems = []
    old, new = code_signature(nb), code_signature(fresh)
    if len(old) != len(new):
        problems.append(f"{len(old)} code cells on disk, {len(new)} generated")
    for i, (a, b) in enumerate(zip(old, new, strict=False)):
        if a != b:
            problems.append(f"code cell {i} differs from the generated one")
            break
    md_old = [c.source for c in nb.cells if c.cell_type == "markdown"]
    md_new = [c.source for c in fresh.cells if c.cell_type == "markdown"]
    if md_old != md_new:
        problems.append("Markdown cells differ from the page")
    return problems


# -- executing --------------------------------------------------------------------------------


def versions() -> dict[str, str]:
    found = {"python": ".".join(map(str, sys.version_info[:3]))}
    for fw, dist in DISTRIBUTIONS.items():
        try:
            found[fw] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[fw] = "missing"
    return found


def cache_key(nb, framework: str, device: str) -> str:
    digest = hashlib.sha256()
    payload = {
        "format": FORMAT,
        "framework": framework,
        "version": versions()[framework],
        "python": versions()["python"],
        "device": device,
        "cells": code_signature(nb),
        "timeouts": [c.metadata.get(SIGNATURE, {}).get("timeout") for c in nb.cells],
    }
    digest.update(json.dumps(payload, sort_keys=True).encode())
    return digest.hexdigest()[:20]


class NotebookFailed(RuntimeError):
    pass


def _sanitize(text: str, run_dir: Path) -> str:
    """Outputs must not carry the build machine's paths."""
    for path, label in (
        (str(run_dir), "."),
        (str(Path(sys.prefix)), "<python>"),
        (str(Path(sys.base_prefix)), "<python>"),
        (str(ROOT), "."),
        (str(Path.home()), "~"),
    ):
        if path and path not in ("/", "."):
            text = text.replace(path, label)
    return text


def _sanitize_outputs(nb, run_dir: Path) -> None:
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _sanitize(output["text"], run_dir)
            if "traceback" in output:
                output["traceback"] = [_sanitize(t, run_dir) for t in output["traceback"]]
            if "evalue" in output:
                output["evalue"] = _sanitize(output["evalue"], run_dir)
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/") and isinstance(value, str):
                    output["data"][mime] = _sanitize(value, run_dir)


def execution_problems(nb, name: str) -> list[str]:
    """Exactly the tagged cells raised, each with its claim's exception type."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        meta = cell.metadata.get(SIGNATURE, {})
        label = f"{name}: cell {index}" + (f" ({meta['snippet']})" if meta.get("snippet") else "")
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        if errors and not tagged:
            err = errors[0]
            problems.append(f"{label} raised {err['ename']}: {err['evalue'][:300]}")
        elif tagged and not errors:
            if cell.get("execution_count") is None:
                problems.append(f"{label} was not executed")
            elif "Skipped: this cell needs a GPU" not in _stream_text(cell):
                problems.append(
                    f"{label} should raise {meta.get('expected_exception')} but did not"
                )
        elif tagged and errors:
            want = meta.get("expected_exception")
            if want and errors[0]["ename"] != want:
                problems.append(
                    f"{label} raised {errors[0]['ename']} ({errors[0]['evalue'][:200]}), "
                    f"expected {want}"
                )
    return problems


def _stream_text(cell) -> str:
    return "".join(
        o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"
    )


def execute(nb, name: str, device: str, *, timeout: float | None = None) -> float:
    """Execute ``nb`` in place in a fresh kernel on ``device``; return the seconds it took."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    run_root = BUILD / "notebooks" / "run"
    run_root.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=name.replace("/", "-") + "-", dir=run_root))

    def cell_timeout(cell) -> int:
        value = cell.metadata.get(SIGNATURE, {}).get("timeout", DEFAULT_CELL_TIMEOUT)
        return int(timeout or value)

    saved = os.environ.get("AUTOGRAD_DEVICE")
    os.environ["AUTOGRAD_DEVICE"] = device
    started = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout_func=cell_timeout,
        kernel_name="python3",
        allow_errors=False,  # only cells tagged raises-exception may raise
        record_timing=False,  # keeps the notebook free of timestamps
        resources={"metadata": {"path": str(run_dir)}},
    )
    logs = BUILD / "notebooks" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = open(logs / f"{name.replace('/', '-')}.log", "w", encoding="utf-8")  # noqa: SIM115
    try:  # the kernel's own stdout/stderr (C++ logging, warnings) go to the log, not the console
        client.execute(stdout=log, stderr=log)
    except CellTimeoutError as exc:
        raise NotebookFailed(f"{name}: a cell timed out: {str(exc)[:300]}") from None
    except CellExecutionError:
        problems = execution_problems(nb, name)
        raise NotebookFailed("; ".join(problems) or f"{name}: a cell failed") from None
    finally:
        if saved is None:
            os.environ.pop("AUTOGRAD_DEVICE", None)
        else:
            os.environ["AUTOGRAD_DEVICE"] = saved
        seconds = time.perf_counter() - started
        log.close()
        _sanitize_outputs(nb, run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)
    problems = execution_problems(nb, name)
    if problems:
        raise NotebookFailed("; ".join(problems))
    nb.metadata["language_info"] = {
        k: v for k, v in nb.metadata.get("language_info", {}).items() if k != "version"
    } | {"name": "python"}
    return seconds


def merge_outputs(fresh, executed) -> None:
    """Copy outputs of ``executed`` code cells onto ``fresh`` (same code cells)."""
    done = [c for c in executed.cells if c.cell_type == "code"]
    todo = [c for c in fresh.cells if c.cell_type == "code"]
    for target, source in zip(todo, done, strict=True):
        target.outputs = copy.deepcopy(source.outputs)
        target.execution_count = source.execution_count
    if "language_info" in executed.metadata:
        fresh.metadata["language_info"] = executed.metadata["language_info"]


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # a concurrent build never reads half a file


def store(executed, key: str, seconds: float, device: str) -> None:
    """Put an execution in the cache (the notebook first: an entry is complete once its .json
    exists)."""
    import nbformat

    _write_atomic(CACHE / f"{key}.ipynb", nbformat.writes(executed) + "\n")
    meta = {"seconds": round(seconds, 2), "device": device}
    _write_atomic(CACHE / f"{key}.json", json.dumps(meta) + "\n")


@dataclass
class Built:
    name: str  # "<lang>/<article>-<framework>"
    path: Path
    key: str
    seconds: float  # execution time (of the run the outputs come from)
    cached: bool
    device: str
    build_s: float = 0.0  # wall time of this build for this notebook


def build_one(
    article: str, lang: str, framework: str, device: str, *, force: bool = False, infos=None
) -> Built:
    import nbformat

    name = f"{lang}/{article}-{framework}"
    nb = generate(article, lang, framework, infos=infos)
    key = cache_key(nb, framework, device)
    cached_nb = CACHE / f"{key}.ipynb"
    cached_meta = CACHE / f"{key}.json"
    cached = cached_nb.is_file() and cached_meta.is_file() and not force
    if cached:
        executed = nbformat.read(cached_nb, as_version=4)
        seconds = json.loads(cached_meta.read_text(encoding="utf-8"))["seconds"]
    else:
        executed = copy.deepcopy(nb)
        seconds = execute(executed, name, device)
        store(executed, key, seconds, device)
    merge_outputs(nb, executed)
    nb.metadata[SIGNATURE]["executed_on"] = device
    target = notebook_path(lang, article, framework)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(nb) + "\n"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        _write_atomic(target, text)  # unchanged files keep their mtime
    return Built(name, target, key, seconds, cached, device)


def build(
    device: str = "cpu",
    *,
    force: bool = False,
    only: list[str] | None = None,
    log=print,
) -> list[Built]:
    """Generate and execute every notebook; returns what was built. Raises NotebookFailed."""
    if device == "auto":
        device = "gpu" if _gpu_available() else "cpu"
    started = time.perf_counter()
    _draw_figures()
    infos = snippet_infos()
    built: list[Built] = []
    failures: list[str] = []
    expected: set[Path] = set()
    for article in articles():
        for lang in LANGS:
            for framework in FRAMEWORKS:
                expected.add(notebook_path(lang, article, framework))
                name = f"{lang}/{article}-{framework}"
                if only and not any(o in name for o in only):
                    continue
                one_started = time.perf_counter()
                try:
                    result = build_one(article, lang, framework, device, force=force, infos=infos)
                except NotebookFailed as exc:
                    failures.append(str(exc))
                    log(f"FAILED {name}: {exc}")
                    continue
                result.build_s = time.perf_counter() - one_started
                built.append(result)
                how = "from the cache" if result.cached else "executed now"
                log(
                    f"{name:<28} execution {result.seconds:6.2f} s on {device} ({how}); "
                    f"this build {result.build_s:5.2f} s"
                )
    for lang in LANGS:  # notebooks of pages that no longer exist
        for stray in (DOCS / lang / "notebooks").glob("*.ipynb"):
            if stray not in expected:
                stray.unlink()
    if not only and not failures:
        used = {b.key for b in built}
        for entry in [*CACHE.glob("*.ipynb"), *CACHE.glob("*.json")]:
            if entry.stem not in used:
                entry.unlink()
    total = time.perf_counter() - started
    _write_record(built, total)
    log(f"{len(built)} notebooks built in {total:.2f} s (wall time, figures included)")
    if failures:
        raise NotebookFailed("\n".join(failures))
    return built


def _write_record(built: list[Built], total: float) -> None:
    record = {"notebooks": {}, "build_s": round(total, 2)}
    if RECORD.exists():
        with contextlib.suppress(json.JSONDecodeError, KeyError):
            record["notebooks"] = json.loads(RECORD.read_text(encoding="utf-8"))["notebooks"]
    for b in built:
        record["notebooks"][b.name] = {
            "path": b.path.relative_to(ROOT).as_posix(),
            "execution_s": round(b.seconds, 2),
            "cached": b.cached,
            "build_s": round(b.build_s, 3),
            "device": b.device,
            "key": b.key,
        }
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _draw_figures() -> None:
    """The site's figures, so that notebooks embed the same ones (the build hook draws them
    again before the site build; unchanged figures are not rewritten)."""
    if not any(SNIPPETS.glob("*/figures.py")):
        return
    from verified.mkdocs_hooks import draw_figures

    draw_figures({"docs_dir": str(DOCS)})


def _gpu_available() -> bool:
    import subprocess

    probe = "import torch; print(torch.cuda.is_available())"
    try:
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.stdout.strip() == "True"


def check() -> list[str]:
    """Notebooks on disk that are missing or do not match the current pages and snippets."""
    import nbformat

    problems = []
    infos = snippet_infos()
    for article in articles():
        for lang in LANGS:
            for framework in FRAMEWORKS:
                path = notebook_path(lang, article, framework)
                name = f"{lang}/{article}-{framework}"
                if not path.is_file():
                    problems.append(f"{name}: missing ({path.relative_to(ROOT)})")
                    continue
                nb = nbformat.read(path, as_version=4)
                fresh = generate(article, lang, framework, infos=infos)
                problems += [f"{name}: {p}" for p in stale(nb, fresh)]
                problems += snippet_problems(nb, where=f"{name}: ")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m verified.notebooks", description=__doc__.split("\n")[0]
    )
    sub = parser.add_subparsers(dest="command", required=True)
    b = sub.add_parser("build", help="generate and execute the notebooks (cached)")
    b.add_argument(
        "--device",
        choices=("cpu", "gpu", "auto"),
        default=os.environ.get("AUTOGRAD_DEVICE", "cpu"),
        help="device to execute on (default: $AUTOGRAD_DEVICE or cpu, the device the site's "
        "figures come from)",
    )
    b.add_argument("--force", action="store_true", help="execute even if cached")
    b.add_argument("--only", nargs="*", help="substrings of <lang>/<article>-<framework>")
    sub.add_parser("check", help="fail if a notebook does not match its page and snippets")
    args = parser.parse_args(argv)
    from mkdocs.exceptions import PluginError

    from verified.report import ReportError

    try:
        if args.command == "build":
            build(args.device, force=args.force, only=args.only)
        else:
            problems = check()
            for problem in problems:
                print(problem)
            if problems:
                return 1
            print("notebooks are up to date")
    except (NotebookFailed, ReportError, PluginError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
