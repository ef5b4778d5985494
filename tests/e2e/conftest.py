"""Real-browser tests: the built site served on 127.0.0.1 by the test itself, Debian's Chromium
driven by Playwright (its own browser download does not work here).

Needs `apt-get install -y chromium fonts-noto-cjk` and the `e2e` dependency group. Playwright is
imported lazily so that collecting tests/ without it (the `tests` session) still works.
Artefacts (screenshots, page weights, downloaded notebooks) go to build/e2e/.
"""

from __future__ import annotations

import functools
import json
import sys
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # tests/: sitemodel

from browserkit import (  # noqa: E402
    CHROMIUM,
    CHROMIUM_ARGS,
    PAGE_WEIGHTS,
    TIMEOUT_MS,
    VIEWPORT,
    QuietHandler,
    Traffic,
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
    handler = functools.partial(QuietHandler, directory=str(site_dir))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@pytest.fixture(scope="session")
def artefacts() -> Path:
    ARTEFACTS.mkdir(parents=True, exist_ok=True)
    return ARTEFACTS


@pytest.fixture(scope="session")
def browser():
    """Headless Chromium, started once. launch() runs it on a fresh temporary profile (user data
    dir) that Playwright deletes afterwards; a test that records traffic or needs a cold cache
    gets its own fresh context (``context``, ``new_page``), the others share one
    (``shared_page``)."""
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} not found: `apt-get install -y chromium fonts-noto-cjk`")
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
