"""The built site as data: its pages, their language, kind and counterpart, parsed HTML.

Shared by the checks over the built HTML (tests/test_built_site.py) and the browser tests
(tests/e2e/). Everything is discovered from the built site and the nav in mkdocs.yml, so the
tests follow the content as it changes. `AUTOGRAD_SITE_DIR` points the tests at another build.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cache
from html.parser import HTMLParser
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SITE = Path(os.environ.get("AUTOGRAD_SITE_DIR", ROOT / "site")).resolve()
ARTEFACTS = ROOT / "build" / "e2e"
LANGS = ("en", "zh")
DEFAULT_LANG = "en"  # built at the site root; the others under <lang>/
ARTICLES_SECTION = "Articles"  # the nav section whose pages are the articles
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")

NO_SITE = (
    f"no built site at {SITE}: build it first (`nox -s e2e` does; by hand: "
    "`pytest snippets -q` then `python -m properdocs build --strict -f mkdocs.yml`)"
)


# -- pages ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Page:
    path: str  # URL path below the site root: "" (home), "inplace/", "zh/notebooks/x/"
    lang: str
    key: str  # the path without the language prefix: the same for both languages
    kind: str  # "article", "notebook" or "page"

    @property
    def file(self) -> Path:
        return SITE / self.path / "index.html"

    @property
    def name(self) -> str:  # for test ids and artefact names: "en-home", "zh-inplace"
        return f"{self.lang}-" + (self.key.strip("/").replace("/", "-") or "home")

    def counterpart(self, lang: str) -> str:
        return lang_prefix(lang) + self.key


def lang_prefix(lang: str) -> str:
    return "" if lang == DEFAULT_LANG else f"{lang}/"


def split_lang(path: str) -> tuple[str, str]:
    for lang in LANGS:
        if lang != DEFAULT_LANG and (path == f"{lang}/" or path.startswith(f"{lang}/")):
            return lang, path[len(lang) + 1 :]
    return DEFAULT_LANG, path


class _IgnoreTags(yaml.SafeLoader):
    """mkdocs.yml uses !relative and !!python tags; the nav needs none of them."""


def _env(loader, node):
    """MkDocs' ``!ENV NAME`` / ``!ENV [NAME, ..., default]``: the first variable that is set."""
    if isinstance(node, yaml.ScalarNode):
        names, default = [loader.construct_scalar(node)], None
    else:
        *names, default = loader.construct_sequence(node)
    for name in names:
        if name in os.environ:
            return yaml.safe_load(os.environ[name])
    return default


_IgnoreTags.add_constructor("!ENV", _env)
_IgnoreTags.add_multi_constructor("", lambda loader, suffix, node: None)
_IgnoreTags.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)


@cache
def mkdocs_config() -> dict:
    return yaml.load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"), Loader=_IgnoreTags)


def _md_to_key(md: str) -> str:
    stem = md.removesuffix(".md").removesuffix(".ipynb")
    if stem == "index":
        return ""
    return stem.removesuffix("/index") + "/"


def nav_keys(section: str | None = None) -> list[str]:
    """Page keys in nav order (of one top-level section, if named)."""

    def walk(items) -> list[str]:
        out = []
        for item in items or []:
            if isinstance(item, str):
                out.append(_md_to_key(item))
            elif isinstance(item, dict):
                for title, value in item.items():
                    if section is not None and title == section:
                        return walk(value) if isinstance(value, list) else [_md_to_key(value)]
                    out += walk(value) if isinstance(value, list) else [_md_to_key(value)]
        return out

    nav = mkdocs_config()["nav"]
    if section is None:
        return walk(nav)
    for item in nav:
        if isinstance(item, dict) and section in item:
            return walk(item[section])
    raise LookupError(f"no nav section {section!r} in mkdocs.yml")


def article_keys() -> list[str]:
    return nav_keys(ARTICLES_SECTION)


def site_exists() -> bool:
    return (SITE / "index.html").is_file()


@cache
def pages() -> tuple[Page, ...]:
    """Every HTML page of the built site (both languages), in a stable order."""
    if not site_exists():
        return ()
    articles = set(article_keys())
    found = []
    for file in sorted(SITE.rglob("*.html")):
        rel = file.relative_to(SITE).as_posix()
        if rel == "404.html" or rel.endswith("/404.html"):
            continue
        path = rel.removesuffix("index.html")
        lang, key = split_lang(path)
        if key in articles:
            kind = "article"
        elif "/notebooks/" in f"/{key}":
            kind = "notebook"
        else:
            kind = "page"
        found.append(Page(path=path, lang=lang, key=key, kind=kind))
    order = {k: i for i, k in enumerate(nav_keys())}
    found.sort(key=lambda p: (LANGS.index(p.lang), order.get(p.key, len(order)), p.key))
    return tuple(found)


def pages_of(kind: str | None = None, lang: str | None = None) -> list[Page]:
    return [
        p for p in pages() if (kind is None or p.kind == kind) and (lang is None or p.lang == lang)
    ]


def page_at(path: str) -> Page | None:
    return next((p for p in pages() if p.path == path), None)


# -- a small DOM over html.parser (no third-party parser needed) ------------------------------

VOID = {
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
    "source", "track", "wbr",
}  # fmt: skip


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    parent: Node | None = None
    children: list[Node | str] = field(default_factory=list)
    line: int = 0

    def iter(self, *tags: str):
        for child in self.children:
            if isinstance(child, Node):
                if not tags or child.tag in tags:
                    yield child
                yield from child.iter(*tags)

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def has_class(self, name: str) -> bool:
        return name in self.attrs.get("class", "").split()

    def ancestors(self):
        node = self.parent
        while node is not None:
            yield node
            node = node.parent


class _TreeBuilder(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        node = Node(tag, {k: (v or "") for k, v in attrs}, self.stack[-1], line=self.getpos()[0])
        self.stack[-1].children.append(node)
        if tag not in VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag, attrs):
        node = Node(tag, {k: (v or "") for k, v in attrs}, self.stack[-1], line=self.getpos()[0])
        self.stack[-1].children.append(node)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        self.stack[-1].children.append(data)


@cache
def parse(file: Path) -> Node:
    builder = _TreeBuilder()
    builder.feed(file.read_text(encoding="utf-8"))
    builder.close()
    return builder.root


def content(doc: Node) -> Node:
    """The page's article (Material: <article class="md-content__inner">), else the body."""
    for node in doc.iter("article"):
        if node.has_class("md-content__inner"):
            return node
    return next(doc.iter("body"), doc)
