"""Provenance in a real browser: a reader who doubts a number finds the claim, the code and the
run in one hop. Hovering a value shows its claim and environment; clicking it opens its row on
the verification page, which names the snippet and the claims file and links back to the
section that states it."""

from __future__ import annotations

from urllib.parse import unquote

import pytest
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


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", article_keys())
def test_a_value_leads_to_its_claim_and_back(lang, key, base_url, new_page):
    page, traffic = new_page()
    page.goto(base_url + lang_prefix(lang) + key)
    # as a reader would: the page has finished loading (the search worker fetches its scripts
    # after the load event; leaving before, as a click can, aborts them: not a site problem)
    page.wait_for_load_state("networkidle")
    value = first_visible_value(page)
    claim = value.get_attribute("data-claim")
    framework = value.get_attribute("data-framework")
    title = value.get_attribute("title") or ""
    assert claim in title and framework.lower() in title.lower(), title
    shown = value.inner_text().strip()
    assert shown, f"the value of {claim} shows nothing"

    value.click()
    page.wait_for_load_state("networkidle")
    anchor = f"c-{claim.replace('.', '-')}-{framework}"
    assert page.url.endswith(f"/verification/#{anchor}"), page.url
    row = page.locator(f"tr:has(#{anchor})")
    assert row.count() == 1, f"no single row for #{anchor} on {page.url}"
    assert row.is_visible()
    text = row.inner_text()
    assert f"_{framework}.py" in text and "claims.toml" in text, text

    # the claim's first row (its statement) links back to the sections that state it
    first = page.locator(f"tr:has(#c-{claim.replace('.', '-')})")
    back = first.locator(f"a[href*='{key.strip('/')}/#']").first
    assert back.count() == 1, f"no link back to {key} in the row of {claim}"
    section = unquote(back.get_attribute("href").split("#", 1)[1])  # Chinese anchors
    back.click()
    page.wait_for_load_state()
    assert unquote(page.url).endswith(f"{key}#{section}"), page.url
    heading = page.locator(f"[id='{section}']")
    assert heading.count() == 1 and heading.is_visible()
    problems = traffic.problems()
    # a click that leaves a page cancels what it was still loading (the search worker fetches
    # its scripts after the load event): the reader's navigation, not a fault of the site
    problems["failed requests"] = [f for f in problems["failed requests"] if "ERR_ABORTED" not in f]
    problems = {k: v for k, v in problems.items() if v}
    assert not problems, problems
