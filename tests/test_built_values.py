"""Every value on the built pages is the report's value for that claim, framework and device.

Each rendered value is a link (``a.claim-value``) carrying its claim, framework, device and
field; each output or message block is followed by a ``a.claim-source`` line. These tests read
the built HTML and compare what a reader sees with the verification reports, using their own formatting
rules (not the renderer's), and check that each value's provenance leads to the right row of
the verification page, which names the snippet and the claims file. Run after the build.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from functools import cache

import pytest
from sitemodel import SITE, Node, content, pages, parse, site_exists

from verified.claims import ROOT, SNIPPETS
from verified.pages.fields import PLACEHOLDER
from verified.pages.words import TEXT, parse_filter_args
from verified.report import Reports
from verified.versions import release

pytestmark = pytest.mark.site


@pytest.fixture(scope="module", autouse=True)
def _site():
    if not site_exists():
        pytest.fail(f"no built site at {SITE}: run `nox -s tests` (or build it) first")


@cache
def reports() -> Reports:
    return Reports()


def shown(value) -> str:
    """How a reader expects a value to be written: Python's repr of plain values, floats
    with six significant digits."""
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(shown(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {shown(v)}" for k, v in value.items()) + "}"
    return str(value)


YES_NO = {True: "是", False: "否"}  # how a zh page says True and False


def reword(value, words: dict):
    """Every string of a value that the table words, in its words (dict keys stay); True and
    False as a zh page says them."""
    if isinstance(value, list):
        return [reword(v, words) for v in value]
    if isinstance(value, dict):
        return {k: reword(v, words) for k, v in value.items()}
    if isinstance(value, bool):
        return YES_NO[value]
    return words.get(value, value) if isinstance(value, str) else value


def docs_source(page) -> str:
    """The Markdown a page was built from (docs/<lang>/<key>.md or …/index.md)."""
    base = ROOT / "docs" / page.lang
    key = page.key.rstrip("/")
    for path in (base / f"{key}.md", base / key / "index.md") if key else (base / "index.md",):
        if path.is_file():
            return path.read_text(encoding="utf-8")
    raise AssertionError(f"no source for /{page.path}")


def same(a, b) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def every(value, wanted) -> bool:
    if same(value, wanted):
        return True
    items = (
        value
        if isinstance(value, list)
        else list(value.values())
        if isinstance(value, dict)
        else []
    )
    return bool(items) and all(every(v, wanted) for v in items)


def plain(phrase: str) -> str:
    """A phrase as the reader sees it: Markdown code marks gone, spaces collapsed."""
    return " ".join(phrase.replace("`", "").split())


def value_texts(rec: dict, field: str, lang: str, filters: list) -> list[str]:
    """What a value field may show: the report's value as observed (a zh page wording English
    phrases and booleans), a list of names joined in words, or, under a filter the page's
    source declares for that placeholder, the phrase it declares for the report's value."""
    _, _, key = field.partition(".")
    raw = rec["observed"]["value"]
    raw = raw[key] if key else raw
    texts = []
    for name, args in filters:
        if name is None:
            value = raw
            if lang == "zh":
                article = rec["id"].split(".", 1)[0]
                words = tomllib.loads((SNIPPETS / article / "values.zh.toml").read_text("utf-8"))
                value = reword(raw, words)
            if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
                last = {"en": " and ", "zh": " 和 "}[lang]
                sep = {"en": ", ", "zh": "、"}[lang]
                texts.append(
                    sep.join(value[:-1]) + last + value[-1] if len(value) > 1 else value[0]
                )
            else:
                texts.append(shown(value))
        elif name == "yesno" and isinstance(raw, bool):
            texts.append(plain(args[0] if raw else args[1]))
        elif name in ("words", "each"):
            match = same if name == "words" else every
            texts += [plain(p) for v, p in args if match(raw, v)]
        elif name == "at":
            texts.append(shown(raw[args[0]]))
        elif name == "to":
            high = rec["observed"]["value"][args[0][1].partition(".")[2]]
            between = {"en": " to ", "zh": " 到 "}[lang]
            texts.append(shown(raw) if same(raw, high) else shown(raw) + between + shown(high))
    return texts


def filters_in(source: str, rec: dict, field: str) -> list:
    """The filters of every placeholder of the source that shows this case's field."""
    found = []
    for m in PLACEHOLDER.finditer(source):
        if (m["id"], m["fw"], m["dev"] or "cpu") != (rec["id"], rec["framework"], rec["device"]):
            continue
        if (f"{m['field']}.{m['key']}" if m["key"] else m["field"]) != field:
            continue
        found.append((m["filter"], parse_filter_args(m["args"]) if m["filter"] else None))
    return found


def seconds(text: str) -> float:
    number, unit = re.fullmatch(r"([\d.]+) (s|ms|µs)", text).groups()
    return float(number) * {"s": 1, "ms": 1e-3, "µs": 1e-6}[unit]


def expected_text(rec: dict, field: str, lang: str) -> str | None:
    """The text a value must start with (None: checked another way)."""
    observed = rec["observed"]
    name, _, key = field.partition(".")
    if name == "type":
        return observed["exception"]["type"]
    if name == "message":
        return observed["exception"]["message"].strip().splitlines()[0]
    if name == "value":  # checked against the page's source: value_texts
        value = observed["value"]
        return shown(value[key] if key else value)
    if name in ("bytes", "theoretical"):
        value = observed["bytes" if name == "bytes" else "theoretical_bytes"]
        return f"{(value[key] if key else value):,} "
    if name == "mib":  # a size: bytes under 1 KiB, KiB under 1 MiB, else MiB
        value = observed["bytes"]
        value = value[key] if key else value
        if value < 2**10:
            return f"{value:,} "
        return f"{value / 2**10:.2f} KiB" if value < 2**20 else f"{value / 2**20:.2f} MiB"
    if name == "ratio":
        return f"{observed['ratio']:.2f}"
    if name == "repeat":
        return str(observed["repeat"])
    if name == "noise":  # the same-run control: the baseline timed twice
        return f"{observed['noise']:.2f}"
    if name == "env":  # the allocator settings the worker ran with
        settings = rec["env"]["allocator"]
        if not settings:
            return TEXT[lang]["allocator_defaults"]
        return " ".join(f"{k}={v}" for k, v in settings.items())
    if name == "host":  # the machine a figure shown only was measured on: its processor first
        return rec["env"]["host"]["cpu"]
    if name == "expected":  # what the test asserts: a ratio bound, a tolerance in bytes, ...
        value = rec["expected"][key]
        if key.startswith("ratio_"):
            return f"{value:.2f}"
        return f"{value:,} " if key.startswith("tol_") else shown(value)
    return None  # times: checked as seconds


def value_links(page):
    doc = parse(page.file)
    return [a for a in content(doc).iter("a") if a.has_class("claim-value")]


def source_links(page):
    return [a for a in content(parse(page.file)).iter("a") if a.has_class("claim-source")]


def record_of(node: Node) -> dict:
    attrs = node.attrs
    return reports().get(attrs["data-claim"], attrs["data-framework"], attrs["data-device"])


CONTENT_PAGES = [
    p for p in pages() if p.kind == "article" or p.key in ("errors/", "silent-failures/")
]


def test_pages_show_values_from_the_report():
    assert CONTENT_PAGES, "no article pages in the built site"
    total = sum(len(value_links(p)) for p in CONTENT_PAGES)
    assert total > 50, f"only {total} rendered values on the article pages"


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=[p.name for p in CONTENT_PAGES])
def test_every_value_equals_the_report(page):
    problems = []
    for link in value_links(page):
        attrs = link.attrs
        where = f"line {link.line}: {attrs.get('data-claim')} [{attrs.get('data-framework')}-{attrs.get('data-device')}] {attrs.get('data-field')}"
        rec = record_of(link)
        text = " ".join(link.text().split())
        field = attrs["data-field"]
        want = expected_text(rec, field, page.lang)
        title = attrs.get("title", "")
        if field.partition(".")[0] == "value":
            filters = filters_in(docs_source(page), rec, field)
            texts = value_texts(rec, field, page.lang, filters)
            if not any(" ".join(text.split()).startswith(t) for t in texts):
                problems.append(f"{where}: shows {text!r}; for the report's value the page "
                                f"declares one of {texts!r}")  # fmt: skip
            # the observation behind a worded value: as observed, or in the page's words
            observed = {want, *value_texts(rec, field, page.lang, [(None, None)])}
            if "观测值：" in title and not any(title.endswith(f"观测值：{o}") for o in observed):
                problems.append(f"{where}: tooltip {title!r} lacks the observed {want!r}")
        elif want is not None:
            if not text.startswith(" ".join(want.split())):
                problems.append(f"{where}: shows {text!r}, the report says {want!r}")
        else:  # medians
            got = seconds(text)
            actual = rec["observed"][f"{field}_s"]
            if abs(got - actual) > 0.006 * actual:
                problems.append(f"{where}: shows {text!r}, the report says {actual} s")
        version = release(rec["env"]["version"])
        for part in (rec["id"], rec["env"]["date"][:10], version):
            if part not in title:
                problems.append(f"{where}: tooltip {title!r} does not name {part!r}")
        anchor = "c-" + rec["id"].replace(".", "-") + "-" + rec["framework"]
        if not attrs.get("href", "").endswith(f"verification/#{anchor}"):
            problems.append(f"{where}: links to {attrs.get('href')!r}, not to #{anchor}")
    assert not problems, f"/{page.path}:\n" + "\n".join(problems)


def table_before(link: Node) -> list[list[str]] | None:
    """The body rows (cell texts) of the table just before the paragraph holding ``link``."""
    paragraph = link.parent
    siblings = [c for c in paragraph.parent.children if isinstance(c, Node)]
    index = next(i for i, c in enumerate(siblings) if c is paragraph)
    for node in reversed(siblings[:index]):
        table = node if node.tag == "table" else next(node.iter("table"), None)
        if table is None:
            return None
        body = next(table.iter("tbody"), table)
        return [
            [" ".join(cell.text().split()) for cell in row.iter("td")] for row in body.iter("tr")
        ]
    return None


def conditions_problems(link: Node, rec: dict, where: str) -> list[str]:
    """A conditions block: one row per condition the record measured, with its ratio and
    control as the report has them."""
    rows = table_before(link)
    if rows is None:
        return [f"{where}: no conditions table before its source line"]
    measured = rec["observed"]["conditions"]
    if len(rows) != len(measured):
        return [f"{where}: {len(rows)} rows, the record measured {len(measured)} conditions"]
    problems = []
    for row, (name, result) in zip(rows, measured.items(), strict=True):
        want = [f"{result['ratio']:.2f}", f"{result['noise']:.2f}"]
        if [cell.split()[0].rstrip("×") for cell in row[1:3]] != want:
            problems.append(f"{where}: condition {name!r} shows {row[1:3]}, the report {want}")
    return problems


def code_before(link: Node) -> str | None:
    """The text of the code block just before the paragraph holding ``link``."""
    paragraph = link.parent
    siblings = [c for c in paragraph.parent.children if isinstance(c, Node)]
    index = next(i for i, c in enumerate(siblings) if c is paragraph)
    for node in reversed(siblings[:index]):
        if node.tag == "div" and node.has_class("highlight"):
            code = next(node.iter("code"), None)
            return html.unescape(code.text()) if code is not None else None
        return None
    return None


@pytest.mark.parametrize("page", CONTENT_PAGES, ids=[p.name for p in CONTENT_PAGES])
def test_every_output_block_is_the_report_output(page):
    problems = []
    for link in source_links(page):
        rec = record_of(link)
        observed = rec["observed"]
        where = f"line {link.line}: output of {rec['id']} [{rec['framework']}-{rec['device']}]"
        if link.attrs.get("data-field") == "conditions":
            problems += conditions_problems(link, rec, where)
            continue
        text = code_before(link)
        if text is None:
            problems.append(f"{where}: no code block before its source line")
            continue
        if link.attrs.get("data-field") == "exception":  # the whole message, every line
            exc = observed["exception"]
            lines = [line.rstrip() for line in exc["message"].strip("\n").split("\n")]
            want = f"{exc['type']}: " + "\n".join(lines)
            if text.rstrip("\n") != want:
                problems.append(f"{where}: the message block is not the whole message {want!r}")
            continue
        printed = observed.get("output", "").rstrip("\n")
        if printed and not text.startswith(printed):
            problems.append(f"{where}: the block does not start with what the snippet printed")
        exc = observed.get("exception")
        if exc:
            last = f"{exc['type']}: {exc['message'].strip().splitlines()[0]}"
            if last not in text:
                problems.append(f"{where}: the block lacks the exception line {last!r}")
        if rec["id"] not in link.text() or release(rec["env"]["version"]) not in link.text():
            problems.append(f"{where}: the source line {link.text()!r} lacks the claim or version")
    assert not problems, f"/{page.path}:\n" + "\n".join(problems)


def test_verification_rows_name_snippet_and_claims_file():
    problems = []
    for lang_page in (p for p in pages() if p.key == "verification/"):
        doc = parse(lang_page.file)
        rows = {}
        for row in content(doc).iter("tr"):
            for a in row.iter("a"):
                if a.attrs.get("id", "").startswith("c-"):
                    rows[a.attrs["id"]] = " ".join(row.text().split())
        for claim in reports().claims:
            for fw in ("paddle", "torch"):
                anchor = f"c-{claim.id.replace('.', '-')}-{fw}"
                text = rows.get(anchor)
                if text is None:
                    problems.append(f"/{lang_page.path}: no row #{anchor}")
                    continue
                rec = reports().live.records[(claim.id, fw, claim.devices[0])]
                for name in (rec["snippet"], f"{claim.article}/claims.toml"):
                    if name not in text:
                        problems.append(f"/{lang_page.path}#{anchor}: does not name {name}")
    assert not problems, "\n".join(problems[:30])
