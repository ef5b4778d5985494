"""Notebook pages and downloads in a real browser: each notebook page renders its cells with
their outputs (not raw JSON: rendered_notebook_problems, called by the page-load test of
test_browser_pages.py, which loads every page once), each article links its notebooks, and
every download link gives a valid, executed .ipynb. Nothing here is skipped: no notebook pages
is a failure."""

from __future__ import annotations

import json
import posixpath
from urllib.parse import quote, urlsplit

import nbformat
import pytest
from sitemodel import CJK, LANGS, Page, content, lang_prefix, pages_of, parse

pytestmark = pytest.mark.e2e

RAW_JSON_MARKERS = ('"cell_type":', '"nbformat":')


@pytest.mark.parametrize("lang", LANGS)
def test_there_are_notebook_pages(lang, site_dir):
    """Each notebook page is rendered and checked (rendered_notebook_problems) in the page-load
    test of test_browser_pages.py, which loads every page; a language without one fails here."""
    assert pages_of("notebook", lang), (
        f"no notebook pages in the {lang} site (expected under /{lang_prefix(lang)}notebooks/)"
    )


def rendered_notebook_problems(page, where: str, lang: str) -> list[str]:
    """What is wrong with a loaded notebook page: it shows raw notebook JSON, no cells or no
    code cells, no output or outputs that are not visible, or (zh) no Chinese."""
    text = page.locator("article").inner_text()
    if any(marker in text for marker in RAW_JSON_MARKERS):
        return [f"{where}: shows raw notebook JSON (TOOLCHAIN trap 1)"]
    problems = []
    cells = page.locator(".jupyter-wrapper .jp-Cell").count()
    code = page.locator(".jupyter-wrapper .jp-CodeCell").count()
    outputs = page.locator(".jupyter-wrapper .jp-OutputArea-output")
    shown = [t for t in outputs.all_inner_texts() if t.strip()]
    if not cells or not code:
        problems.append(f"{where}: {cells} cells, {code} code cells rendered")
    elif not shown:
        problems.append(f"{where}: {code} code cells but no output rendered")
    elif not outputs.first.is_visible():
        problems.append(f"{where}: outputs are not visible")
    if lang == "zh" and not CJK.search(text):
        problems.append(f"{where}: no Chinese text on a zh notebook page")
    if cells:  # docs/stylesheets/claims.css: a cell is rendered when it comes near the screen
        lazy = page.locator(".jupyter-wrapper .jp-Cell").first.evaluate(
            "cell => getComputedStyle(cell).contentVisibility"
        )
        if lazy != "auto":
            problems.append(
                f"{where}: every cell is rendered at load (content-visibility {lazy!r}, not 'auto')"
            )
    return problems


def check_notebook(raw: bytes, where: str, lang: str) -> list[str]:
    try:
        notebook = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(notebook)
    except (
        UnicodeDecodeError,
        json.JSONDecodeError,
        nbformat.reader.NotJSONError,
        nbformat.ValidationError,
    ) as exc:
        return [f"{where}: not a valid notebook: {type(exc).__name__}: {str(exc)[:200]}"]
    code = [c for c in notebook.cells if c.cell_type == "code"]
    problems = []
    if not code:
        problems.append(f"{where}: no code cells")
    elif not any(c.get("outputs") for c in code):
        problems.append(f"{where}: {len(code)} code cells, none with outputs (not executed?)")
    if lang == "zh":
        prose = "".join(c.source for c in notebook.cells if c.cell_type == "markdown")
        if not CJK.search(prose):
            problems.append(f"{where}: a zh page's notebook has no Chinese prose")
    return problems


def first_links(lang: str) -> dict[str, Page]:
    """Each notebook of the site that the articles and notebook pages of ``lang`` link (its
    address, relative to the site's root) -> the first of those pages that links it, read from
    the built HTML."""
    links: dict[str, Page] = {}
    for source in pages_of("article", lang) + pages_of("notebook", lang):
        for a in content(parse(source.file)).iter("a"):
            href = a.attrs.get("href", "")
            if href.endswith(".ipynb") and not urlsplit(href).netloc:
                target = posixpath.normpath(posixpath.join("/" + source.path, href)).lstrip("/")
                links.setdefault(target, source)
    return links


@pytest.mark.parametrize("lang", LANGS)
def test_download_links_give_valid_notebooks(lang, site_dir, base_url, new_page, artefacts):
    """Every notebook that the articles and notebook pages link: clicked on the first page that
    links it, the browser downloads it, and fetched, it is a valid executed notebook. That
    every .ipynb link of those pages is a same-tab download (``download``, no ``target``), with
    the page's scripts run, is checked on every page by test_browser_pages.py's page-load
    test; this one opens only the pages it clicks on (``domcontentloaded``: the links are in
    the HTML)."""
    page, _ = new_page()
    downloads = artefacts / "downloads"
    downloads.mkdir(exist_ok=True)
    links = first_links(lang)
    assert len(links) >= 2, f"{lang}: {len(links)} notebooks linked: {sorted(links)}"
    problems = []
    for source in dict.fromkeys(links.values()):  # each page once, all its clicks
        page.goto(base_url + source.path, wait_until="domcontentloaded")
        anchors = page.locator("article a[href$='.ipynb'][download]")
        for path in (p for p, s in links.items() if s == source):
            href = base_url + path
            nth = anchors.evaluate_all(f"as => as.findIndex(a => a.href === {json.dumps(href)})")
            if nth < 0:
                problems.append(f"/{source.path}: no download link to {href} in the browser")
                continue
            with page.expect_download() as info:
                anchors.nth(nth).click()
            download = info.value
            target = downloads / f"{source.name}-{download.suggested_filename}"
            download.save_as(target)
            if not download.suggested_filename.endswith(".ipynb"):
                problems.append(f"/{source.path}: download named {download.suggested_filename!r}")
            problems += check_notebook(target.read_bytes(), f"download from /{source.path}", lang)
            response = page.request.get(href)
            where = f"{path} (linked from /{source.path})"
            if response.status != 200:
                problems.append(f"{where}: HTTP {response.status}")
                continue
            problems += check_notebook(response.body(), where, lang)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_a_link_to_the_last_heading_of_a_notebook_lands_on_it(lang, base_url, searchless_page):
    """The cells of a notebook page are rendered only near the screen (content-visibility:
    auto, docs/stylesheets/claims.css), the cells above a target keeping an estimated height
    until then: a link to the last heading of the longest notebook page, opened from another
    page, still lands with that heading rendered, below the fixed header, in the upper half of
    the screen."""
    from playwright.sync_api import expect

    page = searchless_page

    def cells(notebook: Page) -> list:
        return [n for n in content(parse(notebook.file)).iter("div") if n.has_class("jp-Cell")]

    longest = max(pages_of("notebook", lang), key=lambda p: len(cells(p)))
    headings = [
        h.attrs["id"]
        for cell in cells(longest)
        if cell.has_class("jp-MarkdownCell")
        for h in cell.iter("h2", "h3")
        if h.attrs.get("id")
    ]
    assert len(headings) >= 2, f"/{longest.path}: {len(headings)} headings with an id"
    target = headings[-1]
    page.goto("about:blank")  # a load of the page, not a jump within it
    page.goto(base_url + longest.path + "#" + quote(target), wait_until="load")
    heading = page.locator(f"[id='{target}']")
    expect(heading).to_be_in_viewport()  # waits while the cells around it are rendered
    where = f"/{longest.path}#{target}"
    # skipped content counts as hidden here, not in Playwright's is_visible()
    rendered = heading.evaluate("h => h.checkVisibility({contentVisibilityAuto: true})")
    assert rendered, f"{where}: the heading is not rendered"
    top, header, height = heading.evaluate(
        "h => [h.getBoundingClientRect().top,"
        " document.querySelector('.md-header').getBoundingClientRect().bottom, innerHeight]"
    )
    assert header - 1 <= top < height / 2, (
        f"{where}: the heading is {top:.0f} px from the top of a {height} px screen whose "
        f"header ends at {header:.0f} px: not below the header in the upper half"
    )
