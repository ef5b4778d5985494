"""The casebook page (issue 28): every listed report leads to a section of the site that exists,
in both languages, or says why the site does not answer it; the known-issues table says
"reproduced" only where a claim of the release matrix observed the old behaviour. Held-out
reports are never listed or mapped (they are selected by their flag alone; nothing here reads
their content)."""

from __future__ import annotations

import copy
import json
import os
import re
from pathlib import Path

import pytest
from test_terms import GLOSSARY, breaches, rules

from verified import casebook

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def data() -> dict:
    return casebook.load()


def first_answered(data: dict) -> dict:
    return next(r for r in casebook.listed(data) if "answer" in r)


def test_every_listed_report_leads_to_an_existing_section_or_says_why_not(data):
    assert len(casebook.listed(data)) >= 100
    found = casebook.problems(data)
    assert not found, "\n".join(found)


def test_heading_ids_are_computed_with_the_sites_toc_settings():
    """The fast check computes ids as mkdocs.yml tells the build to."""
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    toc = config.split("  - toc:", 1)[1].split("\n  - ", 1)[0]
    assert "slugify: !!python/object/apply:pymdownx.slugs.slugify {kwds: {case: lower}}" in toc
    ids = [i for i, _ in casebook.headings(ROOT / "docs" / "en" / "errors.md")]
    assert "leaf-in-place" in ids  # an explicit { #id }
    leaf = [i for i, _ in casebook.headings(ROOT / "docs" / "zh" / "inplace" / "leaf-tensors.md")]
    assert any(re.search(r"[\u4e00-\u9fff]", i) for i in leaf)  # unicode ids, as the build's


@pytest.mark.parametrize(
    "breakage",
    ["missing heading", "missing page", "no answer", "unknown reason", "held-out mapped"],
)
def test_each_check_of_the_mapping_can_fail(data, breakage):
    broken = copy.deepcopy(data)
    report = first_answered(broken)
    if breakage == "missing heading":
        report["answer"] = report["answer"].partition("#")[0] + "#no-such-heading"
    elif breakage == "missing page":
        report["answer"] = "inplace/no-such-page.md#rule"
    elif breakage == "no answer":
        del report["answer"]
    elif breakage == "unknown reason":
        del report["answer"]
        report.update(covered=False, reason="no-such-reason")
    else:
        next(r for r in broken["report"] if r["heldout"] is True)["answer"] = report["answer"]
    found = casebook.problems(broken)
    assert len(found) == 1, found
    assert repr(report["id"]) in found[0] or breakage == "held-out mapped"


def test_a_translated_page_whose_headings_no_longer_pair_fails(data, tmp_path):
    for lang, text in (("en", "# Page\n\n## A\n\n## B\n"), ("zh", "# 页面\n\n## 甲\n")):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "p.md").write_text(text, encoding="utf-8")
    with pytest.raises(casebook.CasebookError, match="docs/zh/p.md has 2 headings, docs/en/p.md 3"):
        casebook.section("p.md#b", "zh", tmp_path)
    (tmp_path / "zh" / "p.md").write_text("# 页面\n\n## 甲\n\n## 乙\n", encoding="utf-8")
    os.utime(tmp_path / "zh" / "p.md", ns=(1, 1))  # a changed page is read again
    assert casebook.section("p.md#b", "zh", tmp_path) == ("p.md", "乙", "乙")


@pytest.mark.parametrize("lang", casebook.LANGS)
def test_the_page_lists_each_listed_report_once_with_its_message(data, lang):
    page = (ROOT / "docs" / lang / casebook.PAGE).read_text(encoding="utf-8")
    rendered = casebook.render(page, lang, data)
    assert "{{" not in rendered
    listed = casebook.listed(data)
    body = rendered.split("\n## ")[1]  # the reports, before the known issues
    rows = [line for line in body.split("\n") if line.startswith("| [")]
    assert len(rows) == len(listed)
    for r in listed:
        assert sum(f"]({r['url']})" in row for row in rows) == 1, r["id"]
        assert casebook._plain(r["message"]) in body, r["id"]
    held = casebook.held_out(data)
    assert held == 67 and f"{held}" in casebook.summary(data, lang)


def test_the_summary_counts_what_the_data_holds(data):
    text = casebook.summary(data, "en")
    answered = sum(1 for r in casebook.listed(data) if "answer" in r)
    assert text.startswith(f"{len(casebook.listed(data))} of the {len(data['report'])} reports")
    assert f"{answered} with the section" in text
    assert f"{len(casebook.listed(data)) - answered} marked" in text


def test_known_issues_say_reproduced_only_where_a_matrix_claim_observed_it(data):
    table = casebook.known_issues(data, "en")
    rows = [line for line in table.split("\n") if line.startswith("| [")]
    assert len(rows) == len(casebook.known_issues_of(data)) >= 40
    reproduced = [row for row in rows if "reproduced on" in row]
    claimed = [r for r in casebook.known_issues_of(data) if "reproduced" in r]
    assert len(reproduced) == len(claimed) >= 1
    assert all(row.endswith("| cited |") for row in rows if row not in reproduced)
    ddp = next(row for row in rows if "pytorch/pytorch#175024" in row)
    assert "reproduced on PyTorch 2.7.1, PyTorch 2.10.0" in ddp


def test_reports_sent_to_the_known_issues_table_are_in_it(data):
    """The "old-release" reason points the reader to the table: the report must be there."""
    table = {r["id"] for r in casebook.known_issues_of(data)}
    sent = [r["id"] for r in casebook.listed(data) if r.get("reason") == "old-release"]
    assert sent and not [i for i in sent if i not in table]


def _matrix(tmp_path: Path, override) -> Path:
    record = {"id": "fixture.claim", "framework": "torch", "status": "passed", "override": override}
    report = {"schema": 1, "name": "torch-2.7.1", "generated": "", "claims": [record]}
    folder = tmp_path / ("declared" if override else "pinned")
    folder.mkdir()
    (folder / "torch-2.7.1.json").write_text(json.dumps(report), encoding="utf-8")
    return folder


def test_a_report_said_reproduced_without_a_claim_observing_it_fails(data, tmp_path):
    fake = copy.deepcopy(data)
    for r in casebook.listed(fake):
        r.pop("reproduced", None)
    report = casebook.known_issues_of(fake)[0]
    report.update(reproduced="fixture.claim", base="torch")
    # passed with the pinned release's expectation: the old behaviour was not observed
    with pytest.raises(casebook.CasebookError, match="only a claim can say reproduced"):
        casebook.known_issues(fake, "en", _matrix(tmp_path, None))
    table = casebook.known_issues(fake, "en", _matrix(tmp_path, {"range": "<2.12"}))
    assert "reproduced on PyTorch 2.7.1" in table


def test_chinese_text_of_the_casebook_follows_the_terminology_decisions(data):
    decided = rules(GLOSSARY.read_text(encoding="utf-8"))
    texts = [
        *(spec["title"]["zh"] for spec in data["classes"].values()),
        *(reason["zh"] for reason in data["reasons"].values()),
        *casebook.TEXT["zh"].values(),
    ]
    found = [(text, rule.term) for text in texts for rule in decided if breaches(text, rule)]
    assert not found, found


# -- on the built site (`pytest -m site tests/test_casebook_page.py`, after the build) ---------


@pytest.mark.site
@pytest.mark.parametrize("lang", casebook.LANGS)
def test_built_casebook_links_lead_to_existing_headings(data, lang):
    """The built page: one row per listed report, and every link into the site reaches a page
    and an id that the build made (the fast check above computes the same ids)."""
    from urllib.parse import unquote, urljoin, urlsplit

    from sitemodel import SITE, content, lang_prefix, page_at, parse, site_exists

    if not site_exists():
        pytest.fail(f"no built site at {SITE}: build it first")
    page = page_at(lang_prefix(lang) + "casebook/")
    assert page is not None, "no casebook page in the built site"
    base = f"http://site.invalid/{page.path}"
    targets = set()
    for link in content(parse(page.file)).iter("a"):
        url = urljoin(base, link.attrs.get("href", ""))
        parts = urlsplit(url)
        if parts.netloc == "site.invalid" and parts.fragment and "verification" not in parts.path:
            targets.add((parts.path.lstrip("/"), unquote(parts.fragment)))
    answered = {r["answer"].partition("#")[0] for r in casebook.listed(data) if "answer" in r}
    assert len({path for path, _ in targets}) >= len(answered) > 5
    missing = []
    for path, fragment in sorted(targets):
        file = SITE / path / "index.html"
        ids = {n.attrs.get("id") for n in parse(file).iter()} if file.is_file() else set()
        if fragment not in ids:
            missing.append(f"{path}#{fragment}")
    assert not missing, missing
