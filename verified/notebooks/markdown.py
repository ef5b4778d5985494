"""Stage 3, the prose: page Markdown turned into notebook Markdown cells.

Relative links and images point to the site (:func:`page_url`), SVG figures become cell
attachments, attribute lists and abbreviation definitions are dropped, ``{{ … | output }}``
placeholders are removed (the executed cell shows its own output), and the prose is cut into
one cell per heading.
"""

from __future__ import annotations

import base64
import re
from dataclasses import dataclass, field
from pathlib import Path

from verified.claims import LANGS, ROOT
from verified.notebooks.parse import FENCE_RE

HEADING_RE = re.compile(r"^(?P<hashes>#{1,6})\s+(?P<text>.*?)\s*$")
ATTR_LIST_RE = re.compile(r"\s*\{:?\s*[#.][^}]*\}\s*$")
LINK_RE = re.compile(
    r'(?P<bang>!?)\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?P<title>\s+"[^"]*")?\)'
)
FIGURE_RE = re.compile(r"<figure\b[^>]*>(?P<body>.*?)</figure>", re.DOTALL)
CAPTION_RE = re.compile(r"<figcaption>(?P<text>.*?)</figcaption>", re.DOTALL)


def site_url() -> str:
    text = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    match = re.search(r"^site_url:\s*['\"]?([^'\"\s]+)", text, re.MULTILINE)
    url = match[1] if match else "/"
    return url if url.endswith("/") else url + "/"


def page_url(lang: str, page: str = "") -> str:
    """The site URL of ``page`` (a docs-relative .md path) in ``lang``."""
    base = site_url() + ("" if lang == LANGS[0] else f"{lang}/")
    if not page:
        return base
    stem = page[:-3] if page.endswith(".md") else page
    if stem == "index":
        return base
    if stem.endswith("/index"):
        stem = stem[: -len("index")]
    return base + stem.rstrip("/") + "/"


@dataclass
class Converter:
    lang: str
    article: str
    docs: Path
    attachments: dict = field(default_factory=dict)  # filled per cell

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
        if bang and path:
            local = self.docs / self.lang / path
            if local.suffix == ".svg" and local.is_file():
                name = local.name
                data = base64.b64encode(local.read_bytes()).decode("ascii")
                self.attachments[name] = {"image/svg+xml": data}
                return f"![{text}](attachment:{name}{title})"
            return f"![{text}]({page_url(self.lang)}{path}{title})"
        if not path:
            url = page_url(self.lang, f"{self.article}.md") + anchor
        elif path.endswith(".md"):
            url = page_url(self.lang, path) + anchor
        else:
            url = page_url(self.lang) + path + anchor
        return f"[{text}]({url}{title})"

    def convert(self, text: str) -> str:
        text = FIGURE_RE.sub(self.figure, text)
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
    from verified.render import PLACEHOLDER

    kept = []
    for line in markdown.split("\n"):
        whole = PLACEHOLDER.fullmatch(line.strip())
        if whole and whole["field"] == "output":
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
