"""The casebook (casebook/reports.toml, issue 28): mined public reports, committed as data.
Each report is complete, its class is defined, no thread is listed twice, and the held-out
third is exactly the draw the file's header describes (so nobody can move a report in or out of
it by hand)."""

from __future__ import annotations

import random
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
        where = f"report {r.get('id')!r}"
        missing = [k for k in REQUIRED if k not in r]
        if missing:
            found.append(f"{where}: missing {missing}")
            continue
        if not str(r["url"]).startswith("https://"):
            found.append(f"{where}: url {r['url']!r} is not an https address")
        if r["class"] not in classes:
            found.append(f"{where}: class {r['class']!r} is not defined in [classes]")
        if r["base"] not in BASES or r["kind"] not in KINDS or r["basis"] not in BASIS:
            found.append(f"{where}: base/kind/basis {r['base']!r}/{r['kind']!r}/{r['basis']!r}")
        if not all(str(r[k]).strip() for k in ("message", "root_cause", "fix")):
            found.append(f"{where}: empty message, root_cause or fix")
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
