"""Staleness: does a notebook on disk still match its page and snippets?

:func:`snippet_problems` compares each code cell with its snippet file, :func:`stale` a
notebook with a fresh generation, and :func:`check` (``python -m verified.notebooks check``)
does both for every notebook, without executing anything.
"""

from __future__ import annotations

from pathlib import Path

from verified.claims import FRAMEWORKS, LANGS, ROOT, SNIPPETS
from verified.notebooks.base import SIGNATURE, articles, notebook_path
from verified.notebooks.cells import generate
from verified.notebooks.comments import SOURCE_LANG, TranslationError, table_problems
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
    return problems
