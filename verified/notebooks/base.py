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
FORMAT = "1"  # bump when the generated cells change shape, to invalidate the cache
DEFAULT_CELL_TIMEOUT = 120
SIGNATURE = "autograd_verified"  # notebook and cell metadata key

TABS = {"PaddlePaddle": "paddle", "PyTorch": "torch"}
FW_NAMES = {"paddle": "PaddlePaddle", "torch": "PyTorch"}
DISTRIBUTIONS = {"paddle": "paddlepaddle", "torch": "torch"}


def articles(docs: Path = DOCS, snippets: Path = SNIPPETS) -> list[str]:
    """Articles that get notebooks: pages of the first language with a snippets/ folder."""
    return sorted(p.stem for p in (docs / LANGS[0]).glob("*.md") if (snippets / p.stem).is_dir())


def notebook_path(lang: str, article: str, framework: str, docs: Path = DOCS) -> Path:
    return docs / lang / "notebooks" / f"{article}-{framework}.ipynb"


def repository_path(lang: str, article: str, framework: str, root: Path = REPOSITORY) -> Path:
    """The committed copy (no outputs, links into the repository) of a notebook."""
    return root / lang / f"{article}-{framework}.ipynb"
