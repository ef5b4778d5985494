"""MkDocs hook: links to the headings of pages that became sections keep working.

``old-anchors.toml`` lists, per article and language, every heading id the article's single
page had and where that part now lives (a sub-page of the section, and its anchor there). The
section's overview took the old page's URL, so an old link such as
``inplace/#rule-1-leaf-tensors-that-require-gradients`` lands on the overview; this hook gives
the overview the map, as JSON, and a few lines of script that send the reader on when the
address names an old id the overview does not have (on load and on a change of the hash).

Fragments never reach the server, so no redirect page can do this, and mkdocs-redirects
redirects pages, not headings (mkdocs/mkdocs-redirects#69). A target page that does not exist
fails the build; the site tests check every target anchor and that the map covers the ids.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path, PurePosixPath

from mkdocs.exceptions import PluginError
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
MAP = ROOT / "old-anchors.toml"
SCRIPT_ID = "old-anchors"

# Runs at the end of the page: the ids of the page exist by then.
SCRIPT = """<script>(function () {
  var map = JSON.parse(document.getElementById("old-anchors").textContent);
  function follow() {
    var id = decodeURIComponent(location.hash.slice(1));
    if (id && !document.getElementById(id) && Object.prototype.hasOwnProperty.call(map, id)) {
      location.replace(map[id]);
    }
  }
  follow();
  window.addEventListener("hashchange", follow);
})();</script>"""


def old_anchors(path: Path | None = None) -> dict[str, dict[str, dict[str, str]]]:
    """article -> language -> old id -> target (``page.md`` or ``page.md#anchor``, relative
    to the article's folder), from ``path`` (default: ``MAP``, read when called)."""
    path = MAP if path is None else path
    if not path.is_file():
        return {}
    return tomllib.loads(path.read_text(encoding="utf-8"))


def _overview(src_uri: str) -> tuple[str, str] | None:
    """(language, article) of a section's overview ``<lang>/<article>/index.md``."""
    parts = PurePosixPath(src_uri).parts
    if len(parts) == 3 and parts[2] == "index.md":
        return parts[0], parts[1]
    return None


def redirect_urls(lang: str, article: str, page_url: str, files) -> dict[str, str]:
    """Old id -> URL relative to the overview, for the overview of ``article`` in ``lang``."""
    entries = old_anchors().get(article, {}).get(lang, {})
    urls = {}
    for old_id, target in entries.items():
        path, _, anchor = target.partition("#")
        src = f"{lang}/{article}/{path}"
        file = files.get_file_from_path(src)
        if file is None:
            raise PluginError(
                f"{MAP.name}: [{article}.{lang}] {old_id!r} -> {target!r}: no page {src}"
            )
        if src == f"{lang}/{article}/index.md" and not anchor:
            continue  # the overview itself: nothing to follow
        url = get_relative_url(file.url, page_url)  # keeps a directory URL's final slash
        urls[old_id] = url + (f"#{anchor}" if anchor else "")
    return urls


def on_page_content(html_content, page, config, files):
    where = _overview(page.file.src_uri)
    if where is None:
        return html_content
    urls = redirect_urls(*where, page.file.url, files)
    if not urls:
        return html_content
    data = json.dumps(urls, ensure_ascii=False).replace("<", "\\u003c")  # no </script> inside
    return (
        html_content
        + f'\n<script type="application/json" id="{SCRIPT_ID}">{data}</script>\n'
        + SCRIPT
        + "\n"
    )
