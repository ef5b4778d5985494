"""Support for the browser tests: Chromium's settings, the static server's handler, the
recorder of a page's traffic, and the page weights collected for the terminal summary."""

from __future__ import annotations

import contextlib
import functools
import gzip
import threading
from dataclasses import dataclass, field
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote, urlsplit

# Debian's headless build of Chromium (package chromium-headless-shell, the same release as
# the package chromium): the browser Playwright itself runs for headless tests. Measured
# 2026-12-07 (Intel Xeon, 2 cores, the 491 browser tests of a clean clone's site, one run after
# the other): 440 s with /usr/bin/chromium, 328 s with this one, every test passing in both;
# loading 12 pages twice took 43.2 s of the processors with chromium and 35.9 s with this
# (three runs each, /proc/stat).
CHROMIUM = "/usr/bin/chromium-headless-shell"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
    "--disable-quic",
]
# BEHIND: Chromium slows the timers and animation frames of a page that is not its context's
# front tab, and no command-line switch lifts that in headless mode (tried:
# --disable-background-timer-throttling, --disable-renderer-backgrounding,
# --disable-backgrounding-occluded-windows). Measured 2026-12-06: a search query took 2.5 s in
# the page behind and 0.4 s in front. A fixture that keeps several pages of one context open
# brings the one a test uses to the front (page.bring_to_front()).
VIEWPORT = {"width": 1280, "height": 900}
TIMEOUT_MS = 15_000

SEARCH_INDEX = "search/search_index.json"

# Filled by the tests, printed at the end of the run and saved to build/e2e/page-weight.json.
PAGE_WEIGHTS: dict[str, dict] = {}
# File types a static host sends gzip-compressed (GitHub Pages, nginx with gzip_types).
COMPRESSED = {".html", ".css", ".js", ".json", ".svg", ".txt", ".xml"}


# Material's search worker (the page's __config names it): every page starts it at load, and it
# fetches its language's index and builds it (lunr, about 600 kB in Chinese), the largest part
# of a page's CPU in this browser. A stand-in that answers nothing leaves search "initializing"
# and every other script as it is.
SEARCH_WORKER = "**/assets/javascripts/workers/*.js*"
IDLE_WORKER = "self.onmessage = () => {};"


def without_search(context) -> None:
    """Serve ``context``'s pages the stand-in search worker, for tests that open pages and never
    search: that the real worker loads on every page, with no failed request or console error,
    is checked by the page-load test (test_browser_pages.py); search by the search tests."""
    context.route(
        SEARCH_WORKER, lambda route: route.fulfill(body=IDLE_WORKER, content_type="text/javascript")
    )


class QuietHandler(SimpleHTTPRequestHandler):
    """A plain static server, like the host the site is published on (no sitemap rewrites, no
    404 fallbacks, .ipynb served as application/octet-stream)."""

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
        pass

    def handle_one_request(self):
        # the browser may close a connection it no longer needs
        with contextlib.suppress(BrokenPipeError, ConnectionResetError):
            super().handle_one_request()


@contextlib.contextmanager
def serving(directory: Path, handler: type = QuietHandler):
    """``directory`` served by ``handler`` on 127.0.0.1, at a free port: yields its address."""
    server = ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(handler, directory=str(directory))
    )
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="site-server", daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


@dataclass
class Traffic:
    """Everything a page did on the network and the console."""

    base_url: str
    requests: list[tuple[str, str]] = field(default_factory=list)  # (resource type, url)
    finished: list = field(default_factory=list)  # playwright Request objects
    failed: list[str] = field(default_factory=list)
    bad_status: list[str] = field(default_factory=list)
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def attach(self, page) -> None:
        self._listeners = {
            "request": lambda r: self.requests.append((r.resource_type, r.url)),
            "requestfinished": lambda r: self.finished.append(r),
            "requestfailed": lambda r: self.failed.append(f"{r.url} ({r.failure})"),
            "response": lambda r: (
                self.bad_status.append(f"{r.status} {r.url}") if r.status >= 400 else None
            ),
            "console": lambda m: (
                self.console_errors.append(f"{m.text} @ {m.location.get('url', '')}")
                if m.type == "error"
                else None
            ),
            "pageerror": lambda e: self.page_errors.append(str(e)),
        }
        for event, listener in self._listeners.items():
            page.on(event, listener)

    def detach(self, page) -> None:
        """Stop recording (a page that the next test uses again)."""
        for event, listener in self._listeners.items():
            page.remove_listener(event, listener)

    def external(self) -> list[str]:
        return [
            f"{kind} {url}"
            for kind, url in self.requests
            if not url.startswith(self.base_url) and not url.startswith(("data:", "blob:"))
        ]

    def problems(self) -> dict[str, list[str]]:
        return {
            "requests to other hosts": self.external(),
            "failed requests": self.failed,
            "HTTP errors": self.bad_status,
            "console errors": self.console_errors,
            "page errors": self.page_errors,
        }

    def weight(self, site_dir: Path) -> dict:
        """What the first load fetched: every response from the site (the page, and whatever
        the browser then asked for: styles, scripts, the search worker's scripts, the search
        index, figures), measured on the file the static server sent. ``bytes``: the files
        as sent here, uncompressed; ``gzip_bytes``: each file of a type that static hosts
        compress (HTML, CSS, JavaScript, JSON, SVG, text) gzipped at level 6 (gzip's and
        nginx's usual level), the others as they are. Headers are not counted."""
        by_type: dict[str, list[int]] = {}
        items = []
        for request in self.finished:
            if not request.url.startswith(self.base_url):
                continue
            path = urlsplit(request.url).path.removeprefix(urlsplit(self.base_url).path)
            file = site_dir / unquote(path)
            if path == "" or path.endswith("/") or file.is_dir():
                file = file / "index.html"
            # the file, not the transfer sizes the browser reports: it reports 0 for the
            # search worker's own requests (its script, lunr's language scripts)
            body = file.read_bytes()
            packed = len(gzip.compress(body, 6)) if file.suffix in COMPRESSED else len(body)
            totals = by_type.setdefault(request.resource_type, [0, 0])
            totals[0] += len(body)
            totals[1] += packed
            items.append((len(body), packed, "/" + path))
        items.sort(reverse=True)
        return {
            "bytes": sum(t[0] for t in by_type.values()),
            "gzip_bytes": sum(t[1] for t in by_type.values()),
            # the search index (one per language, search_hooks.py), budgeted on its own
            "indexes": [item for item in items if item[2].endswith("/" + SEARCH_INDEX)],
            "requests": len(items),
            "by_type": dict(sorted(by_type.items(), key=lambda kv: -kv[1][0])),
            "largest": items[:6],
        }
