"""Stage 3, the prose: page Markdown turned into notebook Markdown cells.

Links and images point where :class:`Links` says (the published site, the site relative to
the notebook, or the repository), SVG figures become cell attachments, attribute lists and
abbreviation definitions are dropped, ``{{ … | output }}`` and ``{{ verified }}`` placeholders
are removed (the executed cell shows its own output), prose marked
``<span class="site-only">`` (about tabs, "this page") is dropped, and the prose is cut into
one cell per heading. :func:`site_prose` finds what a notebook must not say.
"""

from __future__ import annotations

import base64
import posixpath
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

from verified.claims import LANGS, ROOT
from verified.notebooks.parse import FENCE_RE

HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*$")
ATTR_LIST_RE = re.compile(r"\s*\{:?\s*[#.][^}]*\}\s*$")
LINK_RE = re.compile(
    r'(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+"[^"]*")?\)'
)
FIGURE_RE = re.compile(r"<figure\b[^>]*>(?P<body>.*?)</figure>", re.DOTALL)
CAPTION_RE = re.compile(r"<figcaption>(?P<text>.*?)</figcaption>", re.DOTALL)


# -- where links point ------------------------------------------------------------------------


def configured_site_url(config: Path = ROOT / "mkdocs.yml") -> str:
    """``site_url`` of mkdocs.yml as MkDocs reads it (``!ENV [SITE_URL, ...]`` resolved)."""
    import yaml
    from yaml_env_tag import construct_env_tag  # MkDocs' own !ENV

    class Loader(yaml.SafeLoader):
        pass

    Loader.add_constructor("!ENV", construct_env_tag)
    Loader.add_multi_constructor("", lambda loader, suffix, node: None)  # !relative, ...
    Loader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, suffix, node: None)
    return yaml.load(config.read_text(encoding="utf-8"), Loader=Loader).get("site_url") or ""


def is_local(url: str) -> bool:
    """True for an address on this machine only (127.0.0.0/8, localhost, ::1, 0.0.0.0)."""
    import ipaddress

    host = (urlsplit(url).hostname or "").lower()
    if host in ("", "localhost") or host.endswith(".localhost"):
        return True
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name
    return address.is_loopback or address.is_unspecified


def published_url(config: Path = ROOT / "mkdocs.yml") -> str | None:
    """The address the site is published at, if one is configured (not a local one)."""
    url = configured_site_url(config)
    if not url or is_local(url):
        return None
    return url if url.endswith("/") else url + "/"


def page_dir(page: str) -> str:
    """``glossary.md`` -> ``glossary/``; ``index.md`` -> ``""`` (a page's directory URL)."""
    stem = page.removesuffix(".md")
    if stem == "index" or stem.endswith("/index"):
        stem = stem.removesuffix("index")
    return stem.rstrip("/") + "/" if stem else ""


@dataclass(frozen=True)
class Links:
    """Where the links of one notebook point (the notebook link policy, notebooks/README.md).

    - ``base`` set (the published address): absolute URLs of the site's pages;
    - ``base`` None: relative to where the notebook is published on the site
      (``[<lang>/]notebooks/<article>-<framework>/``): ``../../glossary/``; they work on the
      site under any host and in a copy of the built site, and never point at this machine;
    - ``repository``: relative to the copy committed under ``notebooks/<lang>/``: an article
      that has notebooks links to its notebook of the same framework next to it (a section of
      this article to the heading in this notebook; a page of an article's section to the
      heading its title became, from ``titles``), any other page to its Markdown source under
      ``docs/<lang>/``.
    """

    lang: str
    article: str
    framework: str
    base: str | None = None
    repository: bool = False
    articles: tuple[str, ...] = ()  # articles that have notebooks (for ``repository``)
    index: str = ""  # the article's first page: "<article>.md" (default) or "<article>/index.md"
    titles: dict = field(default_factory=dict)  # sub-page -> anchor of its title in its notebook

    def _article_of(self, page: str) -> str | None:
        """The article with notebooks that ``page`` belongs to (its page or its section)."""
        stem = page.removesuffix(".md")
        for article in {*self.articles, self.article}:
            if stem == article or stem.startswith(f"{article}/"):
                return article
        return None

    def page(self, page: str = "", anchor: str = "") -> str:
        """The link to ``page`` (a docs-relative .md path; "" for this article), ``#anchor``."""
        anchor = f"#{anchor}" if anchor and not anchor.startswith("#") else anchor
        page = page or self.index or f"{self.article}.md"
        if self.repository:
            article = self._article_of(page)
            if article is not None:
                if not anchor and page in self.titles:
                    anchor = f"#{self.titles[page]}"
                if article == self.article:
                    return anchor or f"{article}-{self.framework}.ipynb"
                return f"{article}-{self.framework}.ipynb{anchor}"
            return f"../../docs/{self.lang}/{page}{anchor}"
        if self.base is not None:
            prefix = "" if self.lang == LANGS[0] else f"{self.lang}/"
            return self.base + prefix + page_dir(page) + anchor
        return "../../" + page_dir(page) + anchor

    def article_url(self) -> str:
        """The article this notebook is made from (its page; in the repository, its source)."""
        index = self.index or f"{self.article}.md"
        if self.repository:
            return f"../../docs/{self.lang}/{index}"
        return self.page(index)

    def asset(self, path: str) -> str:
        """A file of the site (an image), by its docs-relative path."""
        if self.repository:
            return f"../../docs/{self.lang}/{path}"
        if self.base is not None:
            prefix = "" if self.lang == LANGS[0] else f"{self.lang}/"
            return self.base + prefix + path
        return "../../" + path


# -- prose that is about the site -------------------------------------------------------------

SITE_ONLY_RE = re.compile(r'<span class="site-only">(?P<text>.*?)</span>', re.DOTALL)
SITE_PROSE = {  # what a notebook must not say: it has no tabs and is not "this page"
    "en": re.compile(r"\btabs?\b|\bthis page\b", re.IGNORECASE),
    "zh": re.compile(r"标签页|选项卡|本页"),
}
_JOINS_WITHOUT_SPACE = re.compile(r"[\u3000-\u303f\u4e00-\u9fff\uff00-\uffef.,;:!?)\]]")


def drop_site_only(text: str) -> str:
    """Remove ``<span class="site-only">…</span>``: prose about the site itself (its tabs,
    "this page") that a notebook must not show. A line left empty is dropped; the rest of a
    line closes up (with a space between words, none before punctuation or Chinese)."""
    if "site-only" not in text:
        return text
    marked = SITE_ONLY_RE.sub("\x00", text)
    lines = []
    for line in marked.split("\n"):
        if "\x00" not in line:
            lines.append(line)
            continue
        indent = line[: len(line) - len(line.lstrip())]
        joined = ""
        for part in (p.strip() for p in line[len(indent) :].split("\x00")):
            if not part:
                continue
            if joined and not (
                _JOINS_WITHOUT_SPACE.match(part[0]) or _JOINS_WITHOUT_SPACE.match(joined[-1])
            ):
                joined += " "
            joined += part
        if joined:
            lines.append(indent + joined)
    return "\n".join(lines)


def site_prose(text: str, lang: str) -> list[str]:
    """Phrases of ``text`` that speak of the site (tabs, "this page") in ``lang``."""
    pattern = SITE_PROSE.get(lang)
    return [m[0] for m in pattern.finditer(text)] if pattern else []


@dataclass
class Converter:
    lang: str
    article: str
    docs: Path
    links: Links
    attachments: dict = field(default_factory=dict)  # filled per cell
    page: str = ""  # the page converted, relative to docs/<lang>/ (default "<article>.md")

    def resolve(self, path: str) -> str:
        """A link's path as written in the page, relative to ``docs/<lang>/``."""
        page = self.page or f"{self.article}.md"
        return posixpath.normpath(posixpath.join(posixpath.dirname(page), path))

    def figure(self, match: re.Match) -> str:
        body = match["body"]
        images = LINK_RE.findall(body)
        caption = CAPTION_RE.search(body)
        out = []
        for bang, alt, target, _title in images:
            if bang:
                out.append(f"![{alt}]({target})")
        if caption:
            out.append("")
            out.append(f"*{caption['text'].strip()}*")
        return "\n".join(out)

    def link(self, match: re.Match) -> str:
        bang, text, target = match["bang"], match["text"], match["target"]
        title = match["title"] or ""
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("//"):
            return match[0]  # absolute URL, mailto:, attachment:
        path, _, anchor = target.partition("#")
        anchor = f"#{anchor}" if anchor else ""
        path = self.resolve(path) if path else path
        if bang and path:
            local = self.docs / self.lang / path
            if local.suffix == ".svg" and local.is_file():
                name = local.name
                data = base64.b64encode(local.read_bytes()).decode("ascii")
                self.attachments[name] = {"image/svg+xml": data}
                return f"![{text}](attachment:{name}{title})"
            return f"![{text}]({self.links.asset(path)}{title})"
        if not path:
            url = self.links.page(self.page, anchor)
        elif path.endswith(".md"):
            url = self.links.page(path, anchor)
        else:
            url = self.links.asset(path) + anchor
        return f"[{text}]({url}{title})"

    def convert(self, text: str) -> str:
        text = drop_site_only(FIGURE_RE.sub(self.figure, text))
        lines = []
        for line in text.split("\n"):
            if line.startswith("*[") and "]:" in line:  # abbreviation definitions
                continue
            if re.fullmatch(r"\s*\{:?\s*[#.][^}]*\}\s*", line):  # stand-alone attribute list
                continue
            if HEADING_RE.match(line):
                line = ATTR_LIST_RE.sub("", line)
            lines.append(line)
        return LINK_RE.sub(self.link, "\n".join(lines))


def drop_output_placeholders(markdown: str) -> str:
    """Without ``{{ … | output }}`` and ``{{ … | exception }}`` (the executed cell shows its
    own output and traceback) and ``{{ verified }}`` (it speaks of "this page"; the banner
    links the verification report)."""
    from verified.pages.fields import BLOCK_FIELDS, PLACEHOLDER

    kept = []
    for line in markdown.split("\n"):
        whole = PLACEHOLDER.fullmatch(line.strip())
        if (whole and whole["field"] in BLOCK_FIELDS) or line.strip() in (
            "{{ verified }}",
            "<!-- notebooks -->",  # where the site puts its notebook links
        ):
            continue
        kept.append(line)
    return "\n".join(kept)


def split_cells(markdown: str) -> list[str]:
    """One Markdown cell per heading (outside fences); blank-only cells dropped."""
    cells: list[list[str]] = [[]]
    fence = None
    for line in markdown.split("\n"):
        match = FENCE_RE.match(line.strip())
        if fence is None and match:
            fence = match["fence"]
        elif fence is not None and line.strip() == fence:
            fence = None
        elif fence is None and HEADING_RE.match(line) and any(ln.strip() for ln in cells[-1]):
            cells.append([])
        cells[-1].append(line)
    texts = []
    for cell in cells:
        text = "\n".join(cell).strip("\n")
        text = re.sub(r"\n{3,}", "\n\n", text)
        if text.strip():
            texts.append(text)
    return texts
