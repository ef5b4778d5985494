"""Checks over the built site's HTML, no browser: internal links and anchors, self-containment,
the built configuration, the Chinese search index, and accessibility basics (figures, headings).

Run after the build (`nox -s tests` does): `pytest -m site tests`.
"""

from __future__ import annotations

import html
import json
import re
from functools import cache
from pathlib import Path
from urllib.parse import parse_qs, unquote, urljoin, urlsplit

import pytest
from sitemodel import (
    CJK,
    LANGS,
    NO_SITE,
    SITE,
    Node,
    Page,
    content,
    lang_prefix,
    pages,
    parse,
    site_exists,
)

pytestmark = pytest.mark.site

ORIGIN = "http://site.invalid/"  # stands for the site's own origin while resolving links

# Attributes through which a page loads something (an asset), per tag.
ASSET_ATTRS = {
    "script": ("src",),
    "link": ("href",),  # stylesheets, icons, preloads; rel=canonical/alternate/prev/next too
    "img": ("src", "srcset"),
    "source": ("src", "srcset"),
    "video": ("src", "poster"),
    "audio": ("src",),
    "track": ("src",),
    "iframe": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "image": ("href", "xlink:href"),  # inline SVG
    "use": ("href", "xlink:href"),
    "input": ("src",),
}
# <link rel=...> values that are references to documents, not loaded assets.
LINK_NAVIGATION_RELS = {"canonical", "alternate", "prev", "next", "sitemap"}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)""")
CSS_IMPORT = re.compile(r"""@import\s+['"]([^'"]+)""")


def page_ids(pages_: list[Page | None]) -> list[str]:
    return [p.name if p else "no-site" for p in pages_]


def all_pages() -> list[Page | None]:
    # Without a site, one placeholder case fails (through the fixture below) instead of the
    # parametrized tests being skipped as an empty parameter set.
    return list(pages()) or [None]


@pytest.fixture(scope="module", autouse=True)
def _site():
    if not site_exists():
        pytest.fail(NO_SITE)


@cache
def site_url() -> str:
    from sitemodel import mkdocs_config

    return mkdocs_config().get("site_url") or ""


def html_files() -> list[Path]:
    return sorted(SITE.rglob("*.html"))


def url_of(file: Path) -> str:
    rel = file.relative_to(SITE).as_posix()
    return ORIGIN + (rel.removesuffix("index.html") if rel.endswith("index.html") else rel)


def split_srcset(value: str) -> list[str]:
    return [part.strip().split()[0] for part in value.split(",") if part.strip()]


def references(doc: Node):
    """(kind, url, line) for every reference in a page: kind "link" (a[href], area[href]) or
    "asset" (what the browser loads), plus url()s in inline styles."""
    for node in doc.iter():
        if node.tag in ("a", "area") and "href" in node.attrs:
            yield "link", node.attrs["href"], node.line
        for attr in ASSET_ATTRS.get(node.tag, ()):
            if attr not in node.attrs:
                continue
            value = node.attrs[attr]
            if node.tag == "link":
                rels = set(node.attrs.get("rel", "").lower().split())
                kind = "link" if rels & LINK_NAVIGATION_RELS else "asset"
                yield kind, value, node.line
            elif attr == "srcset":
                for url in split_srcset(value):
                    yield "asset", url, node.line
            else:
                yield "asset", value, node.line
        if "style" in node.attrs:
            for url in CSS_URL.findall(node.attrs["style"]):
                yield "asset", url, node.line
        if node.tag == "style":
            css = node.text()
            for url in CSS_URL.findall(css) + CSS_IMPORT.findall(css):
                yield "asset", url, node.line


def is_skippable(url: str) -> bool:
    return url.startswith(("data:", "mailto:", "javascript:", "blob:", "about:", "tel:"))


def to_local(absolute: str) -> str | None:
    """Map an absolute URL to a path below the site root, or None if it is another host."""
    for origin in (ORIGIN, site_url()):
        if origin and absolute.startswith(origin):
            return absolute[len(origin) :]
    return None


def target_file(path: str) -> Path | None:
    candidate = SITE / unquote(path)
    if path == "" or path.endswith("/") or candidate.is_dir():
        candidate = candidate / "index.html"
    return candidate if candidate.is_file() else None


@cache
def anchors(file: Path) -> frozenset[str]:
    doc = parse(file)
    names = set()
    for node in doc.iter():
        for attr in ("id", "name"):
            if node.attrs.get(attr):
                names.add(node.attrs[attr])
    return frozenset(names)


def listing(items: list[str], limit: int = 25) -> str:
    shown = items[:limit]
    more = f"\n... and {len(items) - limit} more" if len(items) > limit else ""
    return "\n".join(shown) + more


# -- links and anchors ------------------------------------------------------------------------


def test_site_has_both_languages():
    for lang in LANGS:
        assert any(p.lang == lang for p in pages()), f"no {lang} pages in {SITE}"
    for page in pages():
        for lang in LANGS:
            counterpart = page.counterpart(lang)
            assert target_file(counterpart), (
                f"{page.path or '/'} has no {lang} counterpart at /{counterpart}"
            )


def test_no_broken_internal_links_or_anchors():
    """Every internal href/src in every HTML file (both languages, 404 page included) resolves
    to a file of the built site, and every #fragment to an id on the target page."""
    broken = []
    checked = 0
    for file in html_files():
        base = url_of(file)
        for _kind, raw, line in references(parse(file)):
            if not raw or is_skippable(raw):
                continue
            absolute = urljoin(base, raw)
            local = to_local(absolute)
            if local is None:
                continue  # another host: external links are allowed; assets are checked below
            parts = urlsplit(ORIGIN + local)
            path = parts.path.lstrip("/")
            where = f"{file.relative_to(SITE)}:{line}: {raw!r}"
            checked += 1
            target = target_file(path)
            if target is None:
                broken.append(f"{where} -> /{path} does not exist")
                continue
            fragment = unquote(parts.fragment)
            if fragment and target.suffix == ".html" and fragment not in anchors(target):
                broken.append(f"{where} -> no id {fragment!r} in /{target.relative_to(SITE)}")
    assert checked > 0, "no internal links found: is the site empty?"
    assert not broken, f"{len(broken)} broken internal link(s):\n" + listing(broken)


# -- self-contained ---------------------------------------------------------------------------


def test_no_asset_from_another_host_in_html():
    """Nothing a page loads (scripts, styles, images, fonts, frames) comes from another host:
    the site works offline and leaks no visit to a third party."""
    offenders = []
    for file in html_files():
        base = url_of(file)
        for kind, raw, line in references(parse(file)):
            if kind != "asset" or not raw or is_skippable(raw):
                continue
            absolute = urljoin(base, raw)
            if to_local(absolute) is None:
                offenders.append(f"{file.relative_to(SITE)}:{line}: {raw}")
    assert not offenders, "assets from other hosts:\n" + "\n".join(offenders)


def test_no_asset_from_another_host_in_css_and_svg():
    offenders = []
    for file in sorted(SITE.rglob("*.css")):
        text = file.read_text(encoding="utf-8", errors="replace")
        for url in CSS_URL.findall(text) + CSS_IMPORT.findall(text):
            if re.match(r"(https?:)?//", url):
                offenders.append(f"{file.relative_to(SITE)}: {url}")
    for file in sorted(SITE.rglob("*.svg")):
        text = file.read_text(encoding="utf-8", errors="replace")
        for url in re.findall(r"""(?:xlink:)?href\s*=\s*["']([^"']+)""", text):
            if re.match(r"(https?:)?//", url):
                offenders.append(f"{file.relative_to(SITE)}: {url}")
        for url in CSS_URL.findall(text):
            if re.match(r"(https?:)?//", url):
                offenders.append(f"{file.relative_to(SITE)}: {url}")
    assert not offenders, "stylesheets/figures that load from other hosts:\n" + "\n".join(offenders)


# -- built configuration and search -----------------------------------------------------------


def material_config(file: Path) -> dict:
    for node in parse(file).iter("script"):
        if node.attrs.get("id") == "__config":
            return json.loads(node.text())
    raise AssertionError(f"{file.relative_to(SITE)}: no Material __config script")


@pytest.mark.parametrize("page", all_pages(), ids=page_ids(all_pages()))
def test_tabs_are_linked_in_built_config(page: Page):
    """content.tabs.link: choosing PaddlePaddle or PyTorch in one tab switches them all."""
    features = material_config(page.file).get("features", [])
    assert "content.tabs.link" in features, f"/{page.path}: features are {features}"


def language_root(page: Page) -> str:
    """The path below the site root that a page's search works from: Material's ``base``."""
    base = material_config(page.file)["base"]
    return urlsplit(urljoin(ORIGIN + page.path, base)).path.lstrip("/")


def search_index(lang: str = "zh") -> tuple[dict, Path]:
    """The search index the pages of ``lang`` load (Material: <base>/search/search_index.json)."""
    home = next(p for p in pages() if p.lang == lang and p.key == "")
    file = SITE / language_root(home) / "search" / "search_index.json"
    assert file.is_file(), f"the {lang} pages' search index {file} is missing"
    return json.loads(file.read_text(encoding="utf-8")), file


def test_chinese_search_index_is_segmented():
    """Material segments Chinese with jieba when it is installed (TOOLCHAIN trap 8): the zh
    entries must hold words split by the separator, not unbroken runs of characters, or
    queries such as 梯度累积 find nothing."""
    index, file = search_index("zh")
    assert index["config"]["lang"] == ["zh"], f"{file}: languages {index['config']['lang']}"
    separator = re.compile(index["config"]["separator"])
    zh_docs = index["docs"]
    assert zh_docs, f"{file}: no zh entries"
    tokens: set[str] = set()
    runs = []
    for doc in zh_docs:
        text = re.sub(r"<[^>]+>", " ", doc["text"])
        for token in separator.split(text):
            for run in re.findall(r"[\u3400-\u9fff]+", token):
                tokens.add(run)
                runs.append((len(run), run, doc["location"]))
    assert "\u200b" in "".join(d["text"] for d in zh_docs), "no \\u200b segment marks: jieba off?"
    # Words a reader searches for are separate tokens in the index.
    for word in ("梯度", "累积", "叶子", "节点"):
        assert word in tokens, f"{word!r} is not a token of the zh search index"
    longest = sorted(runs, reverse=True)[:5]
    assert longest[0][0] <= 8, f"unsegmented Chinese runs in the search index: {longest}"


@pytest.mark.parametrize("lang", LANGS)
def test_each_language_searches_its_own_pages(lang: str):
    """verified/search_hooks.py: every page of a language loads that language's index (its
    ``base`` is the language's root), and that index lists the sections of that language's
    pages only, each at a page and anchor that exist."""
    lang_pages = [p for p in pages() if p.lang == lang]
    roots = {language_root(p) for p in lang_pages}
    assert len(roots) == 1, f"{lang} pages search from several roots: {sorted(roots)}"
    root = roots.pop()
    assert root == lang_prefix(lang), f"{lang} pages search from /{root}, not /{lang_prefix(lang)}"
    index, file = search_index(lang)
    assert index["config"]["lang"] == [lang], f"{file}: languages {index['config']['lang']}"
    assert index["docs"], f"{file}: empty"
    problems = []
    indexed = set()
    for doc in index["docs"]:
        path, _, fragment = doc["location"].partition("#")
        target = SITE / root / path / "index.html"
        page = next((p for p in lang_pages if p.file == target), None)
        if page is None:
            problems.append(f"{doc['location']}: not a {lang} page (/{root}{path})")
            continue
        indexed.add(page.path)
        if fragment and unquote(fragment) not in anchors(target):
            problems.append(f"{doc['location']}: no such anchor on /{page.path}")
    assert not problems, f"{file}:\n" + listing(problems)
    for page in lang_pages:
        if page.kind == "notebook" or page.key == "verification/":
            continue  # excluded on purpose: the articles hold the same text
        assert page.path in indexed, f"/{page.path} is not in {file}"


def test_every_page_searches_through_the_paste_worker():
    """verified/search_hooks.py: each page's search worker is the one that reads a query as
    pasted (overrides/assets/javascripts/workers/search-as-pasted.js), published, and the
    Material worker it names in ``?material=`` is next to it."""
    problems = []
    for page in pages():
        url = urljoin(ORIGIN + page.path, material_config(page.file)["search"])
        parts = urlsplit(url)
        worker = SITE / unquote(parts.path).lstrip("/")
        material = parse_qs(parts.query).get("material", [""])[0]
        if worker.name != "search-as-pasted.js" or not worker.is_file():
            problems.append(f"/{page.path}: worker {url}")
        elif not material or not (worker.parent / material).is_file():
            problems.append(f"/{page.path}: Material's worker {material!r} missing")
    assert not problems, listing(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_the_search_index_does_not_depend_on_the_build_machine(lang: str):
    """Where and when the claims ran (processor, kernel, C library, Python, date) is on the
    pages, under each block and in each page's verified line, but not in the search index:
    with it, every section's rank moved with the length of the host's name (CI, on another
    machine, ranked an error-index entry 4th that ranked 3rd here). verified/pages/page.py marks
    both with Material's ``data-search-exclude``."""
    index, file = search_index(lang)
    records = json.loads((SITE.parent / "build" / "claims.json").read_text("utf-8"))["claims"]
    envs = [r["env"] for r in records]
    marks = {e["host"]["kernel"] for e in envs} | {f"Python {e['python']}" for e in envs}
    marks |= {e["date"][:10] for e in envs}
    assert marks, "build/claims.json: no environments"
    found = sorted(
        {(mark, d["location"]) for d in index["docs"] for mark in marks if mark in d["text"]}
    )
    assert not found, f"{file}: the build's environment is indexed:\n" + listing(
        [f"{loc}: {mark!r}" for mark, loc in found[:20]]
    )
    errors = next(p for p in pages() if p.lang == lang and p.key == "errors/")
    sources = [a for a in content(parse(errors.file)).iter("a") if a.has_class("claim-source")]
    assert sources and all(a.text().split(" · ")[-1] for a in sources), (
        f"/{errors.path}: the provenance lines lost their environment"
    )
    assert any(m in sources[0].text() for m in marks), (
        f"/{errors.path}: the first provenance line names no run: {sources[0].text()!r}"
    )


def code_blocks(page: Page) -> list[tuple[set[str], str]]:
    """(classes, text) of every code block of a page."""
    found = []
    for node in content(parse(page.file)).iter("div"):
        if node.has_class("highlight"):
            code = next(node.iter("code"), None)
            found.append((set(node.attrs["class"].split()), code.text() if code else ""))
    return found


@pytest.mark.parametrize("lang", LANGS)
def test_code_listings_stay_out_of_the_search_index(lang: str):
    """No page's code blocks are in the index but the error index's messages and outputs,
    every one of them; its code listings are not."""
    index, file = search_index(lang)
    errors = next(p for p in pages() if p.lang == lang and p.key == "errors/")
    blocks = code_blocks(errors)
    printed = [t for classes, t in blocks if classes & {"claim-message", "claim-output"}]
    assert len(printed) >= 10, f"/{errors.path}: only {len(printed)} message and output blocks"
    assert len(blocks) > len(printed), f"/{errors.path}: no code listings to leave out"
    errors_docs = [d for d in index["docs"] if d["location"].startswith("errors/")]
    errors_text = "\n".join(d["text"] for d in errors_docs)
    assert errors_text.count("<pre>") == len(printed), (
        f"{file}: {errors_text.count('<pre>')} code blocks of /{errors.path} are indexed, "
        f"{len(printed)} messages and outputs"
    )
    for block in printed:
        first = html.escape(block.strip().splitlines()[0], quote=False)
        assert first in errors_text, f"{file}: the error index's block {first!r} is not indexed"
    others = [d for d in index["docs"] if not d["location"].startswith("errors/")]
    with_code = sorted({d["location"].split("#")[0] for d in others if "<pre>" in d["text"]})
    assert not with_code, f"{file}: code blocks of {with_code} are indexed"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("output 0 of ReluBackward0, is at version 1", ["output", "0", "ReluBackward0", "version", "1"]),
        ("AsStridedBackward0 CopySlices relu_grad", ["AsStridedBackward0", "CopySlices", "relu_grad"]),
        ("retain_graph=True", ["retain_graph=True"]),
        ("x += 1", ["x", "=", "1"]),  # what a query `+=` looks for (a leading + means "required")
        ("weight[i] = v and a == b", ["weight", "v", "b"]),  # a lone = or == is no word
        ("A view of a leaf is being used in an in-place operation.", ["view", "leaf", "being", "used", "place", "operation"]),
        ("torch.autograd.set_detect_anomaly(True)", ["torch", "autograd", "set_detect_anomaly", "True"]),
        ("is_leaf to_static", ["is_leaf", "to_static"]),
        ("叶子\u200b张量", ["叶子", "张量"]),
        ("原位\u200b（Inplace）\u200b操作，见“视图”。", ["原位", "Inplace", "操作", "见", "视图"]),
        ("使用inplace操作后报错", ["使用", "inplace", "操作后报错"]),  # Latin run into Chinese
        ("ReluBackward0的输出，2.6版本", ["ReluBackward0", "的输出", "2.6", "版本"]),
        ("y = x**2 + w[~mask] ^ z", ["y", "x", "2", "w", "mask", "z"]),  # lunr's query syntax
    ],
)  # fmt: skip
def test_search_separator_keeps_what_readers_paste(text: str, words: list[str]):
    """The separator of the built indexes (Material's, mkdocs.yml, plus lunr's English stop
    words, verified/search_hooks.py), as the browser splits pages and queries with it."""
    for lang in LANGS:
        index, _ = search_index(lang)
        separator = re.compile(index["config"]["separator"])
        assert [w for w in separator.split(text) if w] == words


def test_notebook_pages_share_one_stylesheet():
    """Trap 11: nbconvert's JupyterLab CSS was ~590 KB of <style> on every notebook page;
    verified/notebook_hooks.py moves it into one file that every notebook page links."""
    notebooks = [p for p in pages() if p.kind == "notebook"]
    assert notebooks, "no notebook pages"
    shared = set()
    for page in notebooks:
        doc = parse(page.file)
        inline = [len(n.text()) for n in doc.iter("style")]
        assert sum(inline) < 2_000, f"/{page.path}: {sum(inline):,} characters of inline style"
        sheets = [
            urljoin(ORIGIN + page.path, n.attrs["href"])
            for n in content(doc).iter("link")
            if "stylesheet" in n.attrs.get("rel", "")
        ]
        assert len(sheets) == 1, f"/{page.path}: stylesheets in the content: {sheets}"
        shared.add(sheets[0])
    assert len(shared) == 1, f"notebook pages link different stylesheets: {sorted(shared)}"
    css = target_file(to_local(shared.pop()))
    assert css is not None and css.stat().st_size > 100_000, f"{css}: not JupyterLab's CSS"
    assert ".jp-Notebook" in css.read_text(encoding="utf-8")


# -- accessibility basics ---------------------------------------------------------------------


def figure_image(figure: Node) -> Node | None:
    return next(figure.iter("img", "svg", "object"), None)


@pytest.mark.parametrize("page", all_pages(), ids=page_ids(all_pages()))
def test_figures_have_alt_and_caption_in_page_language(page: Page):
    doc = parse(page.file)
    problems = []
    for figure in content(doc).iter("figure"):
        image = figure_image(figure)
        caption = next(figure.iter("figcaption"), None)
        where = f"figure at line {figure.line}"
        if image is None:
            problems.append(f"{where}: no image")
            continue
        alt = (
            image.attrs.get("alt", "") if image.tag == "img" else image.attrs.get("aria-label", "")
        )
        texts = {"alt text": alt.strip(), "caption": caption.text().strip() if caption else ""}
        for what, text in texts.items():
            if not text:
                problems.append(f"{where}: no {what}")
            elif page.lang == "zh" and not CJK.search(text):
                problems.append(f"{where}: {what} {text!r} is not Chinese")
            elif page.lang != "zh" and (CJK.search(text) or not re.search("[A-Za-z]", text)):
                problems.append(f"{where}: {what} {text!r} is not English")
        src = image.attrs.get("src", "")
        if src.endswith(".svg") and page.lang == "zh":
            svg = target_file(urlsplit(urljoin(ORIGIN + page.path, src)).path.lstrip("/"))
            if svg and not CJK.search(svg.read_text(encoding="utf-8")):
                problems.append(f"{where}: {src} has no Chinese labels")
    for image in content(doc).iter("img"):
        if "alt" not in image.attrs or not image.attrs["alt"].strip():
            problems.append(f"img at line {image.line} ({image.attrs.get('src', '')[:60]}): no alt")
    assert not problems, f"/{page.path}:\n" + "\n".join(problems)


@pytest.mark.parametrize("page", all_pages(), ids=page_ids(all_pages()))
def test_headings_in_order(page: Page):
    """One h1 first, then no level skipped on the way down (h2 -> h4 is a skip)."""
    levels = []
    for node in content(parse(page.file)).iter("h1", "h2", "h3", "h4", "h5", "h6"):
        levels.append((int(node.tag[1]), node.text().replace("¶", "").strip(), node.line))
    assert levels, f"/{page.path}: no headings"
    assert levels[0][0] == 1, f"/{page.path}: first heading is {levels[0]}"
    h1s = [h for h in levels if h[0] == 1]
    assert len(h1s) == 1, f"/{page.path}: {len(h1s)} h1 headings: {h1s}"
    skips = [
        f"h{prev[0]} {prev[1]!r} -> h{cur[0]} {cur[1]!r} (line {cur[2]})"
        for prev, cur in zip(levels, levels[1:], strict=False)
        if cur[0] > prev[0] + 1
    ]
    assert not skips, f"/{page.path}: skipped heading levels:\n" + "\n".join(skips)


@pytest.mark.parametrize("lang", LANGS)
def test_nav_entries_and_titles_are_distinct(lang: str):
    """A reader (and a screen reader's list of links) must tell pages apart by their name: no
    two different pages share a nav entry's text or a <title>."""
    lang_pages = [p for p in pages() if p.lang == lang]
    assert lang_pages, f"no {lang} pages"
    home = next((p for p in lang_pages if p.key == ""), lang_pages[0])
    doc = parse(home.file)
    nav = next((n for n in doc.iter("nav") if n.has_class("md-nav--primary")), None)
    assert nav is not None, f"/{home.path}: no primary nav"
    targets: dict[str, set[str]] = {}
    for a in nav.iter("a"):
        text, href = " ".join(a.text().split()), a.attrs.get("href", "")
        if text and "#" not in href:  # pages, not the sections of the current page
            targets.setdefault(text, set()).add(urljoin(ORIGIN + home.path, href))
    same_name = {t: sorted(h) for t, h in targets.items() if len(h) > 1}
    titles: dict[str, list[str]] = {}
    for page in lang_pages:
        title = next(parse(page.file).iter("title"), None)
        titles.setdefault(" ".join(title.text().split()) if title else "", []).append(page.path)
    same_title = {t: paths for t, paths in titles.items() if len(paths) > 1}
    assert not same_name and not same_title, (
        f"{lang}: nav entries naming several pages: {same_name}; "
        f"pages sharing a <title>: {same_title}"
    )


def test_sitemap_pairs_every_page_with_its_translations():
    """The hreflang pairs live in /sitemap.xml (overrides/main.html drops the <link hreflang>
    tags from the page head: Material fetched <page>/sitemap.xml for each of them and got
    404s). Every page must be there, with an alternate for each language."""
    import xml.etree.ElementTree as ET

    file = SITE / "sitemap.xml"
    assert file.is_file(), "no sitemap.xml"
    ns = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9", "x": "http://www.w3.org/1999/xhtml"}
    root = site_url() or ORIGIN
    entries: dict[str, dict[str, str]] = {}
    for url in ET.parse(file).getroot().findall("s:url", ns):
        loc = url.findtext("s:loc", "", ns).strip().removeprefix(root)
        entries[loc] = {
            link.get("hreflang"): link.get("href", "").removeprefix(root)
            for link in url.findall("x:link", ns)
            if link.get("rel") == "alternate"
        }
    problems = []
    for page in pages():
        alternates = entries.get(page.path)
        if alternates is None:
            problems.append(f"/{page.path}: not in sitemap.xml")
            continue
        for lang in LANGS:
            if alternates.get(lang) != page.counterpart(lang):
                problems.append(
                    f"/{page.path}: hreflang {lang} is {alternates.get(lang)!r}, "
                    f"expected {page.counterpart(lang)!r}"
                )
    assert not problems, "\n".join(problems)
