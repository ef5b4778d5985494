"""The traceback box's data and matching (verified/tracebacks.py), without a browser: the asset
holds every message that the reports' records printed under the error index's placeholders,
in each framework and release; each opens its entry, also as another run prints it and inside
a whole traceback; messages the site does not cover match nothing."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path

import pytest
from tracebackcases import NOT_COVERED, as_another_run_prints_it, cases, in_a_traceback

from verified import tracebacks
from verified.claims import ROOT
from verified.report import Reports
from verified.versions import release

DOCS = ROOT / "docs"
LANGS = ("en", "zh")


@pytest.fixture(scope="module")
def reports() -> Reports:
    return Reports()


@pytest.fixture(scope="module")
def assets(reports) -> dict:
    return tracebacks.build(reports, DOCS, LANGS)


def placeholders(lang: str) -> list[tuple[str, str, str, str]]:
    """(entry, claim, framework, field) read from the page with a plain pattern, not with the
    module's parser."""
    found, entry = [], None
    for line in (DOCS / lang / "errors.md").read_text(encoding="utf-8").split("\n"):
        heading = re.search(r"\{ #([\w-]+) \}$", line)
        if line.startswith("## ") and heading:
            entry = heading[1]
        for claim, framework, field in re.findall(
            r"\{\{ ([\w.-]+) \| (paddle|torch) \| (exception|output) \}\}", line
        ):
            found.append((entry, claim, framework, field))
    return found


@functools.cache
def raw_records(path: Path) -> list[dict]:
    """A report's records as its JSON file holds them (read once: the tests ask per claim)."""
    return json.loads(path.read_text(encoding="utf-8"))["claims"]


def fresh_records(reports: Reports, claim: str, framework: str):
    """(release, the record as its JSON file holds it) for every report's fresh CPU record."""
    for report in reports.all:
        for rec in raw_records(report.path):
            if (rec["id"], rec["framework"], rec["device"]) != (claim, framework, "cpu"):
                continue
            if rec["status"] == "passed" and not report.entry(rec).stale:
                yield release(rec["env"]["version"]), rec


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
@pytest.mark.parametrize("lang", LANGS)
def test_every_exception_of_every_release_opens_its_entry(lang, assets, reports):
    asset, checked = assets[lang], 0
    for entry, claim, framework, field in placeholders(lang):
        if field != "exception":
            continue
        for version, rec in fresh_records(reports, claim, framework):
            exc = rec["observed"]["exception"]
            text = f"{exc['type']}: {exc['message'].strip()}"
            found = tracebacks.match(asset, text)
            assert found, f"{claim} [{framework} {version}] matches nothing: {text[:200]!r}"
            best = found[0][2]
            assert best["entry"] == entry, (claim, framework, version, best["entry"])
            assert best["framework"] == framework and version in best["releases"], (
                claim,
                framework,
                version,
                best["releases"],
            )
            checked += 1
    assert checked >= 50, checked  # 11 exception placeholders, 5 releases of each framework


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
@pytest.mark.parametrize("lang", LANGS)
def test_every_error_line_of_the_outputs_is_in_the_asset(lang, assets, reports):
    """Every line of an output that names an exception or warning class, or a Paddle error
    category, is one of the asset's messages of that entry, with its release."""
    asset, checked = assets[lang], 0
    for entry, claim, framework, field in placeholders(lang):
        if field != "output":
            continue
        for version, rec in fresh_records(reports, claim, framework):
            for line in rec["observed"]["output"].split("\n"):
                mark = re.search(r"\b\w*(?:Error|Warning)\b:|\((?:[A-Z][a-z]+)+\) ", line)
                if not mark:
                    continue
                held = [
                    m
                    for m in asset["messages"]
                    if m["entry"] == entry
                    and m["framework"] == framework
                    and version in m["releases"]
                    and m["text"] in line
                ]
                assert held, f"{claim} [{framework} {version}]: {line!r} is not in the asset"
                checked += 1
    assert checked >= 20, checked


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
@pytest.mark.parametrize("lang", LANGS)
def test_every_message_any_claim_observed_is_in_the_asset(lang, assets, reports):
    """Not only the error index's: every exception of every fresh CPU record of every claim,
    and every value of one that is a message (``RuntimeError at backward: …``), in each
    framework and release, is matched, in its framework and naming its release; one that no
    entry of the index matches opens a section of another page."""
    asset, checked, elsewhere = assets[lang], 0, set()
    pages = {e["id"]: e for e in asset["entries"]}
    for claim in sorted(c.id for c in reports.claims):
        for framework in ("paddle", "torch"):
            for version, rec in fresh_records(reports, claim, framework):
                observed = rec.get("observed") or {}
                texts = tracebacks.value_messages(observed)
                if observed.get("exception"):
                    exc = observed["exception"]
                    texts.append(f"{exc['type']}: {exc['message'].strip()}")
                for text in texts:
                    found = [
                        m for m in tracebacks.match(asset, text) if m[2]["framework"] == framework
                    ]
                    assert found, f"{claim} [{framework} {version}] matches nothing: {text!r}"
                    assert any(version in m[2]["releases"] for m in found), (claim, version)
                    if "href" in pages[found[0][2]["entry"]]:
                        elsewhere.add(claim)
                    checked += 1
    assert checked >= 150, checked
    # the three that only a section of another page answers (2026-12-06)
    assert {"inplace.detach-saved", "inplace.manual-update"} <= elsewhere, elsewhere


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
@pytest.mark.parametrize("lang", LANGS)
def test_a_section_of_another_page_is_an_anchor_of_that_page(lang, assets):
    from verified.pages.markdown import anchors_of

    others = [e for e in assets[lang]["entries"] if "href" in e]
    assert others
    for entry in others:
        path, anchor = entry["href"].split("#")
        page = DOCS / lang / (path.rstrip("/") + ".md" if path else "index.md")
        if not page.is_file():
            page = DOCS / lang / path / "index.md"
        assert page.is_file(), entry
        assert anchor in anchors_of(page), entry
        position = int(entry["id"].rsplit(":", 1)[1])
        assert anchors_of(page)[position] == anchor, entry


def test_the_values_that_are_messages():
    observed = {
        "value": {
            "a": "RuntimeError: one two three",
            "b": ["ValueError at backward: the saved tensor was freed", "correct gradient"],
            "c": {"d": "InnerError (not a ValueError): inplace on a viewed Tensor"},
            "e": "Error detected in ReluBackward0",
            "f": "ValueError: too short",
            "g": "RuntimeError: one two three",
            "h": "UserWarning: this is a warning",
        },
        "exception": {"type": "TypeError", "message": "not a value of the record"},
    }
    assert tracebacks.value_messages(observed) == [
        "RuntimeError: one two three",
        "ValueError: the saved tensor was freed",
        "InnerError: inplace on a viewed Tensor",
        "UserWarning: this is a warning",
    ]
    assert tracebacks.value_messages({"value": "TypeError: a b c d"}) == ["TypeError: a b c d"]
    assert tracebacks.value_messages({}) == []


def test_the_section_a_message_opens():
    overview = ("inplace/index.md", "Overview", "o")
    own = ("inplace/leaf-tensors.md", "Leaf", "l")
    later = ("inplace/what-counts.md", "What", "w")
    index = ("errors.md", "Entry", "e")
    assert tracebacks.answering_section([index, overview, own, later]) == own
    assert tracebacks.answering_section([overview, later]) == later
    assert tracebacks.answering_section([overview]) == overview
    assert tracebacks.answering_section([index]) is None
    assert tracebacks.answering_section([]) is None


def test_the_address_of_a_section():
    assert tracebacks.page_href("inplace/leaf-tensors.md", "a") == "inplace/leaf-tensors/#a"
    assert tracebacks.page_href("inplace/index.md", "a") == "inplace/#a"
    assert tracebacks.page_href("index.md", "a") == "#a"
    assert tracebacks.page_href("glossary.md", "b") == "glossary/#b"
    assert tracebacks.page_href("reindex.md", "b") == "reindex/#b"


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
def test_every_message_opens_its_entry_also_as_another_release_prints_it(assets):
    failures = []
    for lang in LANGS:
        for case in cases(assets[lang]):
            found = tracebacks.match(assets[lang], case["text"])
            best = found[0][2]["entry"] if found else None
            if best not in case["entries"]:
                failures.append(f"{lang} {case['name']}: opened {best}, wanted {case['entries']}")
    assert not failures, "\n".join(failures)


def test_what_varies_is_normalised_away():
    a = (
        "RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation: [torch.FloatTensor [2, 4]], which is output 0 of "
        "ReluBackward0, is at version 1; expected version 0 instead."
    )
    b = (
        "RuntimeError: one of the variables needed for gradient computation has been modified "
        "by an inplace operation: [torch.cuda.HalfTensor [128, 64, 3]], which is output 0 of "
        "Relu, is at version 3; expected version 2 instead."
    )
    assert tracebacks.tokens(a) == tracebacks.tokens(b)
    assert tracebacks.tokens("Leaf Var (generated_tensor_426) (at /p/utils.cc:277)") == (
        tracebacks.tokens("Leaf Var (generated_tensor_9) (at /q/eager/other.cc:12)")
    )
    assert tracebacks.tokens("The TensorWrappers of PowGradNode do not exist at 0x7f3a") == (
        tracebacks.tokens("The TensorWrappers of MeanGradNode do not exist at 0x55e1")
    )
    # what does not vary stays: another op of the same kind is another word
    assert tracebacks.tokens("output 0 of Relu") != tracebacks.tokens("output 0 of Sigmoid")


def test_the_frames_of_a_traceback_are_left_out():
    text = in_a_traceback("RuntimeError: grad can be implicitly created only for scalar outputs")
    assert tracebacks.message_part(text).strip() == (
        "RuntimeError: grad can be implicitly created only for scalar outputs"
    )


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
@pytest.mark.parametrize("message", NOT_COVERED, ids=range(1, len(NOT_COVERED) + 1))
def test_a_message_the_site_does_not_cover_matches_nothing(message, assets):
    for lang in LANGS:
        assert tracebacks.match(assets[lang], message) == []
        assert tracebacks.match(assets[lang], in_a_traceback(message)) == []


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
def test_a_message_changed_beyond_what_varies_matches_nothing(assets):
    """The matching can fail: a verified message whose second half is another message's is
    neither, and its first half alone (one line a reader may paste) is still the message."""
    asset = assets["en"]
    text = next(m["text"] for m in asset["messages"] if m["entry"] == "leaf-item-assignment")
    words = text.split()
    half = " ".join(words[: len(words) // 2])
    other = NOT_COVERED[1].split(": ", 1)[1]
    assert tracebacks.match(asset, text)[0][2]["entry"] == "leaf-item-assignment"
    assert tracebacks.match(asset, half)[0][2]["entry"] == "leaf-item-assignment"
    assert tracebacks.match(asset, f"{half} {other}") == []
    assert as_another_run_prints_it(text) != text


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
def test_both_languages_hold_the_same_messages_under_their_own_titles(assets):
    en, zh = assets["en"], assets["zh"]
    assert [e["id"] for e in en["entries"]] == [e["id"] for e in zh["entries"]]
    assert en["messages"] == zh["messages"]
    for e, z in zip(en["entries"], zh["entries"], strict=True):
        assert e["title"] != z["title"] and re.search(r"[\u4e00-\u9fff]", z["title"]), z
    assert set(en["words"]) == set(zh["words"]) == set(tracebacks.WORDS["en"])
    for key, text in zh["words"].items():
        if key != "placeholder":
            assert re.search(r"[\u4e00-\u9fff]", text), (key, text)


def test_a_placeholder_outside_an_entry_is_refused_with_file_and_line():
    page = "# Error index\n\n{{ inplace.leaf-error | torch | exception }}\n\n## Entry { #e }\n"
    with pytest.raises(tracebacks.TracebackError, match=r"errors\.md:3: .*above the first"):
        tracebacks.entries(page, "docs/en/errors.md")


def test_an_index_without_messages_is_refused():
    with pytest.raises(tracebacks.TracebackError, match="no exception or output placeholder"):
        tracebacks.entries("## Entry { #e }\n\nNo message.\n", "docs/en/errors.md")


def test_the_stop_words_are_the_searchs():
    from verified.search_hooks import STOP_WORDS

    assert set(STOP_WORDS) == tracebacks.STOP


@pytest.mark.site  # reads build/claims.json: after the claims (nox: site-tests)
def test_the_asset_is_small(assets):
    size = len(json.dumps(assets["en"], ensure_ascii=False, separators=(",", ":")))
    assert size < 60_000, size


@pytest.mark.parametrize(
    ("url", "prefix"),
    [("", ""), ("errors/", "../"), ("zh/", "../"), ("zh/inplace/leaf-tensors/", "../../../")],
)
def test_every_page_loads_the_box_from_the_site_root(url, prefix):
    from verified.traceback_hooks import tags

    lang = "zh" if url.startswith("zh/") else "en"
    shown = tags(url, lang, "en")
    assert f'src="{prefix}assets/javascripts/traceback.js"' in shown
    assert f'href="{prefix}assets/stylesheets/traceback.css"' in shown
    assert f'data-traceback-header="{tracebacks.WORDS[lang]["header"]}"' in shown
