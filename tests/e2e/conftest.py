"""Real-browser tests: the built site served on 127.0.0.1 by the test itself, Debian's Chromium
driven by Playwright (its own browser download does not work here).

Needs `apt-get install -y chromium-headless-shell fonts-noto-cjk` and the `e2e` dependency
group. Playwright is imported lazily so that collecting tests/ without it (the `tests` session)
still works.
Artefacts (screenshots, page weights, downloaded notebooks) go to build/e2e/.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: sitemodel

from browserkit import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    PAGE_WEIGHTS,
    TIMEOUT_MS,
    VIEWPORT,
    Traffic,
    serving,
    without_search,
)
from sitemodel import ARTEFACTS, NO_SITE, SITE, site_exists  # noqa: E402


@pytest.fixture(scope="session")
def site_dir() -> Path:
    if not site_exists():
        pytest.fail(NO_SITE)
    return SITE


@pytest.fixture(scope="session")
def base_url(site_dir: Path):
    """The site served by a plain static server on 127.0.0.1, at a free port."""
    with serving(site_dir) as url:
        yield url


@pytest.fixture(scope="session")
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium, started once. launch() runs it on a fresh temporary profile (user data
    dir) that Playwright deletes afterwards; a test that records traffic or needs a cold cache
    gets its own fresh context (``context``, ``new_page``) or the worker's page that is made
    cold again for each test (``cold_page``), the others share one (``shared_page``)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(
            f"{CHROMIUM} not found: `apt-get install -y chromium-headless-shell fonts-noto-cjk`"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            browser.close()


def _context(browser):
    context = browser.new_context(viewport=VIEWPORT, service_workers="block")
    context.set_default_timeout(TIMEOUT_MS)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture
def context(browser):
    yield from _context(browser)


@pytest.fixture(scope="session")
def shared_context(browser):
    """One context for the tests that need no isolation (they record no traffic and start
    from no particular state): they navigate its page instead of opening a context each."""
    yield from _context(browser)


@pytest.fixture(scope="session")
def searchless_context(browser):
    """A context for the tests that navigate from page to page and never search (the language
    switcher): its pages load every script but the search worker's, which is a stand-in that
    does nothing (``browserkit.IDLE_WORKER``). That the real worker loads on every page, with no failed
    request or console error, is checked by the page-load test; search by the search tests."""
    for context in _context(browser):
        without_search(context)
        yield context


@pytest.fixture
def searchless_page(searchless_context):
    """``searchless_context``'s page (a new one if a test closed it or it crashed)."""
    pages = [p for p in searchless_context.pages if not p.is_closed()]
    return pages[0] if pages else searchless_context.new_page()


@pytest.fixture
def shared_page(shared_context):
    """The shared context's page (a new one if a test closed it or it crashed)."""
    pages = [p for p in shared_context.pages if not p.is_closed()]
    return pages[0] if pages else shared_context.new_page()


@pytest.fixture
def new_page(context, base_url):
    """A page in this test's context, with its traffic recorded: `page, traffic = new_page()`."""

    def make():
        page = context.new_page()
        traffic = Traffic(base_url)
        traffic.attach(page)
        return page, traffic

    return make


@pytest.fixture(scope="session")
def cold_context(browser):
    """The context of ``cold_page``: one per worker, its HTTP cache disabled."""
    yield from _context(browser)


def start_cold(context, base_url: str):
    """The page of ``context`` (made if it has none) at about:blank, the context's HTTP cache
    disabled, and nothing of the site's origin left: cookies, local storage, IndexedDB, cache
    storage and session storage (DevTools' Storage.clearDataForOrigin). Returns the
    page and its DevTools session (detach it when done)."""
    pages = [p for p in context.pages if not p.is_closed()]
    page = pages[0] if pages else context.new_page()
    origin = base_url.rstrip("/")
    page.goto("about:blank")
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send("Network.setCacheDisabled", {"cacheDisabled": True})
    cdp.send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": "all"})
    return page, cdp


@pytest.fixture
def cold_page(cold_context, base_url):
    """A page that loads as a reader's first visit does, with its traffic recorded:
    `page, traffic = cold_page()` (``start_cold``: every request reaches the site, as in a
    fresh context, whose cache is empty, and the origin keeps nothing from an earlier test).
    One context and one page serve a worker's tests: a fresh context per page cost Chromium
    1.6 s of CPU per article (a new renderer and the whole first load), this one 0.75 s
    (measured 2026-12-06 on 24 articles, each waited on until the network was idle); the
    page-load test of the 90 pages took 92 s before and 58 s after on 2 workers, with the
    same bytes and requests for every page. The page starts at about:blank, so that nothing
    of the previous test's page reaches this test's traffic; its listeners go after the test."""
    page, cdp = start_cold(cold_context, base_url)
    made: list[Traffic] = []

    def make():
        assert not made, "one cold page per test"
        traffic = Traffic(base_url)
        traffic.attach(page)
        made.append(traffic)
        return page, traffic

    yield make
    for traffic in made:
        traffic.detach(page)
    cdp.detach()


# The longest work first. pytest-xdist hands the tests to the workers as they become free, each
# group whole (--dist loadgroup), in the order of the items (--no-loadscope-reorder, noxfile.py;
# xdist would otherwise sort the groups by their number of tests, and put the install cells, one
# test each, last). JupyterLab (one group, about 100 s), the install cells (two real installs,
# 35 to 45 s each on one core) and the search pages of each language (a group each, about 40 s)
# start while the other workers load pages (CI runs the install cells beside the site build
# instead, `nox -s e2e -- install-cells`, and this order for the rest). On 2026-12-07, with the groups not holding (pytest
# 9.2, test_browser_groups.py), the stage ended with 40 s at half the machine; the gain of this
# order with the groups holding was not measured apart from the other changes of that day.
LONGEST_FIRST = (
    "test_jupyterlab_notebooks.py",
    "test_install_cell.py",
    "test_browser_search.py",
)


def pytest_collection_modifyitems(items):
    """The modules of LONGEST_FIRST first, in that order; the others after them, as collected."""
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))


def pytest_sessionfinish(session):
    """Under pytest-xdist a worker hands its page weights to the controller, which prints them."""
    out = getattr(session.config, "workeroutput", None)
    if out is not None:
        out["page_weights"] = json.dumps(PAGE_WEIGHTS)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error):
    """pytest-xdist's hook, on the controller: a worker ended; keep its page weights."""
    PAGE_WEIGHTS.update(json.loads(getattr(node, "workeroutput", {}).get("page_weights", "{}")))


def pytest_terminal_summary(terminalreporter):
    if not PAGE_WEIGHTS:
        return
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    (ARTEFACTS / "page-weight.json").write_text(
        json.dumps(PAGE_WEIGHTS, indent=2, ensure_ascii=False), encoding="utf-8"
    )
    write = terminalreporter.write_line
    terminalreporter.section("page weight (first load: files sent, and gzipped)")
    for name, w in sorted(PAGE_WEIGHTS.items(), key=lambda kv: (kv[1]["kind"], kv[0])):
        top = ", ".join(
            f"{t} {raw / 1024:.0f}/{packed / 1024:.0f}"
            for t, (raw, packed) in list(w["by_type"].items())[:3]
        )
        write(
            f"{w['kind']:<8} {name:<40} {w['bytes'] / 1024:6.0f} KiB, gzip "
            f"{w['gzip_bytes'] / 1024:4.0f} KiB in {w['requests']:>2} requests  ({top} KiB)"
        )
    write(f"details: {ARTEFACTS / 'page-weight.json'}")
