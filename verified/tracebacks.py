"""The traceback box: every error message the claims observed, in each framework and each release
of the matrix, as a small JSON asset per language that ``overrides/assets/javascripts/
traceback.js`` matches a pasted traceback against (offline: no service, no CDN).

Which message belongs to which error-index entry is read from the error index itself: every
``exception`` and ``output`` placeholder under an entry's heading (``## Title { #id }`` in
``docs/<lang>/errors.md``) puts the messages of that claim and framework into that entry, as
every fresh CPU record of the claim printed them (the live report and ``results/*.json``). No
list is kept by hand.

- An ``exception`` placeholder gives one message: ``Type: message``, whole.
- An ``output`` placeholder gives the lines of what the snippet printed that read as messages
  (:func:`output_messages`): a line with an exception or warning class (``SystemError:``,
  ``UserWarning:``), a Paddle error category (``(PermissionDenied)``), or a sentence of the
  framework's (six words or more starting with a capital, or twelve words or more); a column
  label before it (``step and loop both call backward()   SystemError: …``) or a lowercase
  label ending in ``: `` (``unbind_output: Output 0 of …``) is not part of the message.
  Verdicts that the snippets print in lowercase (``correct gradient``, ``no error; gradient
  x 2``) are not messages.

Every other error message a claim observed is in the asset too, and opens the section that
states the claim (the first, in path order, of the pages other than the error index, as
:func:`verified.pages.markdown.statement_sections` finds them): an ``exception`` of any record,
and a value of a record that starts with an exception or warning class (``RuntimeError: …``,
or with the snippet's word on when it was raised, ``RuntimeError at backward: …``). A message
that an error-index entry already holds, in the same framework, stays with that entry.

Matching, here (:func:`match`, for the fast tests) and in the browser (the same rules, read
from the asset), goes past what varies between runs and releases: numbers (shapes, versions,
line numbers), ``generated_tensor_N``, addresses, the ``Backward0`` suffix of PyTorch's node
names, the op in Paddle's ``…GradNode``, the tensor type, Paddle's C++ source location.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from verified.claims import FRAMEWORKS, ROOT
from verified.notebooks.markdown import page_dir
from verified.pages.fields import PLACEHOLDER, exception_text, output_text, release_results
from verified.pages.markdown import anchors_of, statement_sections
from verified.report import Reports

DOCS = ROOT / "docs"
ASSET = Path("assets") / "tracebacks.json"  # below each language's root in the built site
SCHEMA = 1

# (pattern, replacement): applied in this order to a message and to a pasted text, before
# lowercasing; JavaScript reads them from the asset (``$1`` is the first group in both).
RULES: list[tuple[str, str]] = [
    (r"\(at [^()\n]*\)", " "),  # Paddle's C++ source location: (at /paddle/…/utils.cc:277)
    (r"0x[0-9a-fA-F]+", " ADDR "),  # addresses
    (r"generated_tensor_\d+", " generated_tensor_N "),  # Paddle's tensor names
    (r"\b([A-Z]\w*?)Backward\d*\b", "$1"),  # ReluBackward0 -> Relu (PyTorch 2.13 drops it)
    (r"\b[A-Z]\w*GradNode\b", " GradNode "),  # PowGradNode, MeanGradNode: the op varies
    (r"\btorch\.(?:cuda\.)?[A-Za-z]*Tensor\b", " TENSOR "),  # the tensor type and device
    (r"\d+(?:\.\d+)*", " # "),  # shapes, versions, counts, line numbers
    (r"#(?:[\s,]*#)+", "#"),  # a shape of any rank: [2, 4] and [128, 64, 3]
]
TOKEN = r"[a-z_#][a-z0-9_#]*"
# lunr's English stop words, as verified/search_hooks.py lists them (a test keeps the two equal;
# that module needs MkDocs, the browser tests' environment does not have it)
_STOP = (
    "a able about across after all almost also am among an and any are as at be because "
    "been but by can cannot could dear did do does either else ever every for from get got "
    "had has have he her hers him his how however i if in into is it its just least let "
    "like likely may me might most must my neither no nor not of off often on only or other "
    "our own rather said say says she should since so some than that the their them then "
    "there these they this tis to too twas us wants was we were what when where which while "
    "who whom why will with would yet you your"
)
STOP = frozenset(_STOP.split())
THRESHOLD = 0.85  # share of the message (or of the pasted message) that must match
MIN_COMMON = 3  # words in common, at least (or the whole message, if it is shorter)

# the box's words, in each language ({framework}, {releases}, {title}: filled in by the script)
WORDS = {
    "en": {
        "header": "Paste an error",
        "label": "Paste a traceback or one line of an error message",
        "placeholder": "Traceback (most recent call last): …",
        "found": "Answered here: {title}",
        "printed_by": "{framework} prints it: {releases}",
        "not_covered": "Not covered here: this site has not verified this message.",
        "closest": "Closest entries:",
        "casebook": "Read the casebook: how to track down an error this site does not cover.",
        "empty": "Paste a message to look it up.",
        "button": "Open its entry",
    },
    "zh": {
        "header": "粘贴报错",
        "label": "粘贴完整的 Traceback，或报错信息中的一行",
        "placeholder": "Traceback (most recent call last): …",
        "found": "本站的解答：{title}",
        "printed_by": "{framework} 输出这条报错的版本：{releases}",
        "not_covered": "本站未收录这条报错：它不在本站验证过的报错信息之中。",
        "closest": "最接近的条目：",
        "casebook": "请阅读案例集：如何追查本站未收录的报错。",
        "empty": "粘贴一条报错信息即可查找。",
        "button": "打开对应条目",
    },
}
FRAMEWORK_NAMES = {"en": {"paddle": "PaddlePaddle", "torch": "PyTorch"}}
FRAMEWORK_NAMES["zh"] = {"paddle": "飞桨", "torch": "PyTorch"}

HEADING = re.compile(r"^## (?P<title>.+?)\s*\{\s*#(?P<id>[\w-]+)\s*\}\s*$")
ERROR_CLASS = re.compile(r"\b(?:[A-Z][A-Za-z]*)?(?:Error|Warning|Exception)\b")
PADDLE_CATEGORY = re.compile(r"\((?:[A-Z][a-z]+)+\) ")
COLUMN = re.compile(r"\S\s{2,}(?=\S)")
LABEL = re.compile(r"^[a-z][\w ().=,]*?: (?=[A-Z(])")
WORD = re.compile(r"[A-Za-z][A-Za-z'_]*")
# a value that is a message: the class, a few words on when (optional), then the message
VALUE_MESSAGE = re.compile(
    r"^(?P<type>(?:[A-Z][A-Za-z]*)?(?:Error|Warning|Exception))(?: [^:\n]{1,40})?: (?P<message>\S.*)$",
    re.S,
)
INDEX_PAGE = "errors.md"


class TracebackError(RuntimeError):
    pass


# -- the error index's entries ---------------------------------------------------------------


@dataclass(frozen=True)
class Source:
    entry: str  # the entry's id (its heading's anchor)
    claim: str
    framework: str
    field: str  # exception | output


def entries(markdown: str, where: str) -> tuple[list[dict], list[Source]]:
    """The error index's entries (id, title as its heading reads) and, under each, the
    placeholders that show messages (``exception`` and ``output`` fields)."""
    found, sources, current = [], [], None
    for number, line in enumerate(markdown.split("\n"), start=1):
        heading = HEADING.match(line)
        if heading:
            current = heading["id"]
            found.append({"id": current, "title": heading_text(heading["title"])})
            continue
        for match in PLACEHOLDER.finditer(line):
            if match["field"] not in ("exception", "output"):
                continue
            if current is None:
                raise TracebackError(
                    f"{where}:{number}: {match[0]} is above the first entry's heading"
                )
            sources.append(Source(current, match["id"], match["fw"], match["field"]))
    if not sources:
        raise TracebackError(f"{where}: no exception or output placeholder under an entry")
    return found, sources


def heading_text(title: str) -> str:
    """A heading as the reader sees it: without Markdown's backticks."""
    return title.replace("`", "").strip()


# -- the messages of a record ----------------------------------------------------------------


def output_messages(text: str) -> list[str]:
    """The lines of a printed output that read as messages (see the module's docstring)."""
    found = []
    for line in text.split("\n"):
        part = line.strip()
        columns = list(COLUMN.finditer(part))
        if columns:  # a table: the message is in the last column
            part = part[columns[-1].start() + 1 :].strip()
        part = LABEL.sub("", part, count=1)
        mark = ERROR_CLASS.search(part) or PADDLE_CATEGORY.search(part)
        words = WORD.findall(part)
        sentence = (len(words) >= 6 and part[:1].isupper()) or len(words) >= 12
        if mark:  # what comes before the class or category is the snippet's label
            part = part[mark.start() :]
        if (mark or sentence) and len(words) >= 3:
            found.append(part)
    return found


def messages_of(rec: dict, field: str, label: str) -> list[str]:
    if field == "exception":
        return [exception_text(rec, label)]
    observed = rec.get("observed") or {}
    return output_messages(output_text(rec)) if observed.get("output") is not None else []


def value_messages(observed: dict) -> list[str]:
    """The values of a record that are messages (see the module's docstring), as
    ``Type: message``."""
    found: list[str] = []

    def visit(value) -> None:
        if isinstance(value, dict):
            for item in value.values():
                visit(item)
        elif isinstance(value, list | tuple):
            for item in value:
                visit(item)
        elif isinstance(value, str):
            match = VALUE_MESSAGE.match(value.strip())
            if match and len(WORD.findall(match["message"])) >= 3:
                text = f"{match['type']}: {match['message'].strip()}"
                if text not in found:
                    found.append(text)

    visit(observed.get("value"))
    return found


def page_href(page: str, anchor: str) -> str:
    """A section's address below the language's root: ``inplace/index.md`` and ``#a`` ->
    ``inplace/#a``; ``inplace/leaf-tensors.md`` -> ``inplace/leaf-tensors/#a``."""
    return f"{page_dir(page)}#{anchor}"


def collect(
    reports: Reports,
    markdown: str,
    lang: str,
    where: str,
    docs: Path | None = None,
) -> dict:
    """The asset of one language: its entries, every message with the framework and the
    releases that printed it, the matching rules and the box's words. With ``docs`` (the
    folder of the languages' pages), the messages that no entry of the index matches are
    added under the sections of other pages that state their claims (:func:`page_messages`)."""
    found, sources = entries(markdown, where)
    messages: dict[tuple, dict] = {}
    for source in sources:
        label = f"{where}: {source.claim} | {source.framework} | {source.field}"
        releases = release_results(reports, source.claim, source.framework)
        if not releases:
            raise TracebackError(f"{label}: no fresh CPU record in the reports")
        for version, entry in releases.items():
            if entry.status != "passed":
                continue
            for text in messages_of(entry.rec, source.field, label):
                key = (source.entry, source.framework, " ".join(tokens(text)))
                item = messages.setdefault(
                    key,
                    {
                        "entry": source.entry,
                        "framework": source.framework,
                        "source": source.field,
                        "claim": source.claim,
                        "text": text,
                        "releases": [],
                    },
                )
                if version not in item["releases"]:
                    item["releases"].append(version)
    if not messages:
        raise TracebackError(f"{where}: the reports hold no message for its entries")
    if docs is not None:
        found += page_messages(reports, docs, lang, found, messages)
    return {
        "schema": SCHEMA,
        "lang": lang,
        "entries": found,
        "messages": list(messages.values()),
        "rules": [[pattern, replacement] for pattern, replacement in RULES],
        "token": TOKEN,
        "stop": sorted(STOP),
        "threshold": THRESHOLD,
        "min_common": MIN_COMMON,
        "words": WORDS[lang],
        "frameworks": FRAMEWORK_NAMES[lang],
    }


def answering_section(places: list[tuple[str, str, str]]) -> tuple[str, str, str] | None:
    """Of the sections (page, heading, anchor) that state a claim, in path order, the one a
    message of the claim opens: not the error index; a question's own page before a section's
    overview (``index.md``), which only sums it up; else the first."""
    places = [place for place in places if place[0] != INDEX_PAGE]
    return min(places, key=lambda place: place[0].endswith("index.md")) if places else None


def page_messages(
    reports: Reports, docs: Path, lang: str, entries: list[dict], messages: dict[tuple, dict]
) -> list[dict]:
    """Adds to ``messages`` every message of every claim's fresh CPU records (each framework,
    each release) that no entry of the error index matches in that framework, under a section
    of another page that states the claim (a question's own page before an overview, then
    path order); returns those sections as entries. An entry's ``id`` is the same in every
    language (the page and the section's place on it: the parity test keeps the languages'
    sections in the same order), its ``href`` is the section's address below the language's
    root."""
    sections = statement_sections(docs, lang)
    index = {"entries": entries, "messages": list(messages.values()), "threshold": THRESHOLD,
             "min_common": MIN_COMMON}  # fmt: skip
    added: dict[str, dict] = {}
    for claim in sorted(reports.claims, key=lambda c: c.id):
        place = answering_section(sections.get(claim.id, []))
        if place is None:
            continue
        page, heading, anchor = place
        href = page_href(page, anchor)
        ident = f"{page.removesuffix('.md')}:{anchors_of(docs / lang / page).index(anchor)}"
        for framework in FRAMEWORKS:
            releases = release_results(reports, claim.id, framework)
            for version, entry in releases.items():
                if entry.status != "passed":
                    continue
                observed = entry.rec.get("observed") or {}
                texts = value_messages(observed)
                if observed.get("exception"):
                    texts.insert(0, exception_text(entry.rec, claim.id))
                for text in texts:
                    key = " ".join(tokens(text))
                    if any(m[2]["framework"] == framework for m in match(index, text)):
                        continue  # an entry of the error index answers it
                    added.setdefault(
                        ident, {"id": ident, "title": heading_text(heading), "href": href}
                    )
                    item = messages.setdefault(
                        (ident, framework, key),
                        {
                            "entry": ident,
                            "framework": framework,
                            "source": "exception" if observed.get("exception") else "value",
                            "claim": claim.id,
                            "text": text,
                            "releases": [],
                        },
                    )
                    if version not in item["releases"]:
                        item["releases"].append(version)
    return list(added.values())


def build(reports: Reports, docs: Path = DOCS, langs: tuple[str, ...] = ("en", "zh")) -> dict:
    """Language -> its asset, from ``docs/<lang>/errors.md``."""
    assets = {}
    for lang in langs:
        path = docs / lang / "errors.md"
        where = path.relative_to(docs.parent).as_posix() if docs.parent in path.parents else path
        text = path.read_text(encoding="utf-8")
        assets[lang] = collect(reports, text, lang, str(where), docs)
    return assets


def write(asset: dict, root: Path) -> Path:
    target = root / ASSET
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(asset, ensure_ascii=False, separators=(",", ":")), "utf-8")
    return target


# -- matching (the script does the same, with the rules from the asset) ------------------------


def normalise(text: str) -> str:
    for pattern, replacement in RULES:
        text = re.sub(pattern, lambda m, r=replacement: r.replace("$1", _first(m)), text)
    return text.lower()


def _first(match: re.Match) -> str:
    return (match.group(1) or "") if match.re.groups else ""


def tokens(text: str) -> list[str]:
    return [t for t in re.findall(TOKEN, normalise(text)) if t not in STOP]


FRAME = re.compile(r'^\s*File ".*", line \d+')


def message_part(paste: str) -> str:
    """A pasted traceback without its frames: the ``File "…", line N`` lines, the source line
    under each (and its ``^^^`` marks), and the ``Traceback (most recent call last):`` line."""
    kept, skip = [], False
    for line in paste.replace("\r\n", "\n").split("\n"):
        if FRAME.match(line):
            skip = True
            continue
        if skip and (line.startswith("    ") or not line.strip()):
            continue
        skip = False
        if line.strip().startswith("Traceback (most recent call last)"):
            continue
        kept.append(line)
    return "\n".join(kept)


def score(known: set[str], pasted: set[str]) -> tuple[float, int]:
    common = len(known & pasted)
    if not known or not pasted:
        return 0.0, 0
    return max(common / len(known), common / len(pasted)), common


def match(asset: dict, paste: str) -> list[tuple[float, int, dict]]:
    """Every message of the asset that the paste matches, best first: (score, words in
    common, message)."""
    pasted = set(tokens(message_part(paste)))
    order = {e["id"]: i for i, e in enumerate(asset["entries"])}
    found = []
    for item in asset["messages"]:
        known = set(tokens(item["text"]))
        value, common = score(known, pasted)
        if value >= asset["threshold"] and common >= min(asset["min_common"], len(known)):
            found.append((value, common, item))
    found.sort(key=lambda f: (-f[0], -f[1], f[2]["source"] != "exception", order[f[2]["entry"]]))
    return found
