"""Search as a reader uses it: type a query in the header's search box, read the results."""

from __future__ import annotations

from urllib.parse import urlsplit

import pytest
from sitemodel import lang_prefix

pytestmark = pytest.mark.e2e

TOP = 3  # a page of the right article (its overview or a sub-page) among the first listed

CASES = {
    # test id: (language of the site searched, query, the article (section) it must find)
    "zh-gradient-accumulation": ("zh", "梯度累积", "accumulation/"),
    "zh-leaf-tensor": ("zh", "叶子张量", "inplace/"),
    "en-version-counter": ("en", "version counter", "inplace/"),
    "en-gradient-accumulation": ("en", "gradient accumulation", "accumulation/"),
}


@pytest.mark.parametrize(("lang", "query", "article"), CASES.values(), ids=CASES.keys())
def test_search_finds_the_article(lang, query, article, site_dir, base_url, new_page):
    page, _ = new_page()
    page.goto(base_url + lang_prefix(lang))
    box = page.locator("input.md-search__input")
    opener = page.locator("label.md-header__button[for='__search']")
    if not box.is_visible():  # narrow screens: open the search overlay first
        opener.click()
    box.click()
    box.fill(query)
    box.press("End")  # Material reads the query on keyup
    items = page.locator(".md-search-result__list > .md-search-result__item")
    items.first.wait_for(state="visible")
    hrefs = items.evaluate_all(
        "items => items.map(li => li.querySelector('a.md-search-result__link').href)"
    )
    found = []
    for href in hrefs:
        path = urlsplit(href).path.lstrip("/")  # without ?h= (highlight) and #section
        if path not in found:
            found.append(path)
    expected = lang_prefix(lang) + article
    assert any(path.startswith(expected) for path in found[:TOP]), (
        f"{query!r} on /{lang_prefix(lang)}: top pages {found[:8]}"
    )
