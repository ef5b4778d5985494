"""MkDocs hooks for the site search: what a reader pastes from a message finds its answer, in
the reader's language. In the order the events run:

1. **English stop words out of queries.** lunr leaves its English stop words out of the index,
   but Material keeps them in a query and, like every query word, matches them as the start
   of a word: the "in" of a pasted message finds ``inference_mode`` and "to" finds
   ``to_static`` and ``torch``, so sentence queries ranked sections by their titles' first
   letters. The search separator (``mkdocs.yml``) gets lunr's list as whole words, in any
   case (the separator's regular expression takes no flags), so they separate words in
   queries and pages alike.
2. **Code blocks out of the index.** Code listings and their outputs were 60 % of the index
   text and matched every query that names a variable; since lunr scores a section by the
   cosine of its term vector, they also diluted every section that holds one, and put the
   articles' demonstrations of an error above the error-index entry that explains it. Every
   code block gets Material's ``data-search-exclude`` (its documented way to leave a block
   out; the search plugin removes the attribute from the page after indexing), except, on a
   page whose front matter says ``search_outputs: true`` (the error index), the blocks that
   hold what a run printed: messages (``claim-message``) and outputs (``claim-output``,
   both from :mod:`verified.pages`). :mod:`verified.pages.page` leaves out, the same way, where
   and when the claims ran: the environment in each provenance line, and each page's verified
   line. They depend on the machine that builds the site (processor, kernel, date), and with
   them every section's rank moved with the length of the host's name.
3. **One index per language.** Material's search loads ``search/search_index.json`` below the
   ``base`` of the page's ``__config``; mkdocs-static-i18n (1.3.1) merges the entries of every
   language into that one file (``reconfigure_search`` only removes duplicates), so a Chinese
   query lists English sections and the other way round, and every page downloads both
   languages. Neither plugin has an option for one index per language (the i18n maintainer:
   Material's index path is static, ultrabug/mkdocs-static-i18n#271). So, once every language
   is built, the merged index is split by the language prefix of each location: the default
   language keeps ``search/search_index.json``, each other language gets
   ``<lang>/search/search_index.json`` with locations relative to ``<lang>/``, and the pages of
   that language get a ``base`` pointing at ``<lang>/`` (Material uses ``base`` only to find
   the index, to resolve result links, and for the version selector and instant loading, which
   this site does not use). Each index keeps the search plugin's configuration, with its
   ``lang`` narrowed to its own language: with one language lunr needs no ``lunr.multi``,
   whose combined trimmer would strip tokens such as ``=`` (what a query ``+=`` looks for),
   and the pages load no other language's lunr scripts.
4. **Queries read as pasted.** Material hands the query to lunr's query syntax: a quoted
   message made every one of its words required (a shape or a version on no page: nothing
   found), and ``~``, ``^``, ``*``, ``:`` or a leading ``-`` or ``+`` in a paste made the query
   invalid, or excluded or required a word (``+=`` stays: the query for ``=``). Material 9.8
   no longer reads the ``__search.transform`` its documentation shows; the worker's URL
   (``search`` in each page's ``__config``) is the hook left. Every page's ``search`` points at
   ``overrides/assets/javascripts/workers/search-as-pasted.js``, next to Material's worker,
   which it names as ``?material=`` and loads after reading those characters as spaces (they
   separate words in the index as well, ``mkdocs.yml``).
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Iterable
from pathlib import Path

from mkdocs.plugins import event_priority

INDEX = Path("search") / "search_index.json"
CODE_BLOCK = re.compile(r'<div class="((?:[^"]*\s)?highlight(?:\s[^"]*)?)"')
PRINTED = {"claim-message", "claim-output"}  # the classes of what a run printed (pages/page.py)
CONFIG_SCRIPT = re.compile(
    r'(<script id="__config" type="application/json">)(.*?)(</script>)', re.S
)


# -- 1. English stop words out of queries ----------------------------------------------------

# lunr.stopWordFilter's list (lunr 2.3.9, the version Material bundles)
STOP_WORDS = (
    "a", "able", "about", "across", "after", "all", "almost", "also", "am", "among", "an", "and",
    "any", "are", "as", "at", "be", "because", "been", "but", "by", "can", "cannot", "could",
    "dear", "did", "do", "does", "either", "else", "ever", "every", "for", "from", "get", "got",
    "had", "has", "have", "he", "her", "hers", "him", "his", "how", "however", "i", "if", "in",
    "into", "is", "it", "its", "just", "least", "let", "like", "likely", "may", "me", "might",
    "most", "must", "my", "neither", "no", "nor", "not", "of", "off", "often", "on", "only", "or",
    "other", "our", "own", "rather", "said", "say", "says", "she", "should", "since", "so", "some",
    "than", "that", "the", "their", "them", "then", "there", "these", "they", "this", "tis", "to",
    "too", "twas", "us", "wants", "was", "we", "were", "what", "when", "where", "which", "while",
    "who", "whom", "why", "will", "with", "would", "yet", "you", "your",
)  # fmt: skip


def stop_word_separator(words: Iterable[str]) -> str:
    """``words`` as whole words in any case, longest first: ``\\b(?:[tT][hH][eE]|…)\\b``."""
    ordered = sorted(set(words), key=lambda w: (-len(w), w))
    cased = (
        "".join(f"[{c}{c.upper()}]" if c.isalpha() else re.escape(c) for c in w) for w in ordered
    )
    return r"\b(?:" + "|".join(cased) + r")\b"


@event_priority(100)  # before Material's search plugin reads its configuration
def on_config(config):
    return add_stop_words(config)


def add_stop_words(config):
    """The stop words as separators of Material's search (undecorated: mutmut does not mutate a
    decorated function)."""
    search = config.plugins.get("material/search") or config.plugins.get("search")
    if search is None or not search.config.get("separator"):
        return config
    words = stop_word_separator(STOP_WORDS)
    if words not in search.config.separator:  # on_config runs again for each language
        search.config.separator = f"{search.config.separator}|{words}"
    return config


# -- 2. code blocks out of the index ------------------------------------------------------------


def exclude_code_blocks(html: str, keep_printed: bool = False) -> str:
    """Every code block (``div.highlight``) marked for Material's search to leave out, but
    messages and outputs where ``keep_printed``."""

    def mark(match: re.Match) -> str:
        if keep_printed and PRINTED & set(match[1].split()):
            return match[0]
        return f'{match[0]} data-search-exclude="code"'

    return CODE_BLOCK.sub(mark, html)


def on_page_content(html, page, config, files):
    return exclude_code_blocks(html, keep_printed=page.meta.get("search_outputs") is True)


# -- 3. one index per language ---------------------------------------------------------------------


def _i18n(config):
    return config.plugins.get("i18n")


def languages(config) -> tuple[str, list[str]]:
    """(default language, every built language); ("", []) without the i18n plugin."""
    i18n = _i18n(config)
    if i18n is None:
        return "", []
    return i18n.default_language, list(i18n.build_languages)


def language_of(location: str, others: list[str]) -> str | None:
    """The non-default language whose prefix a location has, else None (the default)."""
    return next((lang for lang in others if location.startswith(f"{lang}/")), None)


def split_index(data: dict, default: str, langs: list[str]) -> dict[str, dict]:
    """Language -> its own search index: the entries of its pages, located below its prefix."""
    others = [lang for lang in langs if lang != default]
    docs: dict[str, list] = {lang: [] for lang in langs}
    for doc in data["docs"]:
        lang = language_of(doc["location"], others)
        if lang is None:
            docs[default].append(doc)
        else:
            docs[lang].append({**doc, "location": doc["location"][len(lang) + 1 :]})
    configured = data["config"].get("lang") or []
    return {
        lang: {
            **data,
            "config": {**data["config"], "lang": [lang] if lang in configured else configured},
            "docs": entries,
        }
        for lang, entries in docs.items()
    }


def language_base(base: str, lang: str) -> str:
    """A page's ``base`` (the site root, relative to the page) moved to its language's root.
    The trailing slash matters: the browser resolves ``search/…`` against it."""
    return posixpath.normpath(posixpath.join(base, lang)) + "/"


def _with_config(html: str, change) -> str:
    """The page with ``change(app)`` applied to its ``__config``."""

    def rewrite(match: re.Match) -> str:
        app = json.loads(match[2])
        change(app)
        return match[1] + json.dumps(app) + match[3]

    return CONFIG_SCRIPT.sub(rewrite, html, count=1)


def with_base(html: str, lang: str) -> str:
    """The page with its ``__config`` base at its language's root."""

    def rebase(app: dict) -> None:
        app["base"] = language_base(app["base"], lang)

    return _with_config(html, rebase)


# -- 4. queries read as pasted -----------------------------------------------------------------

PASTE_WORKER = "search-as-pasted.js"  # overrides/assets/javascripts/workers/


def paste_worker_url(material: str) -> str:
    """Material's worker URL (relative to the page) -> ours, in the same folder, naming
    Material's worker (``…/search.<hash>.min.js``) in ``?material=``."""
    folder, _, name = material.rpartition("/")
    if not re.fullmatch(r"search\.[0-9a-f]+\.min\.js", name):
        raise ValueError(f"{material!r}: not Material's search worker (search.<hash>.min.js)")
    return (
        f"{folder}/{PASTE_WORKER}?material={name}" if folder else f"{PASTE_WORKER}?material={name}"
    )


def with_paste_worker(html: str) -> str:
    """The page with its ``__config`` search worker replaced by the one that reads queries as
    pasted (once: a page already pointing at it is left as it is)."""

    def swap(app: dict) -> None:
        if app.get("search") and PASTE_WORKER not in app["search"]:
            app["search"] = paste_worker_url(app["search"])

    return _with_config(html, swap)


def on_post_page(output, page, config):
    output = with_paste_worker(output)
    default, _ = languages(config)
    lang = getattr(page.file, "locale", None) or default
    if not default or lang == default:
        return output
    return with_base(output, lang)


@event_priority(-200)  # after mkdocs-static-i18n (-100), which wrote the merged index
def on_post_build(config):
    split_written_index(config)


def split_written_index(config) -> None:
    """The merged index the build wrote, split into one per language (undecorated: mutmut does
    not mutate a decorated function)."""
    i18n = _i18n(config)
    if i18n is None or getattr(i18n, "building", False):
        return  # no languages, or a nested build of one language: the last pass splits
    default, langs = languages(config)
    site = Path(config["site_dir"])
    merged = site / INDEX
    if not merged.is_file():
        return  # search disabled
    data = json.loads(merged.read_text(encoding="utf-8"))
    for lang, index in split_index(data, default, langs).items():
        target = site / INDEX if lang == default else site / lang / INDEX
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(
            json.dumps(index, ensure_ascii=False, separators=(",", ":")), encoding="utf-8"
        )
