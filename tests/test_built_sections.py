"""Articles as sections, checked on the built HTML: every sub-page opens with its answer (with
values from the report), every overview links the error index from its answer, and the
overviews carry the map that sends links to the old single pages' headings to their new place.

Run after the build: `pytest -m site tests`. The first screen itself is measured in a browser
(tests/e2e/test_browser_sections.py).
"""

from __future__ import annotations

import json
from urllib.parse import unquote, urljoin, urlsplit

import pytest
from sitemodel import SITE, Node, article_keys, content, lang_prefix, page_at, parse, site_exists

from verified.anchor_hooks import SCRIPT_ID, old_anchors

pytestmark = pytest.mark.site

ORIGIN = "http://site.invalid/"
LANGS = ("en", "zh")


@pytest.fixture(scope="module", autouse=True)
def _site():
    if not site_exists():
        pytest.fail(f"no built site at {SITE}: build it first")


def sections() -> list[str]:
    """The articles that are sections: their overview keys (``inplace/``)."""
    keys = article_keys()
    return [k for k in keys if any(o != k and o.startswith(k) for o in keys)]


def sub_pages() -> list[str]:
    overviews = sections()
    return [k for k in article_keys() if k not in overviews]


def first_block(doc: Node) -> Node | None:
    """The first element after the page's h1 in the article (the notebook box aside)."""
    article = content(doc)
    seen_h1 = False
    for node in article.iter():
        if node.tag == "h1":
            seen_h1 = True
            continue
        if seen_h1 and node.parent is not None and node.parent.tag == "h1":
            continue
        if seen_h1 and node.tag in ("div", "p", "details", "table", "ul", "ol", "h2"):
            return node
    return None


def answer(doc: Node) -> Node | None:
    for node in content(doc).iter("div", "details"):
        if node.has_class("admonition") and node.has_class("answer"):
            return node
    return None


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", sub_pages())  # every one: none is exempt
def test_every_sub_page_opens_with_its_answer(key, lang):
    page = page_at(lang_prefix(lang) + key)
    assert page is not None, f"/{lang_prefix(lang)}{key} was not built"
    doc = parse(page.file)
    first = first_block(doc)
    block = answer(doc)
    assert block is not None and first is block, (
        f"/{page.path}: the first block after the title is {first and first.tag} "
        f"{first and first.attrs.get('class')}, not the answer (!!! abstract answer)"
    )
    values = [a for a in block.iter("a") if a.has_class("claim-value")]
    assert values, f"/{page.path}: the answer quotes no observed value"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", sections())
def test_overview_answers_first_and_links_the_error_index(key, lang):
    page = page_at(lang_prefix(lang) + key)
    doc = parse(page.file)
    block = answer(doc)
    assert block is not None and first_block(doc) is block, f"/{page.path}: no answer first"
    hrefs = [a.attrs.get("href", "") for a in block.iter("a")]
    errors = [
        h for h in hrefs if urlsplit(urljoin(ORIGIN + page.path, h)).path.endswith("/errors/")
    ]
    assert errors, f"/{page.path}: the answer does not link the error index ({hrefs})"
    assert any(a.has_class("claim-value") for a in block.iter("a")), f"/{page.path}: no values"
    # every page of the section is linked from the overview
    linked = {urlsplit(urljoin(ORIGIN + page.path, h)).path for h in hrefs}
    linked |= {
        urlsplit(urljoin(ORIGIN + page.path, a.attrs.get("href", ""))).path
        for a in content(doc).iter("a")
    }
    missing = [
        k for k in sub_pages() if k.startswith(key) and f"/{lang_prefix(lang)}{k}" not in linked
    ]
    assert not missing, f"/{page.path}: does not link {missing}"


def anchor_map(doc: Node) -> dict[str, str] | None:
    for node in doc.iter("script"):
        if node.attrs.get("id") == SCRIPT_ID:
            return json.loads(node.text())
    return None


def ids(file) -> set[str]:
    return {n.attrs["id"] for n in parse(file).iter() if n.attrs.get("id")}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", sections())
def test_old_anchors_lead_to_existing_sections(key, lang):
    """Every heading id of the old single page has an entry (as many in each language), and
    each entry leads to a page and an id that exist."""
    article = key.strip("/")
    declared = old_anchors().get(article, {})
    assert set(declared) == set(LANGS), f"old-anchors.toml: [{article}.*] for {sorted(declared)}"
    counts = {lang_: len(entries) for lang_, entries in declared.items()}
    assert len(set(counts.values())) == 1, f"old-anchors.toml [{article}]: {counts} ids"
    page = page_at(lang_prefix(lang) + key)
    doc = parse(page.file)
    urls = anchor_map(doc)
    assert urls is not None, f"/{page.path}: no #{SCRIPT_ID} map"
    here = ids(page.file)
    problems = []
    for old_id, target in declared[lang].items():
        if old_id in here:
            continue  # still on the overview: nothing to follow
        url = urls.get(old_id)
        if url is None:
            if target.partition("#")[0] == "index.md" and "#" not in target:
                continue  # the overview itself
            problems.append(f"{old_id}: not in the page's map")
            continue
        parts = urlsplit(urljoin(ORIGIN + page.path, url))
        file = SITE / parts.path.lstrip("/") / "index.html"
        if not file.is_file():
            problems.append(f"{old_id}: {url} does not exist")
        elif parts.fragment and unquote(parts.fragment) not in ids(file):
            problems.append(f"{old_id}: no id {unquote(parts.fragment)!r} in {parts.path}")
    assert not problems, f"/{page.path}:\n" + "\n".join(problems)
