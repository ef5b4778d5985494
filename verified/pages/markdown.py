"""Markdown structure read from disk: sections, their anchors, the pages of an article;
and joining Chinese soft line breaks."""

from __future__ import annotations

import re
from pathlib import Path

from verified.pages.fields import PLACEHOLDER
from verified.report import ReportError

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{[^}]*\})?\s*$")
HEADING_ID = re.compile(r"\{[^}]*?#([^\s}]+)[^}]*\}\s*$")  # `## Title { #id }` (attr_list)
FENCE = re.compile(r"^\s*(```|~~~)")


def sections_of(page: Path):
    """(heading, anchor, line) for every line of a page outside code fences; heading and
    anchor are those of the section the line belongs to (its H1 until the first H2: a
    page's opening conclusion belongs to the page's title)."""
    from pymdownx.slugs import slugify

    slug = slugify(case="lower")
    heading, ident, seen_ids, fence = "", "", {}, None
    for line in page.read_text(encoding="utf-8").split("\n"):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening[1]
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        match = HEADING.match(line)
        if match:
            heading = re.sub(r"`([^`]*)`", r"\1", match[2])
            explicit = HEADING_ID.search(line)
            if explicit:  # the id the page gives the heading
                ident = explicit[1]
            else:
                base = slug(heading, "-")
                count = seen_ids.get(base, 0)
                seen_ids[base] = count + 1
                ident = base if count == 0 else f"{base}_{count}"
        yield heading, ident, line


GENERATED = ("notebooks", "figures")  # folders of docs/<lang>/ written by the build


def pages_of(docs: Path, lang: str) -> list[Path]:
    """The Markdown pages of a language, sub-pages of sections included, in path order."""
    root = docs / lang
    return sorted(p for p in root.rglob("*.md") if p.relative_to(root).parts[0] not in GENERATED)


def statement_sections(docs: Path, lang: str) -> dict[str, list[tuple[str, str, str]]]:
    """Claim id -> [(page, heading, anchor)] of every section of a page that uses it; the page
    relative to ``docs/<lang>/`` (``inplace/leaf-tensors.md``)."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for page in pages_of(docs, lang):
        name = page.relative_to(docs / lang).as_posix()
        for heading, ident, line in sections_of(page):
            for m in PLACEHOLDER.finditer(line):
                where = (name, heading, ident)
                if where not in found.setdefault(m["id"], []):
                    found[m["id"]].append(where)
    return found


def anchors_of(page: Path) -> list[str]:
    """The anchors of a page's sections, in order."""
    anchors: list[str] = []
    for _heading, ident, _line in sections_of(page):
        if ident and (not anchors or anchors[-1] != ident):
            anchors.append(ident)
    return anchors


def article_pages(docs: Path, article: str, lang: str = "en") -> list[str]:
    """An article's pages relative to ``docs/<lang>/``: ``<article>.md``, or the pages of the
    section ``<article>/``, its overview ``index.md`` first."""
    if (docs / lang / f"{article}.md").is_file():
        return [f"{article}.md"]
    folder = docs / lang / article
    pages = sorted(p.relative_to(docs / lang).as_posix() for p in folder.glob("*.md"))
    return sorted(pages, key=lambda page: not page.endswith("/index.md"))


def section_in(docs: Path, article: str, section: str, lang: str) -> tuple[str, str]:
    """The page and anchor of a section in the pages of ``lang``. Claims name sections by
    their English anchor, found on one page of the article (or of its section); the other
    language's page of the same path has the same sections in the same order (the parity test
    keeps it so), with its own anchors (Chinese headings make Chinese anchors)."""
    pages = article_pages(docs, article)
    holders = [p for p in pages if section in anchors_of(docs / "en" / p)]
    if not holders:
        where = pages[0] if pages == [f"{article}.md"] else f"{article}/"
        raise ReportError(f"silent failures: no section #{section} in docs/en/{where}")
    if len(holders) > 1:
        raise ReportError(
            f"silent failures: section #{section} is on several pages of docs/en/{article}: "
            + ", ".join(holders)
        )
    page = holders[0]
    english = anchors_of(docs / "en" / page)
    if lang == "en":
        return page, section
    here = anchors_of(docs / lang / page)
    if len(here) != len(english):
        raise ReportError(
            f"silent failures: docs/{lang}/{page} has {len(here)} sections, "
            f"docs/en/{page} {len(english)}"
        )
    return page, here[english.index(section)]


# -- Chinese soft line breaks ----------------------------------------------------------------

CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
CJK_END = re.compile(f"[{CJK}]$")
CJK_START = re.compile(f"^[{CJK}]")
FENCE_RUN = re.compile(r"^(`{3,}|~{3,})")
BLOCK_START = re.compile(r"^(\s*)([-*+] |\d+\. |#|>|\||=== |!!! |\?\?\? |<|```|~~~|--8<--|\{\{)")


def join_cjk_soft_breaks(markdown: str) -> str:
    """Join paragraph lines broken after a Chinese character or full-width punctuation.

    Markdown turns a soft line break into a space, which is right between English words and
    wrong between Chinese characters ("。 下面"). Code blocks, lists, tables and other block
    syntax are left alone; only continuation lines of the same indentation are joined.
    """
    out: list[str] = []
    fence = None  # the opening run of backticks or tildes: a fence closes with at least as many
    for line in markdown.split("\n"):
        stripped = line.strip()
        run = FENCE_RUN.match(stripped)
        if run and (fence is None or (run[1][0] == fence[0] and len(run[1]) >= len(fence))):
            if fence is None:
                fence = run[1]
            elif stripped == run[1]:  # a closing fence has nothing after it
                fence = None
            out.append(line)
            continue
        in_fence = fence is not None
        previous = out[-1] if out else ""
        indent = line[: len(line) - len(line.lstrip())]
        prev_indent = previous[: len(previous) - len(previous.lstrip())]
        if (
            not in_fence
            and stripped
            and previous.strip()
            and indent == prev_indent
            and not BLOCK_START.match(line)
            and not previous.strip().startswith(("|", "#", "```", "~~~", "=== ", "!!! ", "<"))
            and (CJK_END.search(previous.rstrip()) or CJK_START.match(stripped))
        ):
            out[-1] = previous.rstrip() + stripped
            continue
        out.append(line)
    return "\n".join(out)
