"""Stage 2, the code: what an include puts in a notebook cell or on a page, and what the
claims say about running it.

:func:`snippet_text` is what ``pymdownx.snippets`` puts on the page for
``--8<-- "file"`` or ``"file:section"``, with its comments in the notebook's language
(:mod:`.comments` translates them); :func:`translate_includes` does the same for every include
of a page (the MkDocs hook's call is :func:`translate_page`); :func:`snippet_infos` reads the
claims to tell which cells must raise (``error`` claims), need a GPU, depend on the machine, or
need a longer timeout.

The dependency runs one way: this module uses :mod:`.comments`, which imports nothing of the
notebook builder.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from verified.claims import SNIPPETS, all_cases
from verified.notebooks.base import DEFAULT_CELL_TIMEOUT
from verified.notebooks.comments import SOURCE_LANG, TranslationError, translated_file

SECTION_MARK_RE = re.compile(r"^\s*#\s*-{1,2}8<-{1,2}\s*\[(?:start|end):[\w-]+\]\s*$")
INCLUDE_LINE_RE = re.compile(r'^(?P<indent>[ \t]*)--8<--\s+"(?P<path>[^"]+\.py(?::[^"]*)?)"\s*$')


def snippet_text(path: str, snippets: Path = SNIPPETS, lang: str = SOURCE_LANG) -> str:
    """What pymdownx.snippets includes for ``path`` (``file`` or ``file:section``), with the
    comments in ``lang`` (:mod:`.comments`; the same lines, the same code)."""
    name, _, section = path.partition(":")
    lines = translated_file(name, lang, snippets).split("\n")
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


def translate_includes(markdown: str, lang: str, snippets: Path = SNIPPETS) -> str:
    """A page with each ``--8<-- "<article>/<file>.py"`` include replaced by the file as
    shown in ``lang``, indented like the include line, exactly as pymdownx.snippets would
    have inserted the file (it runs after the page hooks and leaves text without includes
    alone). Pages in the snippets' own language are returned unchanged."""
    if lang == SOURCE_LANG:
        return markdown
    out: list[str] = []
    for line in markdown.split("\n"):
        match = INCLUDE_LINE_RE.match(line)
        if not match:
            out.append(line)
            continue
        indent, path = match["indent"], match["path"]
        if ":" in path:  # a section or line range: what the notebook cell holds
            text = snippet_text(path, snippets, lang=lang)
        else:
            text = translated_file(path, lang, snippets)
        out.extend(indent + ln for ln in (text.split("\n") if text else []))
    return "\n".join(out)


def translate_page(markdown: str, lang: str, where: str) -> str:
    """The MkDocs hook's call: :func:`translate_includes`, a missing translation failing the
    build (``PluginError``) with the page, the snippet file and line, and what to add."""
    try:
        return translate_includes(markdown, lang)
    except TranslationError as exc:
        from mkdocs.exceptions import PluginError

        raise PluginError(f"{where}: {exc}") from None


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
