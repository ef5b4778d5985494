"""MkDocs hooks for the traceback box (:mod:`verified.tracebacks`):

- every page gets the box's script (``overrides/assets/javascripts/traceback.js``, a theme file)
  and its stylesheet; the script puts a link to the box into the header, in the page's
  language (the words come from the hook: no list in the script);
- once every language is built, each language's root gets ``assets/tracebacks.json``: the
  messages of the reports under the error index's entries (``docs/<lang>/errors.md``), with the
  link to the casebook where ``docs/<lang>/casebook.md`` exists.
"""

from __future__ import annotations

import html
import posixpath
import sys
from pathlib import Path

from mkdocs.exceptions import PluginError
from mkdocs.plugins import event_priority

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hooks are loaded by file path; make `verified` importable
    sys.path.insert(0, str(ROOT))

from verified import tracebacks  # noqa: E402
from verified.pages import site  # noqa: E402
from verified.report import ReportError  # noqa: E402

SCRIPT = "assets/javascripts/traceback.js"
STYLE = "assets/stylesheets/traceback.css"
CASEBOOK = "casebook.md"


def _i18n(config):
    return config.plugins.get("i18n")


def _languages(config) -> tuple[str, list[str]]:
    i18n = _i18n(config)
    if i18n is None:
        return "en", ["en"]
    return i18n.default_language, list(i18n.build_languages)


def tags(page_url: str, lang: str, default: str) -> str:
    """The stylesheet and script of the box, relative to the page at ``page_url``."""
    here = page_url or "."  # a page's URL is its folder ("inplace/leaf-tensors/"), or ""
    style = posixpath.relpath(STYLE, here)
    script = posixpath.relpath(SCRIPT, here)
    label = html.escape(tracebacks.WORDS.get(lang, tracebacks.WORDS[default])["header"])
    return (
        f'<link rel="stylesheet" href="{style}">'
        f'<script src="{script}" data-traceback-header="{label}" defer></script>'
    )


def on_post_page(output, page, config):
    default, _ = _languages(config)
    lang = getattr(page.file, "locale", None) or default
    return output.replace("</body>", tags(page.url, lang, default) + "</body>", 1)


@event_priority(-200)  # after mkdocs-static-i18n (-100) has built every language
def on_post_build(config):
    write_assets(config)


def write_assets(config) -> None:
    """The traceback box's assets, one per language, once every language is built. (Outside the
    decorated hook: mutmut does not mutate a decorated function.)"""
    i18n = _i18n(config)
    if i18n is not None and getattr(i18n, "building", False):
        return  # a nested build of one language: the last pass writes the assets
    default, langs = _languages(config)
    docs = Path(config["docs_dir"])
    out = Path(config["site_dir"])
    try:
        assets = tracebacks.build(site.report(), docs, tuple(langs))
    except (tracebacks.TracebackError, ReportError) as exc:
        raise PluginError(f"traceback box: {exc}") from None
    for lang, asset in assets.items():
        # the casebook only where its page exists (another page may still be on its way)
        asset["casebook"] = "casebook/" if (docs / lang / CASEBOOK).is_file() else None
        tracebacks.write(asset, out if lang == default else out / lang)
