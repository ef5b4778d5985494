"""Stage 4, the notebook: one unexecuted notebook from a page, its snippets and the claims.

:func:`generate` puts the stages together: the title cell and banner, the install cell (the
framework at its verified release when it is missing), the setup cell, then
each prose segment as Markdown cells (placeholders rendered from ``build/claims.json`` by the
function the site uses) and each include as a code cell with its tags and metadata
(``raises-exception`` for error claims, ``%%gpu_only`` for GPU-only claims, ``%%writefile``
for scripts another snippet starts).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from verified.claims import SNIPPETS
from verified.notebooks.base import (
    DEFAULT_CELL_TIMEOUT,
    DOCS,
    FW_NAMES,
    SIGNATURE,
    articles,
    section_pages,
)
from verified.notebooks.markdown import (
    ATTR_LIST_RE,
    Converter,
    Links,
    drop_output_placeholders,
    published_url,
    split_cells,
)
from verified.notebooks.parse import Segment, demote_headings, parse
from verified.notebooks.snippets import SnippetInfo, snippet_infos, snippet_text
from verified.notebooks.text import TEXT, install_code, setup_code
from verified.pages.markdown import CJK

SIBLING_RE = re.compile(r"""["'](?P<name>\w+_(?:paddle|torch)\.py)["']""")
# a module next to the snippet that it imports (a shared launcher): written with %%writefile too
MODULE_RE = re.compile(r"^\s*(?:from|import)\s+(?P<name>\w+_(?:paddle|torch))\b", re.MULTILINE)


def title_anchors(docs: Path, lang: str) -> dict[str, str]:
    """Page -> the anchor of its title in its article's notebook, for every sub-page of every
    section with notebooks (a sub-page's H1 is a heading of the section's notebook)."""
    from pymdownx.slugs import slugify

    from verified.pages.markdown import HEADING

    slug = slugify(case="lower")
    found = {}
    for article in articles(docs):
        for page in section_pages(article, lang, docs)[1:]:
            for line in (docs / lang / page).read_text(encoding="utf-8").split("\n"):
                match = HEADING.match(line)
                if match and len(match[1]) == 1:
                    found[page] = slug(re.sub(r"`([^`]*)`", r"\1", match[2]), "-")
                    break
    return found


def _renderer(markdown: str, lang: str, where: str) -> str:
    from verified.pages.site import render

    return render(markdown, lang, where, provenance=False)


def _marked_renderer(markdown: str, lang: str, where: str) -> str:
    """The site's rendering, each observed value wrapped in
    ``<span class="claim-value" data-claim="…">``: the copies committed under notebooks/
    carry the values of the run that generated them, and their freshness check
    (:func:`verified.notebooks.check.mask`) sets those values aside."""
    from verified.pages.fields import PLACEHOLDER

    def one(match: re.Match) -> str:
        shown = _renderer(match[0], lang, where)
        if match["field"] == "statement":  # prose from claims.toml, not an observation
            return shown
        claim = f"{match['id']}|{match['fw']}{'@' + match['dev'] if match['dev'] else ''}"
        return f'<span class="claim-value" data-claim="{claim}">{shown}</span>'

    marked = PLACEHOLDER.sub(one, markdown)
    if lang == "zh":  # the site's spacing (Page.substitute): no space between Chinese characters
        marked = SPAN_START.sub(r"\1", SPAN_END.sub(r"\1", marked))
    return _renderer(marked, lang, where)


SPAN_END = re.compile(rf"([{CJK}]</span>) (?=[{CJK}])")
SPAN_START = re.compile(rf'(?<=[{CJK}]) (<span class="claim-value" data-claim="[^"]*">[{CJK}])')


def repository_notebook(article: str, lang: str, framework: str, **kwargs):
    """The copy committed under ``notebooks/<lang>/``: unexecuted, links into the repository,
    observed values marked (see :func:`_marked_renderer`)."""
    links = Links(
        lang,
        article,
        framework,
        repository=True,
        articles=tuple(articles()),
        index=section_pages(article, lang)[0],
        titles=title_anchors(DOCS, lang),
    )
    return generate(article, lang, framework, render=_marked_renderer, links=links, **kwargs)


def generate(
    article: str,
    lang: str,
    framework: str,
    *,
    docs: Path = DOCS,
    snippets: Path = SNIPPETS,
    render=_renderer,
    infos: dict[str, SnippetInfo] | None = None,
    links: Links | None = None,
):
    """The unexecuted notebook for one article, language and framework; its links point
    where ``links`` says (default: the published site if configured, else relative to the
    notebook's place on the site)."""
    import nbformat

    pages = section_pages(article, lang, docs)  # one page, or a section's pages in nav order
    segments: list[Segment] = []
    for number, page in enumerate(pages):
        markdown = drop_output_placeholders((docs / lang / page).read_text(encoding="utf-8"))
        if number:  # a sub-page: its title one level below the section's
            markdown = demote_headings(markdown)
        segments += [
            replace(s, page=page) for s in parse(markdown, lang) if s.framework in (None, framework)
        ]
    if infos is None:
        infos = snippet_infos(snippets)
    if links is None:
        links = Links(lang, article, framework, base=published_url(), index=pages[0])
    converter = Converter(lang, article, docs, links)
    text = TEXT[lang]

    included = [s.text for s in segments if s.kind == "code"]
    # a part of a snippet (file:section) whose whole file the notebook runs too is shown, not
    # run: the whole file runs where its page includes it
    whole = {path for path in included if ":" not in path}
    shown_only = {p for p in included if ":" in p and p.partition(":")[0] in whole}
    sources = {path: snippet_text(path, snippets, lang) for path in included}
    english = {path: snippet_text(path, snippets) for path in included}  # for the structure
    # snippets that another included snippet starts as a script: written, not executed
    scripts: dict[str, str] = {}  # script path -> path of the first snippet that needs it
    for path in included:
        folder = path.partition(":")[0].rsplit("/", 1)[0]
        names = [m["name"] for m in SIBLING_RE.finditer(english[path])]
        names += [f"{m['name']}.py" for m in MODULE_RE.finditer(english[path])]
        for name in names:
            target = f"{folder}/{name}"
            if (snippets / target).is_file() and target != path:
                scripts.setdefault(target, path)
    uses_file = any("__file__" in src for src in english.values())
    gpu_only = any(infos.get(p.partition(":")[0], SnippetInfo()).gpu_only for p in included)

    cells = []
    title = article
    # merge consecutive prose, render placeholders, convert to notebook Markdown
    merged: list[Segment] = []
    for seg in segments:
        if seg.kind == "md" and merged and merged[-1].kind == "md" and merged[-1].page == seg.page:
            merged[-1] = Segment("md", merged[-1].text + "\n\n" + seg.text, None, seg.page)
        else:
            merged.append(Segment(seg.kind, seg.text, None, seg.page))

    def md_cells(prose: str, page: str) -> None:
        rendered = render(prose, lang, f"{lang}/{page}")
        converter.page = page
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
                name = text.get("frameworks", FW_NAMES)[framework]  # in the notebook's language
                if h1 is not None:
                    title = ATTR_LIST_RE.sub("", lines[h1][2:]).strip()
                    head[-1] = f"# {title} · {name}"  # two notebooks, two titles
                intro = text["intro"].format(
                    fw=name,
                    title=title,
                    url=links.article_url(),
                    report=links.page("verification.md"),
                )
                cells.append(nbformat.v4.new_markdown_cell("\n".join(head + ["", intro]).strip()))
                # the first code cell: the framework at its verified release, if missing
                cell = nbformat.v4.new_code_cell(install_code(framework, lang))
                cell.metadata[SIGNATURE] = {"install": True}
                cells.append(cell)
                setup = setup_code(
                    framework,
                    lang,
                    gpu_only=gpu_only,
                    file_name=f"{article}-{framework}" if uses_file else None,
                )
                cell = nbformat.v4.new_code_cell(setup)
                cell.metadata[SIGNATURE] = {"setup": True}
                cells.append(cell)
                setup_done = True
                if "\n".join(rest).strip():
                    md_cells("\n".join(rest), seg.page)
            else:
                md_cells(seg.text, seg.page)
            continue
        path = seg.text
        if path in shown_only:
            cells.append(nbformat.v4.new_markdown_cell(f"```python\n{sources[path]}\n```"))
            continue
        if path in scripts:
            if path not in written:
                name = path.partition(":")[0].rsplit("/", 1)[-1]
                code_cell(path, sources[path], magic=f"%%writefile {name}")
                written.add(path)
            continue
        for script, needed_by in scripts.items():
            if needed_by == path and script not in written:
                name = script.rsplit("/", 1)[-1]
                code_cell(script, snippet_text(script, snippets, lang), magic=f"%%writefile {name}")
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
            "page": f"docs/{lang}/{pages[0]}",
            "pages": [f"docs/{lang}/{page}" for page in pages],
        },
    }
    return nb
