"""content.tabs.link in a real browser: choosing a framework in one code tab switches every
tab on the page, and the choice follows the reader to the next article (and to the other
language)."""

from __future__ import annotations

import contextlib

import pytest
from sitemodel import article_keys, lang_prefix, page_at, parse

pytestmark = pytest.mark.e2e

FRAMEWORKS = ("PaddlePaddle", "PyTorch")  # the tab titles of the contract (snippets/README.md)

# For each tab set with both framework tabs: the selected label and which blocks are visible.
STATE_JS = """
() => [...document.querySelectorAll('.tabbed-set')].map((set, n) => {
  const labels = [...set.querySelectorAll(':scope > .tabbed-labels > label')];
  const names = labels.map(l => l.textContent.trim());
  const checked = set.querySelector(':scope > input:checked');
  const selected = labels.find(l => checked && l.htmlFor === checked.id);
  const blocks = [...set.querySelectorAll(':scope > .tabbed-content > .tabbed-block')];
  const visible = blocks.map(b => b.getClientRects().length > 0);
  return {n, names, selected: selected ? selected.textContent.trim() : null,
          selectedIndex: selected ? labels.indexOf(selected) : -1,
          visible: visible.map((v, i) => v ? i : -1).filter(i => i >= 0)};
})
"""


def framework_sets(page) -> list[dict]:
    return [s for s in page.evaluate(STATE_JS) if all(f in s["names"] for f in FRAMEWORKS)]


def wrong_sets(page, framework: str) -> list[dict]:
    return [
        s
        for s in framework_sets(page)
        if s["selected"] != framework or s["visible"] != [s["selectedIndex"]]
    ]


def expect_all(page, framework: str, where: str) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    # wait until they all switched; on a timeout, the assertion below says which sets did not
    with contextlib.suppress(PlaywrightTimeout):
        page.wait_for_function(
            f"() => ({STATE_JS})().filter(s => s.names.includes('PaddlePaddle') && "
            f"s.names.includes('PyTorch')).every(s => s.selected === {framework!r} && "
            "s.visible.length === 1 && s.visible[0] === s.selectedIndex)",
            timeout=5_000,
        )
    wrong = wrong_sets(page, framework)
    assert not wrong, f"{where}: after choosing {framework}, these tab sets differ: {wrong}"


def articles_with_tabs(lang: str) -> list[str]:
    found = []
    for key in article_keys():
        page = page_at(lang_prefix(lang) + key)
        if page and any(n.has_class("tabbed-set") for n in parse(page.file).iter("div")):
            found.append(page.path)
    return found


def test_choice_switches_every_tab_and_persists(site_dir, base_url, cold_page):
    articles = articles_with_tabs("en")
    assert len(articles) >= 2, (
        f"need two articles with framework tabs to test persistence, found {articles} "
        f"(articles in the nav: {article_keys()})"
    )
    first, second = articles[0], articles[1]
    page, _ = cold_page()
    page.goto(base_url + first)
    sets = framework_sets(page)
    assert len(sets) >= 2, f"/{first}: {len(sets)} tab sets with both frameworks"
    assert all(s["selected"] == FRAMEWORKS[0] for s in sets), "the default tab is not the first"

    def choose(framework: str, set_index: int) -> None:
        labels = (
            page.locator(".tabbed-set").nth(set_index).locator(":scope > .tabbed-labels > label")
        )
        labels.filter(has_text=framework).first.click()

    choose("PyTorch", sets[0]["n"])  # in the first set
    expect_all(page, "PyTorch", f"/{first}")
    choose("PaddlePaddle", sets[0]["n"])  # and back, in the same set
    expect_all(page, "PaddlePaddle", f"/{first}")
    choose("PyTorch", sets[-1]["n"])  # from the last set, far down the page; PyTorch is not
    expect_all(page, "PyTorch", f"/{first}")  # the default, so persistence below shows

    page.goto(base_url + second)  # the next article
    assert framework_sets(page), f"/{second}: no framework tab sets"
    expect_all(page, "PyTorch", f"/{second} (next article)")

    zh = lang_prefix("zh") + second
    if page_at(zh):
        page.goto(base_url + zh)  # and the same article in Chinese
        expect_all(page, "PyTorch", f"/{zh} (other language)")
