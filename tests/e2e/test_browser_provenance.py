"""Provenance in a real browser: a reader who doubts a number finds the claim, the code and the
run in one hop. Hovering a value shows its claim and environment; clicking it opens its row on
the verification page, which names the snippet and the claims file and links back to the
section that states it."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from browserkit import TIMEOUT_MS, VIEWPORT, without_search
from sitemodel import LANGS, article_keys, lang_prefix

pytestmark = pytest.mark.e2e


def first_visible_value(page):
    """The first claim value the reader can see (values inside hidden tabs do not count)."""
    values = page.locator("article a.claim-value")
    count = values.count()
    assert count > 0, "no claim value on the page"
    for i in range(count):
        value = values.nth(i)
        if value.is_visible():
            return value
    raise AssertionError(f"none of the {count} claim values is visible")


@pytest.fixture(scope="module")
def reader(browser, base_url):
    """``reader(lang)``: a page of one context (one per worker) for the articles, and that
    language's verification page, loaded once: a value's link and the link back only change the
    fragment of a page that is already open (a same-document navigation, as a reader's browser
    makes for a link into the page it shows), instead of loading the verification page, the
    heaviest page of the site, once per value. The links are plain anchors (no script handles
    their clicks), so following one is going to its ``href``; that each page loads cleanly,
    with no failed request, console or page error, is checked for every page of the site by
    test_browser_pages.py::test_page_loads_clean_and_self_contained."""
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    without_search(context)  # no test here searches
    article = context.new_page()
    verification: dict[str, object] = {}

    def get(lang: str):
        if lang not in verification:
            page = context.new_page()
            response = page.goto(base_url + lang_prefix(lang) + "verification/")
            assert response is not None and response.status == 200, response
            verification[lang] = page
        return article, verification[lang]

    try:
        yield get
    finally:
        context.close()


def on_screen(locator) -> bool:
    """Inside the viewport: the browser scrolled to it."""
    return locator.evaluate(
        "e => { const b = e.getBoundingClientRect(); return b.bottom > 0 && b.top < innerHeight }"
    )


def follow(link) -> str:
    """Where a click on ``link`` goes: its resolved address, checked to open in the same tab."""
    assert link.get_attribute("target") in (None, "_self"), link.get_attribute("target")
    return link.evaluate("a => a.href")


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", article_keys())
def test_a_value_leads_to_its_claim_and_back(lang, key, base_url, reader):
    page, verification = reader(lang)
    page.bring_to_front()
    response = page.goto(base_url + lang_prefix(lang) + key)
    assert response is not None and response.status == 200, response
    value = first_visible_value(page)
    claim = value.get_attribute("data-claim")
    framework = value.get_attribute("data-framework")
    title = value.get_attribute("title") or ""
    assert claim in title and framework.lower() in title.lower(), title
    shown = value.inner_text().strip()
    assert shown, f"the value of {claim} shows nothing"

    anchor = f"c-{claim.replace('.', '-')}-{framework}"
    target = follow(value)
    assert target == f"{base_url}{lang_prefix(lang)}verification/#{anchor}", target
    verification.bring_to_front()  # browserkit.BEHIND: the page used is the one in front
    verification.goto(target)  # only the fragment changes: the row is scrolled to
    assert verification.url == target, verification.url
    row = verification.locator(f"tr:has(#{anchor})")
    assert row.count() == 1, f"no single row for #{anchor} on {verification.url}"
    assert row.is_visible() and on_screen(row), f"the row of #{anchor} is not on screen"
    text = row.inner_text()
    assert f"_{framework}.py" in text and "claims.toml" in text, text

    # the claim's first row (its statement) links back to the sections that state it
    first = verification.locator(f"tr:has(#c-{claim.replace('.', '-')})")
    back = first.locator(f"a[href*='{key.strip('/')}/#']").first
    assert back.count() == 1, f"no link back to {key} in the row of {claim}"
    section = unquote(back.get_attribute("href").split("#", 1)[1])  # Chinese anchors
    target = follow(back)
    assert unquote(target) == f"{base_url}{lang_prefix(lang)}{key}#{section}", target
    page.bring_to_front()
    page.goto(target)  # the article is the page open in the other tab: the fragment changes
    assert unquote(page.url).endswith(f"{key}#{section}"), page.url
    heading = page.locator(f"[id='{section}']")
    assert heading.count() == 1 and heading.is_visible() and on_screen(heading), section
