"""Downloadable notebooks: one per article × language × framework, generated and executed.

``python -m verified.notebooks build`` turns each article (``docs/en/<article>.md``, or a
section ``docs/en/<article>/index.md`` with its sub-pages, with a ``snippets/<article>/``
folder) into ``docs/<lang>/notebooks/<article>-<framework>.ipynb`` for both languages and both
frameworks (a section's pages in the order of the nav, each sub-page's headings one level
below the section's title), and executes each one with nbclient;
``python -m verified.notebooks export`` writes the copies committed under
``notebooks/<lang>/`` (no outputs, links into the repository); ``python -m verified.notebooks
check`` only verifies that the notebooks on disk, and those copies, match what the current
pages and snippets generate (no execution).

Where a notebook's parts come from, one module per stage:

============================  ===============================================================
:mod:`.parse`                 the page cut into prose and snippet segments, per framework tab
:mod:`.snippets`              what an include puts in a cell or on a page, and what its claims say
:mod:`.comments`              the snippets' comments in the reader's language (imports no stage)
:mod:`.markdown`              prose to notebook Markdown: links, figures, one cell per heading
:mod:`.text`                  the generator's own words and the setup cell, per language
:mod:`.cells`                 :func:`generate`: the unexecuted notebook, cell by cell
:mod:`.execute`               running it in a kernel; which cells may raise
:mod:`.cache`                 the execution cache (code cells, versions, device → outputs)
:mod:`.check`                 staleness: a notebook on disk against a fresh generation
:mod:`.build`                 all of it for every notebook, and ``build/notebooks.json``
:mod:`.base`                  paths, the metadata key, framework names
``__main__``                  the command line
============================  ===============================================================

In short: prose outside tabs goes to both frameworks' notebooks, a tab's prose and snippet
includes to that framework's; an include becomes a code cell holding the snippet file's text;
claim placeholders are rendered from ``build/claims.json`` by the function the site uses;
cells of ``error`` claims carry the ``raises-exception`` tag, cells of GPU-only claims start
with ``%%gpu_only``, scripts that another snippet starts are written with ``%%writefile``;
execution is cached by a hash of the code cells, the framework versions and the device.
"""

from __future__ import annotations

from verified.claims import FRAMEWORKS, LANGS
from verified.notebooks.base import (
    BUILD,
    CACHE,
    DEFAULT_CELL_TIMEOUT,
    DOCS,
    FW_NAMES,
    RECORD,
    REPOSITORY,
    SIGNATURE,
    articles,
    notebook_path,
    repository_path,
    section_pages,
)
from verified.notebooks.build import (
    Built,
    build,
    build_one,
    export,
    outputs_digest,
    run_id,
)
from verified.notebooks.cache import cache_key, merge_outputs, store, versions
from verified.notebooks.cells import generate, repository_notebook
from verified.notebooks.check import (
    check,
    code_signature,
    local_link_problems,
    mask,
    repository_problems,
    site_prose_problems,
    snippet_problems,
    stale,
)
from verified.notebooks.execute import NotebookFailed, execute, execution_problems
from verified.notebooks.markdown import (
    Converter,
    Links,
    drop_site_only,
    is_local,
    published_url,
    site_prose,
    split_cells,
)
from verified.notebooks.parse import Segment, parse
from verified.notebooks.snippets import SnippetInfo, snippet_infos, snippet_text
from verified.notebooks.text import TEXT

__all__ = [
    "BUILD",
    "REPOSITORY",
    "CACHE",
    "DEFAULT_CELL_TIMEOUT",
    "DOCS",
    "FRAMEWORKS",
    "FW_NAMES",
    "LANGS",
    "RECORD",
    "SIGNATURE",
    "TEXT",
    "Built",
    "Converter",
    "NotebookFailed",
    "Segment",
    "SnippetInfo",
    "articles",
    "build",
    "build_one",
    "export",
    "cache_key",
    "outputs_digest",
    "run_id",
    "check",
    "code_signature",
    "execute",
    "execution_problems",
    "generate",
    "repository_notebook",
    "merge_outputs",
    "notebook_path",
    "repository_path",
    "section_pages",
    "Links",
    "drop_site_only",
    "is_local",
    "published_url",
    "site_prose",
    "parse",
    "snippet_infos",
    "snippet_problems",
    "local_link_problems",
    "mask",
    "repository_problems",
    "site_prose_problems",
    "snippet_text",
    "split_cells",
    "stale",
    "store",
    "versions",
]
