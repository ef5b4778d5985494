"""MkDocs hooks: render the verification reports into the pages (see :mod:`verified.pages`).

- claim placeholders, ``{{ verified }}``, ``{{ verification-table }}`` and
  ``{{ silent-failures }}`` are rendered from ``build/claims.json`` and ``results/*.json``;
- each ``snippets/<article>/figures.py`` draws its figures from the reports into
  ``docs/<lang>/figures/`` before the build.

A placeholder that rests on a missing, failed, skipped or stale record fails the build with the
page and the claim named (:mod:`verified.pages.standing`). Where ``AUTOGRAD_SHOW_FAILED=1``
(``nox -s site`` sets it), such a sentence is marked ✗ with what was observed instead, with a
banner on its page, and the build ends with a summary on the terminal of every record that
failed, is stale or did not run, on a page or not.
"""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hooks are loaded by file path; make `verified` importable
    sys.path.insert(0, str(ROOT))

from verified.notebooks.snippets import translate_page  # noqa: E402
from verified.pages import site  # noqa: E402
from verified.pages.figures import draw_figures  # noqa: E402
from verified.pages.markdown import join_cjk_soft_breaks  # noqa: E402
from verified.report import ReportError  # noqa: E402


def on_startup(command, dirty):
    site.reset()


def on_pre_build(config):
    site.reset()  # re-read on every build (mkdocs serve rebuilds after a test run)
    draw_figures(config)


def on_post_build(config):
    summary = site.failed_summary()
    if summary:
        print(summary, file=sys.stderr)  # not a warning: --strict would turn it into an error


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return markdown  # notebooks (mkdocs-jupyter renders them; their prose is rendered already)
    lang = getattr(page.file, "locale", None) or "en"
    where = page_path(page.file.src_uri, lang)
    try:
        rendered = site.render(markdown, lang, where)
    except ReportError as exc:
        raise PluginError(str(exc)) from None
    rendered = join_cjk_soft_breaks(rendered) if lang == "zh" else rendered
    return translate_page(rendered, lang, where)  # snippet comments in the page's language


def page_path(src_uri: str, lang: str) -> str:
    """``<lang>/<path below the language folder>``: the page's place, which its relative links
    to other pages (the verification report) start from (``en/inplace/leaf-tensors.md``)."""
    first, _, rest = src_uri.partition("/")
    return f"{lang}/{rest}" if first == lang and rest else f"{lang}/{src_uri}"
