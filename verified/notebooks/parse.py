"""Stage 1, the page: split an article's Markdown into prose and snippet segments.

Prose outside the ``=== "PaddlePaddle"`` / ``=== "PyTorch"`` tabs belongs to both notebooks,
prose and ``--8<--`` includes inside a tab to that framework's notebook. Admonitions become
quoted prose; a fence that holds only includes becomes code segments.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from verified.notebooks.base import TABS
from verified.notebooks.text import TEXT

TAB_RE = re.compile(r'^===[!+]?\s+"(?P<name>[^"]*)"\s*$')
ADMONITION_RE = re.compile(
    r'^(?:!!!|\?\?\?\+?)\s+(?P<type>[\w-]+)(?:\s+[\w-]+)*(?:\s+"(?P<title>[^"]*)")?\s*$'
)
FENCE_RE = re.compile(r"^(?P<fence>`{3,}|~{3,})")
INCLUDE_RE = re.compile(r'^--8<--\s+"(?P<path>[^"]+)"\s*$')


@dataclass
class Segment:
    kind: str  # "md" or "code"
    text: str  # Markdown, or the snippet path relative to snippets/
    framework: str | None  # None: both notebooks
    page: str = ""  # the page it comes from, relative to docs/<lang>/ (sections have several)


HEADING_LINE_RE = re.compile(r"^(#{1,5})(\s)")
FENCE_LINE_RE = re.compile(r"^\s*(`{3,}|~{3,})")


def demote_headings(markdown: str) -> str:
    """Every heading one level down (outside code fences): a sub-page's title becomes a
    heading under the title of its section's notebook."""
    out, fence = [], None
    for line in markdown.split("\n"):
        opening = FENCE_LINE_RE.match(line)
        if fence is None and opening:
            fence = opening[1]
        elif fence is not None and line.strip().startswith(fence):
            fence = None
        elif fence is None:
            line = HEADING_LINE_RE.sub(r"#\1\2", line)
        out.append(line)
    return "\n".join(out)


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
