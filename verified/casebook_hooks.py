"""MkDocs hook: the casebook page (``docs/<lang>/casebook.md``) rendered from
``casebook/reports.toml`` (see :mod:`verified.casebook`). It runs before the claims hook
(``verified/mkdocs_hooks.py``), which would refuse the casebook's placeholders as unknown.
A report whose answer names a page or heading that no longer exists fails the build."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hooks are loaded by file path; make `verified` importable
    sys.path.insert(0, str(ROOT))

from verified import casebook  # noqa: E402


def casebook_page(markdown: str, page) -> str:
    """The page's Markdown, rendered from the reports if the page is a language's casebook page.
    (Outside the decorated hook below: mutmut does not mutate a decorated function.)"""
    lang = getattr(page.file, "locale", None) or "en"
    first, _, rest = page.file.src_uri.partition("/")
    if (rest if first == lang else page.file.src_uri) != casebook.PAGE:
        return markdown
    try:
        return casebook.render(markdown, lang)
    except casebook.CasebookError as exc:
        raise PluginError(f"docs/{lang}/{casebook.PAGE}: {exc}") from None


@event_priority(50)  # before verified/mkdocs_hooks.py (default priority 0)
def on_page_markdown(markdown, page, config, files):
    return casebook_page(markdown, page)
