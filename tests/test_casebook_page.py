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
from claimkit import ascii_locale
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


@pytest.mark.parametrize(
    "breakage",
    ["reason without zh", "reason zh blank", "class without zh", "class title blank", "class untitled",
     "held-out answer", "held-out covered", "held-out reason", "held-out reproduced",
     "held-out reproduced_in", "answer to a page only in English"],
)  # fmt: skip
def test_problems_names_each_defect_of_small_data(tmp_path, breakage):
    """problems() on data of one class, one reason and two reports: none when it is whole, and
    the one defect when one is made (each message names what to fix)."""
    for lang, text in (("en", "# Page\n\n## Answer here\n"), ("zh", "# 页面\n\n## 答案\n")):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "p.md").write_text(text, encoding="utf-8")
    data = {
        "classes": {"c": {"title": {"en": "C", "zh": "丙"}}},
        "reasons": {"r": {"en": "Why.", "zh": "原因。"}},
        "report": [
            {"id": "a", "class": "c", "heldout": False, "answer": "p.md#answer-here"},
            {"id": "b", "class": "c", "heldout": True},
        ],
    }
    assert casebook.problems(data, tmp_path) == []
    assert casebook.problems({}, tmp_path) == []  # nothing declared, nothing wrong
    held = data["report"][1]
    expected = {
        "reason without zh": "[reasons.r]: no text for ['zh']",
        "reason zh blank": "[reasons.r]: no text for ['zh']",
        "class without zh": "[classes.c]: title.en and title.zh are required",
        "class title blank": "[classes.c]: title.en and title.zh are required",
        "class untitled": "[classes.c]: title.en and title.zh are required",
        "answer to a page only in English": "no page docs/zh/q.md",
    }.get(
        breakage, "reports.toml: report 'b' is held out: it must not be mapped before the grading"
    )
    if breakage == "reason without zh":
        del data["reasons"]["r"]["zh"]
    elif breakage == "reason zh blank":
        data["reasons"]["r"]["zh"] = "  "
    elif breakage == "class without zh":
        del data["classes"]["c"]["title"]["zh"]
    elif breakage == "class title blank":
        data["classes"]["c"]["title"]["zh"] = " "
    elif breakage == "class untitled":
        del data["classes"]["c"]["title"]
    elif breakage == "answer to a page only in English":
        (tmp_path / "en" / "q.md").write_text("# Q\n\n## Answer here\n", encoding="utf-8")
        data["report"][0]["answer"] = "q.md#answer-here"
    else:
        key = breakage.removeprefix("held-out ")
        held[key] = {"covered": False, "reproduced_in": []}.get(key, "p.md#answer-here")
    found = casebook.problems(data, tmp_path)
    assert len(found) == 1 and expected in found[0], found


def test_a_translated_page_whose_headings_no_longer_pair_fails(data, tmp_path):
    for lang, text in (("en", "# Page\n\n## A\n\n## B\n"), ("zh", "# 页面\n\n## 甲\n")):
        (tmp_path / lang).mkdir()
        (tmp_path / lang / "p.md").write_text(text, encoding="utf-8")
    with pytest.raises(casebook.CasebookError) as excinfo:
        casebook.section("p.md#b", "zh", tmp_path)
    assert str(excinfo.value) == (
        "docs/zh/p.md has 2 headings, docs/en/p.md 3: the sections no longer pair"
    )
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


def test_reproduced_in_keeps_only_the_releases_it_names(data, tmp_path):
    """A claim may declare an older release's own expectation for a release that does not
    have the bug (PyTorch 2.2.2 before a regression): ``reproduced_in`` names the releases
    of the old behaviour, each one where the claim passed with its own expectation."""
    fake = copy.deepcopy(data)
    for r in casebook.listed(fake):
        r.pop("reproduced", None)
    report = casebook.known_issues_of(fake)[0]
    report.update(reproduced="fixture.claim", base="torch")
    folder = _matrix(tmp_path, {"range": "<2.12"})
    record = {"id": "fixture.claim", "framework": "torch", "status": "passed",
              "override": {"range": "<2.3"}}  # fmt: skip
    older = {"schema": 1, "name": "torch-2.2.2", "generated": "", "claims": [record]}
    (folder / "torch-2.2.2.json").write_text(json.dumps(older), encoding="utf-8")
    assert "reproduced on PyTorch 2.2.2, PyTorch 2.7.1" in casebook.known_issues(fake, "en", folder)
    report["reproduced_in"] = ["torch-2.7.1"]
    table = casebook.known_issues(fake, "en", folder)
    assert "reproduced on PyTorch 2.7.1" in table and "2.2.2" not in table
    for wrong in (["torch-2.10.0"], []):  # not passing with its own expectation there; none
        report["reproduced_in"] = wrong
        with pytest.raises(casebook.CasebookError, match="reproduced_in names"):
            casebook.known_issues(fake, "en", folder)


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


SMALL = {
    "classes": {
        "a": {"title": {"en": "A", "zh": "甲"}},
        "c": {"title": {"en": "C", "zh": "丙"}},
        "inplace-kernel-bug": {"title": {"en": "K", "zh": "丁"}},
    },
    "reasons": {"r": {"en": "Why.", "zh": "原因。"}},
    "report": [
        {"id": "b", "class": "c", "heldout": False, "covered": False, "reason": "r",
         "url": "https://github.com/o/r/pull/8", "framework": "torch", "base": "torch",
         "kind": "silent", "message": "quiet"},
        {"id": "a", "class": "c", "heldout": False, "answer": "p.md#answer-here",
         "url": "https://github.com/o/r/issues/7", "framework": "transformers (torch)",
         "base": "torch", "kind": "error", "message": "Boom   happened\n now"},
        {"id": "k1", "class": "inplace-kernel-bug", "heldout": False, "covered": False,
         "reason": "r", "url": "https://discuss.pytorch.org/t/x/1", "framework": "paddle",
         "base": "paddle", "kind": "error", "message": "m",
         "fixed_release": "PaddlePaddle 3.3", "fixed_in": "PR #1"},
        {"id": "k2", "class": "inplace-kernel-bug", "heldout": False, "covered": False,
         "reason": "r", "url": "https://github.com/p/q/issues/2", "framework": "paddle",
         "base": "paddle", "kind": "silent", "message": "n"},
        {"id": "z", "class": "a", "heldout": False, "covered": False, "reason": "r",
         "url": "https://github.com/o/r", "framework": "torch", "base": "torch",
         "kind": "silent", "message": "one"},
        {"id": "h", "class": "c", "heldout": True},
    ],
}  # fmt: skip
RENDERED = {
    "en": """\
5 of the 6 reports of the casebook are listed here: 1 with the section of this site that \
answers them, 4 marked “not covered here” with the reason. 1 more are held out for grading the \
site and are not listed yet.

### C

| Report | Message or symptom, as reported | Where this site answers it |
|---|---|---|
| [o/r#7](https://github.com/o/r/issues/7)<br>transformers (torch), error | Boom happened now \
| [Answer here](p.md#answer-here) |
| [o/r#8](https://github.com/o/r/pull/8)<br>PyTorch, silent | quiet | Not covered here: Why. |

### K

| Report | Message or symptom, as reported | Where this site answers it |
|---|---|---|
| [discuss.pytorch.org](https://discuss.pytorch.org/t/x/1)<br>PaddlePaddle, error | m \
| Not covered here: Why. |
| [p/q#2](https://github.com/p/q/issues/2)<br>PaddlePaddle, silent | n | Not covered here: Why. |

### A

| Report | Message or symptom, as reported | Where this site answers it |
|---|---|---|
| [github.com](https://github.com/o/r)<br>PyTorch, silent | one | Not covered here: Why. |

| Report | What happens | Fixed in | Fix named in the thread | Release matrix |
|---|---|---|---|---|
| [discuss.pytorch.org](https://discuss.pytorch.org/t/x/1)<br>PaddlePaddle, error | m \
| PaddlePaddle 3.3 | PR #1 | cited |
| [p/q#2](https://github.com/p/q/issues/2)<br>PaddlePaddle, silent | n \
| not named in the thread | — | cited |""",
    "zh": """\
案例集共有 6 份报告，本页列出其中 5 份：1 份附有本站解答它的章节，4 份标为“本站未涉及”并说明原因。\
另有 1 份留作评估本站之用，暂不列出。

### 丙

| 报告 | 报错信息或现象（原文） | 本站解答它的章节 |
|---|---|---|
| [o/r#7](https://github.com/o/r/issues/7)<br>transformers (torch)，报错 | Boom happened now \
| [答案](p.md#答案) |
| [o/r#8](https://github.com/o/r/pull/8)<br>PyTorch，静默 | quiet | 本站未涉及：原因。 |

### 丁

| 报告 | 报错信息或现象（原文） | 本站解答它的章节 |
|---|---|---|
| [discuss.pytorch.org](https://discuss.pytorch.org/t/x/1)<br>飞桨，报错 | m | 本站未涉及：原因。 |
| [p/q#2](https://github.com/p/q/issues/2)<br>飞桨，静默 | n | 本站未涉及：原因。 |

### 甲

| 报告 | 报错信息或现象（原文） | 本站解答它的章节 |
|---|---|---|
| [github.com](https://github.com/o/r)<br>PyTorch，静默 | one | 本站未涉及：原因。 |

| 报告 | 现象 | 修复版本 | 帖子中写明的修复 | 旧版本上的验证 |
|---|---|---|---|---|
| [discuss.pytorch.org](https://discuss.pytorch.org/t/x/1)<br>飞桨，报错 | m \
| PaddlePaddle 3.3 | PR #1 | 仅引用 |
| [p/q#2](https://github.com/p/q/issues/2)<br>飞桨，静默 | n | 帖子中未写明 | — | 仅引用 |""",
}


@pytest.mark.parametrize("lang", casebook.LANGS)
def test_the_page_renders_small_data_exactly(tmp_path, lang):
    """Summary, one table per class (the most reported first; rows by id), the known-issues
    table (release classes and reports with a fix), in each language, cell by cell."""
    for code, text in (("en", "# Page\n\n## Answer here\n"), ("zh", "# 页面\n\n## 答案\n")):
        (tmp_path / code).mkdir()
        (tmp_path / code / "p.md").write_text(text, encoding="utf-8")
    (tmp_path / "results").mkdir()
    page = "intro\n{{ casebook-summary }}\n\n  {{ casebook }}\n\n{{ known-issues }}\nend"
    rendered = casebook.render(page, lang, copy.deepcopy(SMALL), tmp_path, tmp_path / "results")
    assert rendered == "intro\n" + RENDERED[lang] + "\nend"
    broken = copy.deepcopy(SMALL)
    del broken["reasons"]["r"]["zh"]
    del broken["classes"]["a"]["title"]
    with pytest.raises(casebook.CasebookError) as excinfo:
        casebook.render(page, lang, broken, tmp_path, tmp_path / "results")
    assert str(excinfo.value) == (
        "casebook/reports.toml:\n[reasons.r]: no text for ['zh']\n"
        "[classes.a]: title.en and title.zh are required"
    )


def test_render_reads_the_casebook_itself_by_default():
    assert casebook.render("no placeholder", "en") == "no placeholder"


def test_the_casebook_is_read_as_utf8_whatever_the_locale(tmp_path):
    path = tmp_path / "reports.toml"
    path.write_text('[[report]]\nid = "r1"\nmessage = "梯度为 None"\n', encoding="utf-8")
    with ascii_locale():
        assert casebook.load(path) == {"report": [{"id": "r1", "message": "梯度为 None"}]}


def test_small_helpers_with_what_the_data_may_lack():
    assert casebook.listed({}) == [] and casebook.held_out({}) == 0
    assert casebook.thread_name("https://github.com/o/r") == "github.com"
    assert casebook.thread_name("https://github.com/o/r/discussions/5") == "github.com"
    assert casebook.thread_name("https://github.com/o/r/pull/9/files") == "o/r#9"
    assert casebook.thread_name("https://gitlab.com/o/r/issues/3") == "gitlab.com"
    assert casebook.release_name("jax-0.4.30", "en") == "jax 0.4.30"
    assert casebook.release_name("paddle-3.0.0", "zh") == "飞桨 3.0.0"
    assert casebook.release_name("torch-2.7.1-cu118", "en") == "PyTorch 2.7.1-cu118"
    assert casebook._release_key("torch-2.7.1-cu118")[0] == "torch"
    assert casebook._release_key("paddle-3.0.0b1") == ("paddle", (3, 0, "0b1"))
    assert sorted(["torch-2.10.0", "torch-2.7.1"], key=casebook._release_key) == [
        "torch-2.7.1",
        "torch-2.10.0",
    ]


def test_section_says_what_is_missing(tmp_path):
    for code, text in (("en", "# Page\n\n## Answer here\n"), ("zh", "# 页面\n\n## 答案\n")):
        (tmp_path / code).mkdir()
        (tmp_path / code / "p.md").write_text(text, encoding="utf-8")
    (tmp_path / "en" / "q.md").write_text("# Q\n", encoding="utf-8")
    for answer, lang, message in (
        ("p.md", "en", "no page docs/en/p.md with a heading id after '#'"),
        ("p.txt#a", "en", "no page docs/en/p.txt with a heading id after '#'"),
        ("r.md#a", "en", "no page docs/en/r.md with a heading id after '#'"),
        ("p.md#answer-here#x", "en", "docs/en/p.md has no heading with the id 'answer-here#x'"),
        ("q.md#q", "zh", "no page docs/zh/q.md"),
    ):
        with pytest.raises(casebook.CasebookError) as excinfo:
            casebook.section(answer, lang, tmp_path)
        assert str(excinfo.value) == message
    assert casebook.section("p.md#answer-here", "zh", tmp_path) == ("p.md", "答案", "答案")


def test_the_matrix_cell_links_the_claim_and_names_what_is_wrong(data, tmp_path):
    from verified.pages.fmt import anchor

    fake = copy.deepcopy(data)
    for r in casebook.listed(fake):
        r.pop("reproduced", None)
        r.pop("reproduced_in", None)
    report = casebook.known_issues_of(fake)[0]
    report.update(reproduced="fixture.claim", base="torch")
    folder = _matrix(tmp_path, {"range": "<2.12"})
    link = f"verification.md#{anchor('fixture.claim', 'torch')}"
    assert f"| reproduced on PyTorch 2.7.1 ([claim]({link})) |" in casebook.known_issues(
        fake, "en", folder
    )
    report["reproduced_in"] = ["torch-2.7.1", "torch-2.10.0"]
    with pytest.raises(casebook.CasebookError) as excinfo:
        casebook.known_issues(fake, "en", folder)
    assert str(excinfo.value) == (
        f"reports.toml: report {report['id']!r}: reproduced_in names ['torch-2.10.0'], but "
        "fixture.claim passed with a release's own expectation only in ['torch-2.7.1']"
    )
    del report["reproduced_in"]
    with pytest.raises(casebook.CasebookError) as excinfo:
        casebook.known_issues(fake, "en", _matrix(tmp_path, None))
    assert str(excinfo.value) == (
        f"reports.toml: report {report['id']!r}: reproduced = 'fixture.claim', but no "
        "release-matrix report under pinned/ has that claim passing with a release's own "
        "expectation: only a claim can say reproduced"
    )


def test_a_changed_matrix_report_is_read_again(tmp_path):
    folder = _matrix(tmp_path, {"range": "<2.12"})
    assert casebook.reproduced_on("fixture.claim", "torch", folder) == ["torch-2.7.1"]
    path = folder / "torch-2.7.1.json"
    report = json.loads(path.read_text(encoding="utf-8"))
    report["claims"][0]["override"] = None
    path.write_text(json.dumps(report), encoding="utf-8")
    os.utime(path, ns=(1, 1))  # another modification time, whatever the clock's resolution
    assert casebook.reproduced_on("fixture.claim", "torch", folder) == []


def test_the_class_tables_name_a_report_whose_section_is_gone(tmp_path):
    """casebook() checks each answer itself too, when called without render()'s problems()."""
    for code, text in (("en", "# Page\n\n## Answer here\n"), ("zh", "# 页面\n\n## 答案\n")):
        (tmp_path / code).mkdir()
        (tmp_path / code / "p.md").write_text(text, encoding="utf-8")
    data = copy.deepcopy(SMALL)
    next(r for r in data["report"] if r["id"] == "a")["answer"] = "p.md#gone"
    with pytest.raises(casebook.CasebookError) as excinfo:
        casebook.casebook(data, "en", tmp_path)
    assert (
        str(excinfo.value)
        == "reports.toml: report 'a': docs/en/p.md has no heading with the id 'gone'"
    )


def test_headings_inside_code_fences_are_not_headings(tmp_path):
    """A ``# comment`` line inside a fenced block (``` or ~~~) is code, not a heading; the
    fence closes, and the next heading counts again."""
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n```python\n# a comment\nx = 1\n```\n\n## After\n\n"
        "~~~\n## fenced too\n~~~\n\n### Last {#last}\n",
        encoding="utf-8",
    )
    assert casebook.read_headings(page) == (
        ("title", "Title"),
        ("after", "After"),
        ("last", "Last"),
    )


def test_headings_are_read_as_utf8_whatever_the_locale(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# 梯度累积\n", encoding="utf-8")
    with ascii_locale():
        assert [text for _, text in casebook.read_headings(page)] == ["梯度累积"]


def test_only_environment_reports_are_read_from_the_results_folder(tmp_path):
    """A JSON file that is not an environment report (no ``claims``, or no ``name``, or not an
    object) is passed over, not an error; a report is read as UTF-8 whatever the locale."""
    files = {
        "paddle-3.0.0.json": {"name": "paddle-3.0.0", "claims": [{"id": "a", "note": "梯度"}]},
        "matrix-notes.json": {"name": "notes"},  # no claims
        "claims-only.json": {"claims": []},  # no name
        "neither.json": {"other": 1},
        "list.json": ["claims", "name"],
    }
    paths = []
    for name, content in sorted(files.items()):
        path = tmp_path / name
        path.write_text(json.dumps(content, ensure_ascii=False), encoding="utf-8")
        paths.append(path)
    with ascii_locale():
        read = casebook.read_reports(tuple(paths))
    assert read == (("paddle-3.0.0", ({"id": "a", "note": "梯度"},)),)
