"""Notebook pages and downloads in a real browser: each notebook page renders its cells with
their outputs (not raw JSON), each article links its notebooks, and every download link gives
a valid, executed .ipynb. Nothing here is skipped: no notebook pages is a failure."""

from __future__ import annotations

import json

import nbformat
import pytest
from sitemodel import CJK, LANGS, article_keys, lang_prefix, page_at, pages_of

pytestmark = pytest.mark.e2e

RAW_JSON_MARKERS = ('"cell_type":', '"nbformat":')


@pytest.mark.parametrize("lang", LANGS)
def test_notebook_pages_render_with_outputs(lang, site_dir, base_url, new_page):
    notebooks = pages_of("notebook", lang)
    assert notebooks, (
        f"no notebook pages in the {lang} site (expected under /{lang_prefix(lang)}notebooks/)"
    )
    page, _ = new_page()
    problems = []
    for nb in notebooks:
        response = page.goto(base_url + nb.path)
        where = f"/{nb.path}"
        if response is None or response.status != 200:
            problems.append(f"{where}: {response and response.status}")
            continue
        text = page.locator("article").inner_text()
        if any(marker in text for marker in RAW_JSON_MARKERS):
            problems.append(f"{where}: shows raw notebook JSON (TOOLCHAIN trap 1)")
            continue
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
    assert not problems, "\n".join(problems)


def check_notebook(raw: bytes, where: str, lang: str) -> list[str]:
    try:
        notebook = nbformat.reads(raw.decode("utf-8"), as_version=4)
        nbformat.validate(notebook)
    except (UnicodeDecodeError, json.JSONDecodeError, nbformat.ValidationError) as exc:
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


@pytest.mark.parametrize("lang", LANGS)
def test_download_links_give_valid_notebooks(lang, site_dir, base_url, new_page, artefacts):
    """Every .ipynb link of the site on the articles and notebook pages is a download link
    (``download`` attribute, same tab); fetched, each gives a valid executed notebook; clicked
    (the first page that links it), the browser downloads it. The pages are read once their
    HTML is parsed (``domcontentloaded``): the links are in it, and that each page loads
    cleanly is test_browser_pages.py's check."""
    page, _ = new_page()
    downloads = artefacts / "downloads"
    downloads.mkdir(exist_ok=True)
    problems = []
    links: dict[str, str] = {}  # absolute URL -> first page that links it
    sources = [page_at(lang_prefix(lang) + key) for key in article_keys()]
    sources = [p for p in sources if p] + pages_of("notebook", lang)
    assert sources, f"no {lang} articles or notebook pages"
    for source in sources:
        page.goto(base_url + source.path, wait_until="domcontentloaded")
        # the site's own notebook links (not "Open in Colab" and the like, on other hosts,
        # whose addresses end in .ipynb too): each must download, in the same tab
        anchors = page.locator("article a[href$='.ipynb']")
        found = anchors.evaluate_all(
            """as => as.map((a, nth) => ({nth, href: a.href, own: a.origin === location.origin,
                 download: a.hasAttribute('download'), target: a.getAttribute('target')}))
               .filter(a => a.own)"""
        )
        if not found:
            problems.append(f"/{source.path}: no notebook download link")
            continue
        for link in found:
            if not link["download"] or link["target"] not in (None, "_self"):
                problems.append(f"/{source.path}: {link['href']} is not a download link: {link}")
        for link in found:
            href = link["href"]
            if href in links or not link["download"]:
                continue
            links[href] = source.path
            with page.expect_download() as info:
                anchors.nth(link["nth"]).click()
            download = info.value
            target = downloads / f"{source.name}-{download.suggested_filename}"
            download.save_as(target)
            if not download.suggested_filename.endswith(".ipynb"):
                problems.append(f"/{source.path}: download named {download.suggested_filename!r}")
            problems += check_notebook(target.read_bytes(), f"download from /{source.path}", lang)
    assert len(links) >= 2, f"{lang}: {len(links)} notebooks linked: {sorted(links)}"
    for href, source in sorted(links.items()):
        response = page.request.get(href)
        where = f"{href.removeprefix(base_url)} (linked from /{source})"
        if response.status != 200:
            problems.append(f"{where}: HTTP {response.status}")
            continue
        problems += check_notebook(response.body(), where, lang)
    assert not problems, "\n".join(problems)
