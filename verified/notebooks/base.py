"""Where the notebooks live and what marks them: paths, the metadata key, framework names.

Every stage imports these; nothing here does any work.
"""

from __future__ import annotations

from pathlib import Path

from verified.claims import LANGS, ROOT, SNIPPETS

DOCS = ROOT / "docs"
REPOSITORY = ROOT / "notebooks"  # the copies committed without outputs
BUILD = ROOT / "build"
CACHE = BUILD / "notebooks" / "cache"
RECORD = BUILD / "notebooks.json"
FORMAT = (
    "2"  # bump when the generated cells or their cleaned outputs change, to invalidate the cache
)
DEFAULT_CELL_TIMEOUT = 120
SIGNATURE = "autograd_verified"  # notebook and cell metadata key

TABS = {"PaddlePaddle": "paddle", "PyTorch": "torch"}
FW_NAMES = {"paddle": "PaddlePaddle", "torch": "PyTorch"}
DISTRIBUTIONS = {"paddle": "paddlepaddle", "torch": "torch"}


def articles(docs: Path = DOCS, snippets: Path = SNIPPETS) -> list[str]:
    """Articles that get notebooks: pages (``<article>.md``) or sections
    (``<article>/index.md`` and its sub-pages) of the first language with a snippets/ folder."""
    root = docs / LANGS[0]
    found = {p.stem for p in root.glob("*.md")} | {p.parent.name for p in root.glob("*/index.md")}
    return sorted(name for name in found if (snippets / name).is_dir())


def section_pages(article: str, lang: str, docs: Path = DOCS) -> list[str]:
    """The pages an article's notebook is made from, relative to ``docs/<lang>/``: the page
    ``<article>.md``, or the section ``<article>/``: its overview ``index.md`` first, then the
    sub-pages in the order of the site's nav (pages the nav does not list last, by name)."""
    if (docs / lang / f"{article}.md").is_file():
        return [f"{article}.md"]
    folder = docs / lang / article
    if not (folder / "index.md").is_file():
        raise FileNotFoundError(f"docs/{lang}/{article}.md or docs/{lang}/{article}/index.md")
    pages = sorted(p.relative_to(docs / lang).as_posix() for p in folder.glob("*.md"))
    order = {page: i for i, page in enumerate(nav_pages())}
    index = f"{article}/index.md"
    return sorted(pages, key=lambda p: (p != index, order.get(p, len(order)), p))


def nav_pages(config: Path = ROOT / "mkdocs.yml") -> list[str]:
    """The Markdown pages of mkdocs.yml's nav, in order (docs-relative, without language)."""
    import yaml

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_multi_constructor("!", lambda loader, suffix, node: None)  # !ENV, !relative
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    nav = yaml.load(config.read_text(encoding="utf-8"), Loader=Loader).get("nav") or []

    def walk(items) -> list[str]:
        out: list[str] = []
        for item in items if isinstance(items, list) else [items]:
            if isinstance(item, str):
                out.append(item)
            elif isinstance(item, dict):
                for value in item.values():
                    out += walk(value)
        return [p for p in out if p.endswith(".md")]

    return walk(nav)


def is_section(article: str, lang: str = LANGS[0], docs: Path = DOCS) -> bool:
    return not (docs / lang / f"{article}.md").is_file()


def notebook_path(lang: str, article: str, framework: str, docs: Path = DOCS) -> Path:
    return docs / lang / "notebooks" / f"{article}-{framework}.ipynb"


def repository_path(lang: str, article: str, framework: str, root: Path = REPOSITORY) -> Path:
    """The committed copy (no outputs, links into the repository) of a notebook."""
    return root / lang / f"{article}-{framework}.ipynb"
