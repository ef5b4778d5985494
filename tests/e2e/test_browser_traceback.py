"""The traceback box in Chromium, in each language: every message the reports hold (each
framework, each release of the matrix) opens its entry of the error index, or links to the
section of another page that answers it where no entry does, and names the framework and the
releases that print it, exactly as the reports hold it, as another run or
release prints it, and inside a whole traceback; ten messages the site does not cover get
"not covered here", the closest entries and the casebook; every page's header links to the box.

The cases are every message of the asset that verified/tracebacks.py builds from the reports
(build/claims.json, results/*.json), each as the reports hold it and varied
(tests/tracebackcases.py); tests/test_tracebacks.py checks that the asset holds every message
the claims observed. Each language's cases run in
one page of its error index, loaded once.
"""

from __future__ import annotations

from urllib.parse import unquote

import pytest
from sitemodel import LANGS, lang_prefix
from tracebackcases import NOT_COVERED, cases

from verified import tracebacks
from verified.claims import ROOT
from verified.report import Reports

pytestmark = pytest.mark.e2e

NOT_COVERED_WORDS = {"en": "Not covered here", "zh": "本站未收录"}

# Every paste in one call: the box's value set, its button pressed, its result read.
PASTE_ALL_JS = """
(pastes) => {
  const box = document.querySelector('[data-traceback-box]');
  const input = box.querySelector('textarea');
  const button = box.querySelector('button');
  const result = box.querySelector('.traceback-result');
  return pastes.map((text) => {
    history.replaceState(null, '', location.pathname);
    input.value = text;
    button.click();
    const releases = {};
    result.querySelectorAll('.traceback-releases').forEach((p) => {
      releases[p.dataset.framework] = p.dataset.releases.split(' ');
    });
    return {
      status: result.dataset.status,
      entry: result.dataset.entry || null,
      hash: location.hash.slice(1),
      found: (result.querySelector('.traceback-found a') || {}).href || null,
      releases,
      text: result.textContent,
      closest: [...result.querySelectorAll('.traceback-closest a')].map(
        (a) => a.getAttribute('href').slice(1)),
      casebook: (result.querySelector('.traceback-casebook a') || {}).href || null,
    };
  });
}
"""


@pytest.fixture(scope="module")
def assets() -> dict:
    return tracebacks.build(Reports(), ROOT / "docs", LANGS)


@pytest.fixture(scope="module")
def box_page(browser, base_url, site_dir):
    """``box_page(lang)``: that language's error index, loaded once, its box ready."""
    from browserkit import TIMEOUT_MS, VIEWPORT

    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    opened = {}

    def get(lang: str):
        if lang not in opened:
            page = context.new_page()
            page.goto(base_url + lang_prefix(lang) + "errors/")
            page.wait_for_selector("[data-traceback-box][data-ready='true']")
            opened[lang] = page
        opened[lang].bring_to_front()  # browserkit.BEHIND: the page used is the one in front
        return opened[lang]

    try:
        yield get
    finally:
        context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_every_verified_message_opens_its_entry(lang, assets, box_page, base_url):
    """An entry of the error index opens (its fragment); a message that only another page
    shows links to that page's section (``href``, below the language's root)."""
    wanted = cases(assets[lang])
    elsewhere = {e["id"]: e["href"] for e in assets[lang]["entries"] if e.get("href")}
    assert elsewhere, "no message is answered outside the error index"
    assert len(wanted) >= 4 * 40, len(wanted)
    got = box_page(lang).evaluate(PASTE_ALL_JS, [c["text"] for c in wanted])
    failures = []
    for case, shown in zip(wanted, got, strict=True):
        problem = None
        if shown["status"] != "found":
            problem = f"status {shown['status']}: {shown['text'][:160]}"
        elif shown["entry"] not in case["entries"]:
            problem = f"opened {shown['entry']}, wanted {case['entries']}"
        elif shown["entry"] in elsewhere:  # a section of another page: linked, not opened
            want = base_url + lang_prefix(lang) + elsewhere[shown["entry"]]
            if unquote(shown["found"] or "") != want or shown["hash"] != "":
                problem = f"linked {shown['found']} (hash {shown['hash']!r}), wanted {want}"
        elif shown["hash"] != shown["entry"]:
            problem = f"opened #{shown['hash']} ({shown['entry']}), wanted {case['entries']}"
        elif not set(case["releases"]) <= set(shown["releases"].get(case["framework"], [])):
            problem = f"releases shown {shown['releases']}, printed by {case['releases']}"
        if problem:
            failures.append(f"{case['name']}: {problem}")
    assert not failures, f"{len(failures)} of {len(wanted)}:\n" + "\n".join(failures[:20])


@pytest.mark.parametrize("lang", LANGS)
def test_a_section_the_box_links_to_is_on_its_page(lang, assets, base_url, shared_page):
    """Each section of another page that the box links to is a heading of that built page."""
    others = [e for e in assets[lang]["entries"] if e.get("href")]
    assert others
    for entry in others:
        path, anchor = entry["href"].split("#", 1)
        response = shared_page.goto(base_url + lang_prefix(lang) + path)
        assert response is not None and response.status == 200, (entry, response)
        heading = shared_page.locator(f"article :is(h1, h2, h3, h4)[id='{anchor}']")
        assert heading.count() == 1, entry
        assert heading.inner_text().strip().rstrip("¶").strip() == entry["title"], entry


@pytest.mark.parametrize("lang", LANGS)
def test_a_message_the_site_does_not_cover_gets_not_covered_here(lang, box_page):
    casebook = (ROOT / "docs" / lang / "casebook.md").is_file()
    got = box_page(lang).evaluate(PASTE_ALL_JS, list(NOT_COVERED))
    for message, shown in zip(NOT_COVERED, got, strict=True):
        assert shown["status"] == "not-covered", (message, shown)
        assert NOT_COVERED_WORDS[lang] in shown["text"], shown["text"]
        assert len(shown["closest"]) == 3 and shown["hash"] == "", shown
        if casebook:  # the casebook's page, where the other session's page exists
            assert shown["casebook"] and shown["casebook"].endswith(
                f"/{lang_prefix(lang)}casebook/"
            ), shown["casebook"]
        else:
            assert shown["casebook"] is None, shown["casebook"]


@pytest.mark.parametrize("lang", LANGS)
def test_a_traceback_typed_into_the_box_opens_its_entry(lang, assets, box_page):
    """As a reader does it: the text typed into the box, then Ctrl+Enter."""
    page = box_page(lang)
    item = next(m for m in assets[lang]["messages"] if m["entry"] == "second-backward")
    box = page.locator("[data-traceback-box] textarea")
    box.fill(item["text"])
    box.press("Control+Enter")
    page.wait_for_function("() => location.hash === '#second-backward'")
    found = page.locator(".traceback-found a")
    assert found.get_attribute("href") == "#second-backward"
    title = next(e["title"] for e in assets[lang]["entries"] if e["id"] == "second-backward")
    assert found.text_content() == title


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("path", ["", "inplace/leaf-tensors/", "accumulation/recipe/"])
def test_every_page_header_links_to_the_box(lang, path, base_url, shared_page):
    shared_page.goto(base_url + lang_prefix(lang) + path)
    link = shared_page.locator(".md-header .traceback-header-link")
    assert link.count() == 1
    assert link.text_content() == tracebacks.WORDS[lang]["header"]
    href = link.get_attribute("href")
    assert href == f"{base_url}{lang_prefix(lang)}errors/#traceback", href
