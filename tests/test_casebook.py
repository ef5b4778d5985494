"""The casebook (casebook/reports.toml, issue 28): mined public reports, committed as data.
Each report is complete, its class is defined, no thread is listed twice, and the held-out
third is exactly the draw the file's header describes (so nobody can move a report in or out of
it by hand)."""

from __future__ import annotations

import random
import re
import tomllib
from pathlib import Path

import pytest

CASEBOOK = Path(__file__).resolve().parent.parent / "casebook" / "reports.toml"
REQUIRED = ("id", "url", "source", "framework", "base", "release", "class", "kind", "message",
            "root_cause", "fix", "basis", "heldout")  # fmt: skip
BASES = {"torch", "paddle"}
KINDS = {"error", "silent"}
BASIS = {"maintainer", "forum-answer", "commenter", "reporter", "pr-description", "thread",
         "error-message"}  # fmt: skip


def load(path: Path = CASEBOOK) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def report_problems(r: dict, where: str, classes: dict, required: tuple) -> list[str]:
    """One report: its fields present, its address https, its class defined, its base, kind
    and basis known, its message, root cause and fix not empty."""
    missing = [k for k in required if k not in r]
    if missing:
        return [f"{where}: missing {missing}"]
    found = []
    if not str(r["url"]).startswith("https://"):
        found.append(f"{where}: url {r['url']!r} is not an https address")
    if r["class"] not in classes:
        found.append(f"{where}: class {r['class']!r} is not defined in [classes]")
    if r["base"] not in BASES or r["kind"] not in KINDS or r["basis"] not in BASIS:
        found.append(f"{where}: base/kind/basis {r['base']!r}/{r['kind']!r}/{r['basis']!r}")
    if not all(str(r[k]).strip() for k in ("message", "root_cause", "fix")):
        found.append(f"{where}: empty message, root_cause or fix")
    return found


def problems(data: dict) -> list[str]:
    found = []
    classes = data.get("classes", {})
    reports = data.get("report", [])
    ids = [r.get("id") for r in reports]
    urls = [r.get("url") for r in reports]
    for key, values in (("id", ids), ("url", urls)):
        twice = sorted({v for v in values if values.count(v) > 1})
        if twice:
            found.append(f"{key} listed more than once: {twice}")
    for r in reports:
        found += report_problems(r, f"report {r.get('id')!r}", classes, REQUIRED)
    unused = sorted(set(classes) - {r.get("class") for r in reports})
    if unused:
        found.append(f"classes without a report: {unused}")
    ordered = sorted(i for i in ids if i)
    drawn = set(random.Random(28).sample(ordered, len(ordered) // 3))
    marked = {r["id"] for r in reports if r.get("heldout") is True}
    if marked != drawn:
        found.append(
            f"held-out third differs from random.Random(28).sample(sorted ids, n // 3): "
            f"marked but not drawn {sorted(marked - drawn)}, drawn but not marked "
            f"{sorted(drawn - marked)}"
        )
    return found


def test_the_casebook_is_complete_and_its_held_out_third_is_the_documented_draw():
    data = load()
    assert len(data["report"]) >= 120, len(data["report"])
    assert not problems(data), "\n".join(problems(data))


@pytest.mark.parametrize(
    "breakage",
    ["duplicate url", "undefined class", "moved out of held-out", "missing fix"],
)
def test_each_check_of_the_casebook_can_fail(breakage):
    data = load()
    reports = data["report"]
    if breakage == "duplicate url":
        reports[1]["url"] = reports[0]["url"]
    elif breakage == "undefined class":
        reports[0]["class"] = "no-such-class"
    elif breakage == "moved out of held-out":
        next(r for r in reports if r["heldout"])["heldout"] = False
    else:
        del reports[0]["fix"]
    assert problems(data)


# -- the gradings of the held-out third (issue 28, point 4) --------------------------------------

GRADES = {"DIAGNOSED", "PARTLY", "MISSED"}
GRADINGS = sorted(CASEBOOK.parent.glob("heldout-*grad*.md"))


def graded_rows(text: str) -> list[tuple[str, str]]:
    """(report id, grade) for each row of a grading's table."""
    rows, header = [], None
    for line in text.splitlines():
        if not line.startswith("|"):
            header = None  # a table ends; the next one has its own header
            continue
        if set(line) <= {"|", "-", " ", ":"}:
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        if header is None:
            header = cells
            continue
        if "grade" in header:  # the tables that count the grades have no column "grade"
            rows.append((cells[0].strip("`"), cells[header.index("grade")].split()[0].strip("*")))
    return rows


def grading_problems(path: Path, held: set[str]) -> list[str]:
    """A grading names only held-out reports, each once, with a known grade; one that says
    it graded all of them lists every one, and its summary counts what its table holds."""
    text = path.read_text(encoding="utf-8")
    rows = graded_rows(text)
    found = [f"{path.name}: {i!r} is not a held-out report" for i, _ in rows if i not in held]
    found += [f"{path.name}: {i!r}: grade {g!r}" for i, g in rows if g not in GRADES]
    ids = [i for i, _ in rows]
    found += [
        f"{path.name}: {i!r} graded twice" for i in sorted({i for i in ids if ids.count(i) > 1})
    ]
    if "all graded again" in text.splitlines()[0]:
        found += [f"{path.name}: {i!r} not graded" for i in sorted(held - set(ids))]
        counts = {g: sum(1 for _, grade in rows if grade == g) for g in GRADES}
        overall = (f"**Overall ({len(rows)} reports):** DIAGNOSED {counts['DIAGNOSED']} · "
                   f"PARTLY {counts['PARTLY']} · MISSED {counts['MISSED']}.")  # fmt: skip
        if overall not in text:
            found.append(f"{path.name}: the summary does not say {overall!r}")
    return found


@pytest.mark.parametrize("path", GRADINGS, ids=lambda p: p.name)
def test_each_grading_grades_held_out_reports(path):
    held = {r["id"] for r in load()["report"] if r["heldout"]}
    assert not grading_problems(path, held)


def test_a_grading_that_misnames_or_miscounts_is_refused(tmp_path):
    held = {"a", "b"}
    head = "# Held-out reports, all graded again\n\n| id | grade |\n|---|---|\n"
    good = head + "| a | DIAGNOSED x |\n| `b` | MISSED |\n\n**Overall (2 reports):** "
    good += "DIAGNOSED 1 · PARTLY 0 · MISSED 1.\n"
    path = tmp_path / "g.md"
    path.write_text(good, encoding="utf-8")
    assert grading_problems(path, held) == []
    for bad in (
        good.replace("| a |", "| c |"),  # not held out (and b's count is off)
        good.replace("MISSED |", "LOST |"),
        good.replace("| `b` | MISSED |", "| a | MISSED |"),  # twice, b missing
        good.replace("DIAGNOSED 1", "DIAGNOSED 2"),
    ):
        path.write_text(bad, encoding="utf-8")
        assert grading_problems(path, held)


# -- the fresh sample of 2026-12-07 (issue 28, point 4): mined after the pages were written -------

FRESH = CASEBOOK.parent / "fresh-2026-12-07.toml"
FRESH_GRADING = CASEBOOK.parent / "fresh-2026-12-07-grading.md"
OVERALL = re.compile(
    r"\*\*Overall \((\d+) reports\):\*\* (\d+) DIAGNOSED, (\d+) PARTLY, (\d+) MISSED\."
)


def fresh_problems(sample: dict, corpus: dict, grading: str) -> list[str]:
    """A fresh report is complete, its class defined (in the corpus or the sample), its thread
    and id new to the corpus; the grading grades each report of the sample once, with a known
    grade, and its summary counts what its table holds."""
    found = []
    classes = {**corpus.get("classes", {}), **sample.get("classes", {})}
    reports = sample.get("report", [])
    old_urls = {r["url"] for r in corpus["report"]}
    old_ids = {r["id"] for r in corpus["report"]}
    ids = [r.get("id") for r in reports]
    fields = tuple(k for k in REQUIRED if k != "heldout")
    for r in reports:
        where = f"{FRESH.name}: report {r.get('id')!r}"
        found += report_problems(r, where, classes, fields)
        if r.get("url") in old_urls or r.get("id") in old_ids:
            found.append(f"{where}: already in reports.toml")
    found += [
        f"{FRESH.name}: {i!r} listed twice" for i in sorted({i for i in ids if ids.count(i) > 1})
    ]
    rows = graded_rows(grading)
    graded = [i for i, _ in rows]
    found += [f"{FRESH_GRADING.name}: {i!r} is not in the sample" for i in graded if i not in ids]
    found += [f"{FRESH_GRADING.name}: {i!r} not graded" for i in ids if i not in graded]
    found += [
        f"{FRESH_GRADING.name}: {i!r} graded twice"
        for i in sorted({i for i in graded if graded.count(i) > 1})
    ]
    found += [f"{FRESH_GRADING.name}: {i!r}: grade {g!r}" for i, g in rows if g not in GRADES]
    counts = [len(rows)] + [
        sum(1 for _, g in rows if g == grade) for grade in ("DIAGNOSED", "PARTLY", "MISSED")
    ]
    said = OVERALL.search(grading)
    if not said or [int(n) for n in said.groups()] != counts:
        found.append(
            f"{FRESH_GRADING.name}: the summary does not count {counts} (reports, D, P, M)"
        )
    return found


def test_the_fresh_sample_is_complete_new_and_graded_once():
    sample, grading = load(FRESH), FRESH_GRADING.read_text(encoding="utf-8")
    assert len(sample["report"]) >= 30
    assert not fresh_problems(sample, load(), grading), "\n".join(
        fresh_problems(sample, load(), grading)
    )


@pytest.mark.parametrize(
    "breakage", ["old url", "undefined class", "ungraded", "miscounted", "missing fix"]
)
def test_each_check_of_the_fresh_sample_can_fail(breakage):
    sample, corpus, grading = load(FRESH), load(), FRESH_GRADING.read_text(encoding="utf-8")
    first = sample["report"][0]
    if breakage == "old url":
        first["url"] = corpus["report"][0]["url"]
    elif breakage == "undefined class":
        first["class"] = "no-such-class"
    elif breakage == "ungraded":
        grading = "\n".join(
            line for line in grading.splitlines() if not line.startswith(f"| {first['id']} |")
        )
    elif breakage == "miscounted":
        grading = OVERALL.sub(
            lambda m: m.group(0).replace(
                f"{m.group(2)} DIAGNOSED", f"{int(m.group(2)) + 1} DIAGNOSED"
            ),
            grading,
        )
    else:
        del first["fix"]
    assert fresh_problems(sample, corpus, grading)
