"""The casebook page (issue 28): each public report of ``casebook/reports.toml`` and the section
of this site that answers it, and the known issues of older releases, rendered at build time.

The mapping is data: a listed report has ``answer = "<page>.md#<anchor>"`` (a page below
``docs/<lang>/`` and the id its heading gets in the English page) or ``covered = false`` with a
``reason`` key of ``[reasons]``. The same section in another language is the heading at the same
position of that language's page (the pages pair heading for heading, ``tests/test_parity.py``).
Heading ids are computed as the build computes them: Python-Markdown's ``toc`` with
``pymdownx.slugs.slugify(case="lower")`` (``mkdocs.yml``), explicit ``{ #id }`` first.

Reports marked ``heldout = true`` are reserved for the blind grading of the built site: they
are never listed, mapped or read here beyond that flag; the page says how many there are.

Placeholders of ``docs/<lang>/casebook.md`` (``verified/casebook_hooks.py``):
``{{ casebook-summary }}``, ``{{ casebook }}`` and ``{{ known-issues }}``.
"""

from __future__ import annotations

import html
import json
import re
import tomllib
from functools import cache
from pathlib import Path
from urllib.parse import urlparse

import markdown
from pymdownx.slugs import slugify

from verified.pages.fmt import anchor, escape

ROOT = Path(__file__).resolve().parent.parent
CASEBOOK = ROOT / "casebook" / "reports.toml"
DOCS = ROOT / "docs"
RESULTS = ROOT / "results"
LANGS = ("en", "zh")
PAGE = "casebook.md"
# A report goes into the known-issues table when its class is a bug of older releases, when the
# thread names what fixed it (`fixed_in`), or when a claim reproduces it on an older release.
RELEASE_CLASSES = ("paddle-accum-release", "inplace-kernel-bug")

TEXT = {
    "en": {
        "summary": (
            "{listed} of the {total} reports of the casebook are listed here: {answered} with "
            "the section of this site that answers them, {uncovered} marked “not covered here” "
            "with the reason. {held} more are held out for grading the site and are not listed "
            "yet."
        ),
        "report": "Report",
        "message": "Message or symptom, as reported",
        "answer": "Where this site answers it",
        "not_covered": "Not covered here: {reason}",
        "sep": ", ",
        "what": "What happens",
        "fixed": "Fixed in",
        "fix": "Fix named in the thread",
        "matrix": "Release matrix",
        "not_named": "not named in the thread",
        "reproduced": "reproduced on {envs} ([claim]({link}))",
        "cited": "cited",
        "error": "error",
        "silent": "silent",
        "none": "—",
    },
    "zh": {
        "summary": (
            "案例集共有 {total} 份报告，本页列出其中 {listed} 份：{answered} 份附有本站解答它的章节，"
            "{uncovered} 份标为“本站未涉及”并说明原因。另有 {held} 份留作评估本站之用，暂不列出。"
        ),
        "report": "报告",
        "message": "报错信息或现象（原文）",
        "answer": "本站解答它的章节",
        "not_covered": "本站未涉及：{reason}",
        "sep": "，",
        "what": "现象",
        "fixed": "修复版本",
        "fix": "帖子中写明的修复",
        "matrix": "旧版本上的验证",
        "not_named": "帖子中未写明",
        "reproduced": "已在 {envs} 上复现（[断言]({link})）",
        "cited": "仅引用",
        "error": "报错",
        "silent": "静默",
        "none": "—",
    },
}
FRAMEWORK_NAMES = {
    "en": {"torch": "PyTorch", "paddle": "PaddlePaddle"},
    "zh": {"torch": "PyTorch", "paddle": "飞桨"},
}


class CasebookError(ValueError):
    """Bad casebook data: the message names the file and the report."""


def load(path: Path = CASEBOOK) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def listed(data: dict) -> list[dict]:
    """The reports the page lists: all but the held-out ones (selected by the flag alone)."""
    return [r for r in data.get("report", []) if r.get("heldout") is not True]


def held_out(data: dict) -> int:
    return sum(1 for r in data.get("report", []) if r.get("heldout") is True)


# -- heading ids, as the build makes them ------------------------------------------------------

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^#{1,6}\s")


def headings(path: Path) -> tuple[tuple[str, str], ...]:
    """(id, text) of every heading of a Markdown page, in order: the page's headings outside
    code fences, converted with the site's ``toc`` settings (so repeated ids get ``_1``)."""
    return _headings(path, path.stat().st_mtime_ns)  # read again once the page changes


@cache
def _headings(path: Path, mtime_ns: int) -> tuple[tuple[str, str], ...]:
    return read_headings(path)  # mtime_ns only keys the cache


def read_headings(path: Path) -> tuple[tuple[str, str], ...]:
    """What :func:`headings` returns, read now. (The work is kept out of the cached function:
    mutmut does not mutate a decorated function.)"""
    lines, fence = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fence = not fence
        elif not fence and HEADING.match(line):
            lines.append(line)
    md = markdown.Markdown(
        extensions=["toc", "attr_list"],
        extension_configs={"toc": {"slugify": slugify(case="lower")}},
    )
    md.convert("\n\n".join(lines))
    found: list[tuple[str, str]] = []

    def walk(tokens):
        for token in tokens:
            found.append((token["id"], token["name"]))
            walk(token["children"])

    walk(md.toc_tokens)
    return tuple(found)


def section(answer: str, lang: str, docs: Path = DOCS) -> tuple[str, str, str]:
    """(page, id, heading text) in ``lang`` of an ``answer`` (``page.md#english-id``); raises
    :class:`CasebookError` when the page or the heading does not exist."""
    page, _, fragment = answer.partition("#")
    english = docs / "en" / page
    if not fragment or not page.endswith(".md") or not english.is_file():
        raise CasebookError(f"no page docs/en/{page} with a heading id after '#'")
    ids = [i for i, _ in headings(english)]
    if fragment not in ids:
        raise CasebookError(f"docs/en/{page} has no heading with the id {fragment!r}")
    translated = docs / lang / page
    if not translated.is_file():
        raise CasebookError(f"no page docs/{lang}/{page}")
    heads = headings(translated)
    if len(heads) != len(ids):
        raise CasebookError(
            f"docs/{lang}/{page} has {len(heads)} headings, docs/en/{page} {len(ids)}: "
            "the sections no longer pair"
        )
    target_id, text = heads[ids.index(fragment)]
    return page, target_id, text


def problems(data: dict, docs: Path = DOCS) -> list[str]:
    """Every listed report answered by an existing section in every language, or not covered
    with a known reason; no held-out report mapped; every claim said to reproduce one known."""
    found = []
    reasons = data.get("reasons", {})
    for key, text in reasons.items():
        missing = [lang for lang in LANGS if not str(text.get(lang, "")).strip()]
        if missing:
            found.append(f"[reasons.{key}]: no text for {missing}")
    for r in data.get("report", []):
        where = f"{CASEBOOK.name}: report {r.get('id')!r}"
        if r.get("heldout") is True:
            if {"answer", "covered", "reason", "reproduced", "reproduced_in"} & set(r):
                found.append(f"{where} is held out: it must not be mapped before the grading")
            continue
        if ("answer" in r) == ("covered" in r):
            found.append(f"{where}: give either answer = 'page.md#id' or covered = false")
        elif "answer" in r:
            for lang in LANGS:
                try:
                    section(r["answer"], lang, docs)
                except CasebookError as exc:
                    found.append(f"{where}: answer {r['answer']!r}: {exc}")
                    break  # a missing English heading is missing in every language
        elif r["covered"] is not False or r.get("reason") not in reasons:
            found.append(f"{where}: covered = false needs a reason among {sorted(reasons)}")
    for c, spec in data.get("classes", {}).items():
        title = spec.get("title", {})
        if not all(str(title.get(lang, "")).strip() for lang in LANGS):
            found.append(f"[classes.{c}]: title.en and title.zh are required")
    return found


# -- the release matrix --------------------------------------------------------------------------


def _environment_reports(results: Path) -> tuple[tuple[str, tuple[dict, ...]], ...]:
    paths = tuple(sorted(results.glob("*.json")))
    return _read_reports(paths, tuple(p.stat().st_mtime_ns for p in paths))


@cache
def _read_reports(paths: tuple[Path, ...], mtimes: tuple[int, ...]) -> tuple:
    return read_reports(paths)  # mtimes only key the cache


def read_reports(paths: tuple[Path, ...]) -> tuple:
    """(name, records) of each environment report among ``paths``, read now (undecorated, as
    :func:`read_headings`)."""
    out = []
    for path in paths:
        report = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(report, dict) and "claims" in report and "name" in report:
            out.append((report["name"], tuple(report["claims"])))
    return tuple(out)


def _release_key(name: str) -> tuple:
    framework, _, version = name.partition("-")
    return framework, tuple(int(p) if p.isdigit() else p for p in version.split("."))


def reproduced_on(claim_id: str, framework: str, results: Path = RESULTS) -> list[str]:
    """The release-matrix environments (``torch-2.7.1``) in which ``claim_id`` passed with an
    expectation declared for that release (``override``): the old behaviour was observed there."""
    found = [
        name
        for name, records in _environment_reports(results)
        if any(
            rec.get("id") == claim_id
            and rec.get("framework") == framework
            and rec.get("status") == "passed"
            and rec.get("override")
            for rec in records
        )
    ]
    return sorted(found, key=_release_key)


def release_name(environment: str, lang: str) -> str:
    """``torch-2.7.1`` -> ``PyTorch 2.7.1``."""
    framework, _, version = environment.partition("-")
    return f"{FRAMEWORK_NAMES[lang].get(framework, framework)} {version}"


# -- rendering -----------------------------------------------------------------------------------


def _plain(text: str) -> str:
    return escape(" ".join(str(text).split()))


def thread_name(url: str) -> str:
    """``owner/repo#123`` for a GitHub issue or pull request, the host otherwise."""
    parts = urlparse(url)
    path = [p for p in parts.path.split("/") if p]
    if parts.netloc == "github.com" and len(path) >= 4 and path[2] in ("issues", "pull"):
        return f"{path[0]}/{path[1]}#{path[3]}"
    return parts.netloc


def _library(r: dict, lang: str) -> str:
    names = FRAMEWORK_NAMES[lang]
    return names.get(r["framework"], r["framework"])


def _report_cell(r: dict, lang: str) -> str:
    t = TEXT[lang]
    return (
        f"[{_plain(thread_name(r['url']))}]({r['url']})<br>"
        f"{_plain(_library(r, lang))}{t['sep']}{t[r['kind']]}"
    )


def _answer_cell(r: dict, data: dict, lang: str, docs: Path) -> str:
    t = TEXT[lang]
    if "answer" in r:
        try:
            page, target, text = section(r["answer"], lang, docs)
        except CasebookError as exc:
            raise CasebookError(f"{CASEBOOK.name}: report {r['id']!r}: {exc}") from None
        return f"[{escape(html.unescape(text))}]({page}#{target})"
    reason = data["reasons"][r["reason"]][lang]
    return t["not_covered"].format(reason=reason)


def summary(data: dict, lang: str) -> str:
    shown = listed(data)
    answered = sum(1 for r in shown if "answer" in r)
    return TEXT[lang]["summary"].format(
        listed=len(shown),
        total=len(data.get("report", [])),
        answered=answered,
        uncovered=len(shown) - answered,
        held=held_out(data),
    )


def class_order(data: dict) -> list[str]:
    """Classes with a listed report, the most reported first."""
    counts: dict[str, int] = {}
    for r in listed(data):
        counts[r["class"]] = counts.get(r["class"], 0) + 1
    return sorted(counts, key=lambda c: (-counts[c], c))


def casebook(data: dict, lang: str, docs: Path = DOCS, level: int = 3) -> str:
    """One heading per class, and a table: report, its message, the section answering it."""
    t = TEXT[lang]
    blocks = []
    for c in class_order(data):
        rows = [
            f"| {_report_cell(r, lang)} | {_plain(r['message'])} | "
            f"{_answer_cell(r, data, lang, docs)} |"
            for r in sorted(listed(data), key=lambda r: r["id"])
            if r["class"] == c
        ]
        blocks.append(
            "\n".join(
                [
                    f"{'#' * level} {data['classes'][c]['title'][lang]}",
                    "",
                    f"| {t['report']} | {t['message']} | {t['answer']} |",
                    "|---|---|---|",
                    *rows,
                ]
            )
        )
    return "\n\n".join(blocks)


def known_issues_of(data: dict) -> list[dict]:
    return [
        r
        for r in listed(data)
        if r["class"] in RELEASE_CLASSES or "fixed_in" in r or "reproduced" in r
    ]


def _matrix_cell(r: dict, lang: str, results: Path) -> str:
    t = TEXT[lang]
    claim = r.get("reproduced")
    if not claim:
        return t["cited"]
    envs = reproduced_on(claim, r["base"], results)
    if not envs:
        raise CasebookError(
            f"{CASEBOOK.name}: report {r['id']!r}: reproduced = {claim!r}, but no release-matrix "
            f"report under {results.name}/ has that claim passing with a release's own "
            "expectation: only a claim can say reproduced"
        )
    named = r.get("reproduced_in")
    if named is not None:  # the releases of the old behaviour, where the claim also declares
        unknown = [e for e in named if e not in envs]  # another release's own (an older one)
        if unknown or not named:
            raise CasebookError(
                f"{CASEBOOK.name}: report {r['id']!r}: reproduced_in names {unknown or named}, "
                f"but {claim} passed with a release's own expectation only in {envs}"
            )
        envs = [e for e in envs if e in named]
    link = f"verification.md#{anchor(claim, r['base'])}"
    names = t["sep"].join(release_name(e, lang) for e in envs)
    return t["reproduced"].format(envs=names, link=link)


def known_issues(data: dict, lang: str, results: Path = RESULTS) -> str:
    """What happens, the release that fixed it, the fix named upstream, and whether a claim of
    the release matrix reproduces it (otherwise it is cited)."""
    t = TEXT[lang]
    rows = [
        f"| {_report_cell(r, lang)} | {_plain(r['message'])} | "
        f"{_plain(r['fixed_release']) if 'fixed_release' in r else t['not_named']} | "
        f"{_plain(r['fixed_in']) if 'fixed_in' in r else t['none']} | "
        f"{_matrix_cell(r, lang, results)} |"
        for r in sorted(known_issues_of(data), key=lambda r: (r["base"], r["framework"], r["id"]))
    ]
    return "\n".join(
        [
            f"| {t['report']} | {t['what']} | {t['fixed']} | {t['fix']} | {t['matrix']} |",
            "|---|---|---|---|---|",
            *rows,
        ]
    )


PLACEHOLDERS = {
    "{{ casebook-summary }}": lambda data, lang, docs, results: summary(data, lang),
    "{{ casebook }}": lambda data, lang, docs, results: casebook(data, lang, docs),
    "{{ known-issues }}": lambda data, lang, docs, results: known_issues(data, lang, results),
}


def render(
    page: str, lang: str, data: dict | None = None, docs: Path = DOCS, results: Path = RESULTS
) -> str:
    """The casebook page's Markdown with its placeholders rendered (each on a line of its own)."""
    data = load() if data is None else data
    found = problems(data, docs)
    if found:
        raise CasebookError("casebook/reports.toml:\n" + "\n".join(found))
    lines = []
    for line in page.split("\n"):
        make = PLACEHOLDERS.get(line.strip())
        lines.append(make(data, lang, docs, results) if make else line)
    return "\n".join(lines)
