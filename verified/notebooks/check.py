"""Checks on a generated notebook: staleness, what its prose says, where its links go.

:func:`snippet_problems` compares each code cell with its snippet file, :func:`stale` a
notebook with a fresh generation, :func:`repository_problems` the copies committed under
``notebooks/`` with a fresh generation; :func:`site_prose_problems` finds prose about the
site's tabs or "this page", :func:`local_link_problems` links to this machine (127.0.0.1,
localhost). :func:`check` (``python -m verified.notebooks check``) runs them all, without
executing anything.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from verified.claims import FRAMEWORKS, LANGS, ROOT, SNIPPETS
from verified.notebooks.base import (
    REPOSITORY,
    SIGNATURE,
    articles,
    notebook_path,
    repository_path,
)
from verified.notebooks.cells import generate, repository_notebook
from verified.notebooks.comments import SOURCE_LANG, TranslationError, table_problems
from verified.notebooks.markdown import site_prose
from verified.notebooks.snippets import snippet_infos, snippet_text


def code_signature(nb) -> list[tuple[str, list[str]]]:
    """What decides the outputs: the code cells' sources and tags, in order."""
    return [
        (cell.source, list(cell.metadata.get("tags", [])))
        for cell in nb.cells
        if cell.cell_type == "code"
    ]


def snippet_problems(nb, snippets: Path = SNIPPETS, where: str = "") -> list[str]:
    """Code cells that do not hold their snippet file's current text (with the comments in
    the notebook's language)."""
    problems = []
    lang = nb.metadata.get(SIGNATURE, {}).get("lang", SOURCE_LANG)
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get(SIGNATURE, {})
        path = meta.get("snippet")
        if cell.cell_type != "code" or not path:
            continue
        source = cell.source
        if source.startswith("%%"):
            source = source.split("\n", 1)[1] if "\n" in source else ""
        try:
            current = snippet_text(path, snippets, lang)
        except (OSError, StopIteration):
            problems.append(f"{where}cell {index}: snippet {path} no longer exists")
            continue
        except TranslationError as exc:
            problems.append(f"{where}cell {index}: {exc}")
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


LOCAL_URL_RE = re.compile(
    r"\b[a-z][a-z0-9+.-]*://(?:localhost|127(?:\.\d{1,3}){3}|\[::1\]|0\.0\.0\.0)(?![\w.-])",
    re.IGNORECASE,
)
EXPORT = "python -m verified.notebooks export"


def site_prose_problems(nb, where: str = "") -> list[str]:
    """Markdown cells that speak of the site's tabs or of "this page": a notebook has one
    framework and no tabs."""
    meta = nb.metadata.get(SIGNATURE, {})
    lang, article = meta.get("lang", SOURCE_LANG), meta.get("article", "<article>")
    pages = " or ".join(meta.get("pages") or [f"docs/{lang}/{article}.md"])
    problems = []
    for index, cell in enumerate(nb.cells):
        found = site_prose(cell.source, lang) if cell.cell_type == "markdown" else []
        if found:
            problems.append(
                f"{where}cell {index} says {', '.join(map(repr, dict.fromkeys(found)))}: prose "
                f"about the site's tabs or 'this page' reached a notebook; in {pages} wrap it "
                'in <span class="site-only">…</span>, or reword it'
            )
    return problems


def local_link_problems(nb, where: str = "") -> list[str]:
    """Links (in Markdown cells and metadata) to an address on this machine."""
    places = [(f"cell {i}", c.source) for i, c in enumerate(nb.cells) if c.cell_type == "markdown"]
    places.append(("metadata", json.dumps(dict(nb.metadata), ensure_ascii=False)))
    return [
        f"{where}{place} links to {match[0]!r}: a downloaded notebook cannot reach it (set "
        "SITE_URL to the published address, or leave it unset for relative links)"
        for place, text in places
        for match in LOCAL_URL_RE.finditer(text)
    ]


CLAIM_VALUE_RE = re.compile(r'(<span class="claim-value" data-claim="[^"]*">).*?(</span>)', re.S)


def mask(nb) -> str:
    """A notebook as text, with what the last claims run decides set aside: observed values
    (marked by the generator) and figure attachments."""
    import copy

    import nbformat

    nb = copy.deepcopy(nb)
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = CLAIM_VALUE_RE.sub(r"\1…\2", cell.source)
            for name, data in cell.get("attachments", {}).items():
                cell.attachments[name] = {mime: "…" for mime in data}
    return nbformat.writes(nb)


def repository_problems(root: Path = REPOSITORY, infos=None) -> list[str]:
    """The committed copies under ``notebooks/``: one per notebook, none extra, each what a
    fresh generation gives (observed values and figures aside: :func:`mask`)."""
    import nbformat

    infos = snippet_infos() if infos is None else infos
    problems, expected = [], set()
    for article in articles():
        for lang in LANGS:
            for framework in FRAMEWORKS:
                path = repository_path(lang, article, framework, root)
                expected.add(path)
                shown = _shown(path)
                if not path.is_file():
                    problems.append(f"{shown} is missing: run `{EXPORT}`")
                    continue
                fresh = repository_notebook(article, lang, framework, infos=infos)
                disk = nbformat.read(path, as_version=4)
                if mask(disk) != mask(fresh):
                    problems.append(
                        f"{shown} differs from a fresh generation ({_first_difference(disk, fresh)}): "
                        f"run `{EXPORT}` and commit the result"
                    )
                elif path.read_text(encoding="utf-8") != nbformat.writes(disk) + "\n":
                    problems.append(f"{shown} is not as the generator writes it: run `{EXPORT}`")
    for stray in sorted(root.glob("*/*.ipynb")):
        if stray not in expected:
            problems.append(f"{_shown(stray)} is the notebook of no article: run `{EXPORT}`")
    return problems


def _first_difference(disk, fresh) -> str:
    if len(disk.cells) != len(fresh.cells):
        return f"{len(disk.cells)} cells on disk, {len(fresh.cells)} generated"
    for index, (a, b) in enumerate(zip(disk.cells, fresh.cells, strict=True)):
        one, two = copy_masked(a), copy_masked(b)
        if one != two:
            return f"cell {index} first"
    return "metadata"


def copy_masked(cell) -> str:
    import nbformat

    nb = nbformat.v4.new_notebook()
    nb.cells = [cell]
    return mask(nb)


def _shown(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return path.as_posix()


def check() -> list[str]:
    """Notebooks on disk that are missing or do not match the current pages and snippets."""
    import nbformat

    problems = table_problems()
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
                problems += site_prose_problems(nb, where=f"{name}: ")
                problems += local_link_problems(nb, where=f"{name}: ")
    problems += repository_problems(infos=infos)
    return problems
