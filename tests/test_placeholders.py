"""Placeholders whose record did not pass, on a site that shows failures (``nox -s site``).
A block (``output``, ``exception``, ``conditions``): the failure note (statement, what was
observed or why it is stale or not run, what was expected), then the block as far as anything
was observed. A value: what was observed (or last observed, or nothing), what was expected,
and why it is stale or was not run. Both languages; whole texts compared; rendered from fixture
reports at hook level (no site build). Also the wording of observed values in Chinese."""

from __future__ import annotations

import pytest
from claimkit import CLAIMS, VERSIONS, env_for, make_docs, make_snippets, observed_for

from verified.claims import all_cases
from verified.pages.fields import PLACEHOLDER, mark
from verified.pages.fmt import code, env_text, escape, fmt_value
from verified.pages.page import Page
from verified.pages.standing import Use, case_name_of, of_case, of_statement
from verified.pages.tables import silent_table
from verified.pages.words import BOOLEANS, NAMES, SKIP_TEXT, STALE_TEXT, TEXT
from verified.report import ReportError, Reports, record, write

STATEMENTS = {
    "fixture.leaf": {"en": "Leaf error.", "zh": "叶子张量报错。"},
    "fixture.grad": {"en": "The gradient is -16.", "zh": "梯度为 -16。"},
    "fixture.speed": {"en": "In place is faster.", "zh": "原位更快。"},
}
LONG = "value: expected -16, observed -15 " + "x" * 300
CONDITIONS = {"clean": {"ratio": 0.9, "noise": 1.01, "allocator": {}}}


def records(snippets, failed: dict) -> list[dict]:
    """Every fixture case passed (GPU ones skipped), but those in ``failed``: case -> changes."""
    out = []
    for key, case in all_cases(snippets, VERSIONS).items():
        if case.device == "gpu":
            rec = record(case, status="skipped", env=env_for(case.framework), reason="no GPU")
            rec["skip"] = {"code": "no_cuda" if case.framework == "torch" else "cpu_build",
                           "version": VERSIONS[case.framework]}  # fmt: skip
        else:
            rec = record(case, status="passed", env=env_for(case.framework),
                         observed=observed_for(case))  # fmt: skip
        if key in failed:
            rec = {**rec, "status": "failed", **failed[key]}
        out.append(rec)
    return out


@pytest.fixture
def shown(tmp_path):
    """A page renderer over a report where the leaf error (PyTorch) and the timing claim
    (PyTorch) failed, on a site that shows failures."""
    snippets = make_snippets(tmp_path)
    docs = make_docs(tmp_path)
    failed = {
        ("fixture.leaf", "torch", "cpu"): {"reason": LONG},
        ("fixture.speed", "torch", "cpu"): {"reason": None},
        ("fixture.speed", "paddle", "cpu"): {"reason": "ratio 0.9"},
        ("fixture.chain", "torch", "cpu"): {"reason": "killed", "observed": None},
        ("fixture.chain", "paddle", "cpu"): {"reason": "killed", "observed": {"output": "p\n"}},
        ("fixture.grad", "paddle", "cpu"): {"reason": "value", "observed": {"value": -15.5}},
    }
    live = records(snippets, failed)
    for rec in live:
        if (rec["id"], rec["framework"]) == ("fixture.speed", "torch"):
            rec["observed"] = {**rec["observed"], "conditions": CONDITIONS}
        if (rec["id"], rec["framework"]) == ("fixture.speed", "paddle"):
            rec["observed"] = {**rec["observed"], "output": "a ``` fence\n"}
    write(live, tmp_path / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    (tmp_path / "results").mkdir()

    def page(lang: str, provenance: bool = True) -> Page:
        reports = Reports(tmp_path / "build" / "claims.json", tmp_path / "results", snippets,
                          VERSIONS, failed_shown=True)  # fmt: skip
        return Page(reports, lang, f"{lang}/fixture.md", docs=docs, provenance=provenance)

    page.snippets = snippets
    return page


def block(page: Page, placeholder: str) -> str:
    """The block a placeholder on a line of its own becomes (the page adds its banner)."""
    return page.block(PLACEHOLDER.fullmatch(placeholder))


def note(lang: str, claim_id: str, observed: str, expected: dict) -> str:
    return "    " + TEXT[lang]["failed_block"].format(
        statement=STATEMENTS[claim_id][lang],
        observed=observed,
        expected=code(fmt_value(expected)),
    )


def expected_of(page: Page, claim_id: str, framework: str, device: str = "cpu") -> dict:
    return page.reports.live.records[(claim_id, framework, device)]["expected"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_output_block_notes_the_failure_then_shows_what_ran(shown, lang):
    page = shown(lang)
    out = block(page, "{{ fixture.leaf | torch | output }}")
    reason = escape(LONG[:299] + "…")
    assert out == "\n".join(
        [
            '!!! failure "✗ fixture.leaf"',
            "",
            note(lang, "fixture.leaf", reason, expected_of(page, "fixture.leaf", "torch")),
            "",
            f'```text title="{TEXT[lang]["output"]}"',
            "hello",
            "Traceback (most recent call last):",
            "  ...",
            "RuntimeError: a leaf Variable that requires grad",
            "more",
            "```",
        ]
    )
    assert set(page.failures) == {"fixture.leaf[torch-cpu]"}
    # the exception field of the same record: the same note and what was observed
    assert block(page, "{{ fixture.leaf | torch | exception }}") == out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_conditions_block_shows_the_conditions_it_measured(shown, lang):
    page = shown(lang)
    t = TEXT[lang]
    times = "×" if lang == "en" else " 倍"
    assert block(page, "{{ fixture.speed | torch | conditions }}") == "\n".join(
        [
            '!!! failure "✗ fixture.speed"',
            "",
            note(lang, "fixture.speed", "", expected_of(page, "fixture.speed", "torch")),
            "",
            t["conditions_head"],
            "|---|---|---|---|",
            f"| {t['condition']['clean']} | 0.90{times} | 1.01{times} | {t['defaults']} |",
        ]
    )
    # a record without conditions: the note alone (nothing more was observed)
    paddle = expected_of(page, "fixture.speed", "paddle")
    assert block(page, "{{ fixture.speed | paddle | conditions }}") == "\n".join(
        ['!!! failure "✗ fixture.speed"', "", note(lang, "fixture.speed", "ratio 0.9", paddle), ""]
    )
    # its output holds three backticks: the fence is four
    assert block(page, "{{ fixture.speed | paddle | output }}").endswith(
        f'\n\n````text title="{t["output"]}"\na ``` fence\n````'
    )
    assert set(page.failures) == {"fixture.speed[torch-cpu]", "fixture.speed[paddle-cpu]"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_block_not_run_here_says_why(shown, lang):
    page = shown(lang)
    why = SKIP_TEXT[lang]["no_cuda"].format(version=VERSIONS["torch"])
    expected = expected_of(page, "fixture.leaf", "torch", "gpu")
    assert block(page, "{{ fixture.leaf | torch@gpu | output }}") == "\n".join(
        ['!!! failure "✗ fixture.leaf"', "", note(lang, "fixture.leaf", escape(why), expected), ""]
    )
    assert set(page.failures) == {"fixture.leaf[torch-gpu]"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_stale_block_says_what_changed_and_shows_what_it_last_observed(shown, lang):
    (shown.snippets / "fixture" / "grad_torch.py").write_text("# changed\n", encoding="utf-8")
    page = shown(lang)
    why = "the snippet, a file it reads or the expectation changed since it ran"
    why = STALE_TEXT[lang][why] if lang in STALE_TEXT else why
    expected = expected_of(page, "fixture.grad", "torch")
    assert block(page, "{{ fixture.grad | torch | output }}") == "\n".join(
        [
            '!!! failure "✗ fixture.grad"',
            "",
            note(lang, "fixture.grad", escape(why), expected),
            "",
            f'```text title="{TEXT[lang]["output"]}"',
            "hello",
            "```",
        ]
    )


def test_a_failed_block_is_refused_where_failures_are_not_shown(shown):
    page = shown("en")
    strict = Reports(page.reports.live.path, page.reports.live.path.parent.parent / "results",
                     shown.snippets, VERSIONS, failed_shown=False)  # fmt: skip
    with pytest.raises(ReportError, match=r"fixture\.leaf\[torch-cpu\] failed"):
        Page(strict, "en", "en/fixture.md").render("{{ fixture.leaf | torch | output }}")


# -- values ----------------------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_value_shows_what_was_observed_and_expected(shown, lang):
    page = shown(lang, provenance=False)
    t = TEXT[lang]
    expected = code(fmt_value(expected_of(page, "fixture.grad", "paddle")))
    assert page.render("{{ fixture.grad | paddle | value }}") == t["failed_value"].format(
        observed="<code>-15.5</code>", expected=expected
    )
    # a region of a memory claim that observed nothing, and one whose run ended before it
    # measured: "nothing", never another region or an error
    nothing = escape(t["nothing_observed"])
    for framework in ("torch", "paddle"):
        expected = code(fmt_value(expected_of(page, "fixture.chain", framework)))
        assert page.render(f"{{{{ fixture.chain | {framework} | bytes.out }}}}") == t[
            "failed_value"
        ].format(observed=nothing, expected=expected)
    assert set(page.failures) == {
        "fixture.grad[paddle-cpu]",
        "fixture.chain[torch-cpu]",
        "fixture.chain[paddle-cpu]",
    }


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_value_shows_the_region_its_placeholder_names(shown, lang):
    """The key of a failed value's placeholder picks what is shown as observed."""
    page = shown(lang, provenance=False)
    rec = page.reports.live.records[("fixture.chain", "torch", "cpu")]
    rec["observed"] = {  # two regions measured before the run failed
        "bytes": {"out": 2**20, "inplace": 7}
    }
    expected = code(fmt_value(rec["expected"]))
    observed = (
        "1,048,576 " + TEXT[lang]["bytes"] + (" (1.00 MiB)" if lang == "en" else "（1.00 MiB）")
    )
    assert page.render("{{ fixture.chain | torch | bytes.out }}") == TEXT[lang][
        "failed_value"
    ].format(observed=observed, expected=expected)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_value_not_run_here_says_why(shown, lang):
    page = shown(lang, provenance=False)
    why = escape(SKIP_TEXT[lang]["cpu_build"].format(version=VERSIONS["paddle"]))
    expected = code(fmt_value(expected_of(page, "fixture.chain", "paddle", "gpu")))
    assert page.render("{{ fixture.chain | paddle@gpu | bytes.out }}") == TEXT[lang][
        "not_run_value"
    ].format(why=why, expected=expected)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_stale_value_says_what_changed_and_what_it_last_observed(shown, lang):
    (shown.snippets / "fixture" / "grad_torch.py").write_text("# changed\n", encoding="utf-8")
    page = shown(lang, provenance=False)
    why = "the snippet, a file it reads or the expectation changed since it ran"
    why = STALE_TEXT[lang][why] if lang in STALE_TEXT else why
    expected = code(fmt_value(expected_of(page, "fixture.grad", "torch")))
    assert page.render("{{ fixture.grad | torch | value }}") == TEXT[lang]["stale_value"].format(
        why=escape(why), observed="<code>-16</code>", expected=expected
    )
    assert set(page.failures) == {"fixture.grad[torch-cpu]"}


# -- observed values in the page's language ----------------------------------------------------


def test_observed_values_worded_in_chinese_inside_lists_and_dicts(shown):
    """Booleans and English phrases are worded in Chinese wherever they sit in the value; English
    pages show the value as observed; the table is the article's (the id up to its first dot)."""
    (shown.snippets / "fixture" / "values.zh.toml").write_text(
        '"wrong gradient" = "梯度错误"\n', encoding="utf-8"
    )
    rec = {"id": "fixture.nested.claim"}
    raw = [True, {"first": False, "second": "wrong gradient"}, 3, "x"]
    assert shown("en").worded(rec, raw[:1] + raw[2:], "page.md: x") == [True, 3, "x"]
    zh = BOOLEANS["zh"]
    assert shown("zh").worded(rec, raw, "page.md: x") == [
        zh[True],
        {"first": zh[False], "second": "梯度错误"},
        3,
        "x",
    ]
    with pytest.raises(ReportError) as err:
        shown("zh").worded(rec, [{"a": "no error here"}], "page.md: x")
    assert str(err.value).startswith("page.md: x: the observed value 'no error here' is English")


# -- the silent-failures table ---------------------------------------------------------------


def silent_row(tmp_path, lang: str, failed: dict, shown: bool = True) -> str:
    snippets = make_snippets(tmp_path)
    docs = make_docs(tmp_path)
    write(records(snippets, failed), tmp_path / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    (tmp_path / "results").mkdir(exist_ok=True)
    reports = Reports(tmp_path / "build" / "claims.json", tmp_path / "results", snippets,
                      VERSIONS, failed_shown=shown)  # fmt: skip
    failures: dict = {}
    table = silent_table(reports, lang, docs, failures)
    assert set(failures) == {f"fixture.launch[{fw}-cpu]" for (_id, fw, _dev) in failed}
    return table.split("\n")[-1]


def marked(lang: str, framework: str, why: str) -> str:
    t = TEXT[lang]
    text = t["marked"].format(framework=NAMES[lang][framework], device=t["dev"]["cpu"],
                              status=t["marked_status"]["failed"], why=why)  # fmt: skip
    return (
        f'[<span class="claim-failed">{text}</span>](verification.md#c-fixture-launch-{framework})'
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_silent_row_marks_each_framework_that_failed_beside_those_affected(tmp_path, lang):
    """PaddlePaddle's record failed (marked ✗, linked to its row), PyTorch's passed and observed
    the silent loss (named); with both failed, both are marked, in the frameworks' order."""
    t = TEXT[lang]
    symptom, fix = {
        "en": ("The loss is lost.", "Keep the loss."),
        "zh": ("损失丢失。", "保留损失。"),
    }[lang]
    paddle = ("fixture.launch", "paddle", "cpu")
    torch = ("fixture.launch", "torch", "cpu")
    row = silent_row(tmp_path / "one", lang, {paddle: {"reason": "boom"}})
    torch_link = f"[{NAMES[lang]['torch']}](verification.md#c-fixture-launch-torch)"
    assert row == (
        f"| {symptom} | {torch_link}{t['list_sep']}{marked(lang, 'paddle', 'boom')} | "
        f"[A section](fixture.md#a-section) | {fix} |"
    )
    row = silent_row(
        tmp_path / "two", lang, {paddle: {"reason": "boom"}, torch: {"reason": "bang"}}
    )
    marks = marked(lang, "paddle", "boom") + t["list_sep"] + marked(lang, "torch", "bang")
    assert row == f"| {symptom} | {marks} | [A section](fixture.md#a-section) | {fix} |"


def test_a_silent_row_of_a_failed_record_is_refused_in_a_strict_build(tmp_path):
    with pytest.raises(ReportError) as err:
        silent_row(tmp_path, "en", {("fixture.launch", "torch", "cpu"): {"reason": "bang"}}, False)
    assert str(err.value) == (
        f"silent failures: claim fixture.launch[torch-cpu] failed in "
        f"{tmp_path / 'build' / 'claims.json'}: bang"
    )


def test_a_silent_row_whose_claim_no_page_shows_is_refused(tmp_path):
    snippets = make_snippets(tmp_path)
    docs = make_docs(tmp_path)
    for lang in ("en", "zh"):
        page = docs / lang / "fixture.md"
        page.write_text(
            page.read_text("utf-8").replace("{{ fixture.launch | paddle | statement }}", ""),
            "utf-8",
        )
    write(records(snippets, {}), tmp_path / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    (tmp_path / "results").mkdir()
    reports = Reports(tmp_path / "build" / "claims.json", tmp_path / "results", snippets, VERSIONS)
    with pytest.raises(ReportError) as err:
        silent_table(reports, "zh", docs)
    assert str(err.value) == (
        "silent failures: claim fixture.launch names section 'a-section', which does not use it "
        "in docs/zh/fixture.md"
    )


# -- blocks of passed records, and what a page refuses -----------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_passed_conditions_block_is_the_table_of_its_conditions(shown, lang):
    page = shown(lang, provenance=False)
    rec = page.reports.live.records[("fixture.speed", "torch", "cpu")]
    rec.update(status="passed", observed={**rec["observed"], "conditions": CONDITIONS})
    from verified.pages.fields import conditions_table

    assert block(page, "{{ fixture.speed | torch | conditions }}") == conditions_table(
        rec, lang, "x"
    )
    assert page.failures == {}


@pytest.mark.parametrize(
    ("placeholder", "message"),
    [
        (
            "{{ fixture.grad | torch | conditions }}",
            "the record has no conditions (not a timing claim?)",
        ),
        ("{{ fixture.grad | torch | exception }}", "the claim observed no exception"),
        ("{{ fixture.leaf | paddle | exception.first }}", "the exception field takes no key"),
    ],
)
def test_a_block_the_record_cannot_fill_is_refused_naming_page_and_placeholder(
    shown, placeholder, message
):
    with pytest.raises(ReportError) as err:
        block(shown("en"), placeholder)
    assert str(err.value) == f"en/fixture.md: {placeholder}: {message}"


def test_a_failed_block_of_a_claim_no_longer_declared_is_refused(shown):
    """The record stays in the report after its claim is deleted: stale, and never shown."""
    claims = shown.snippets / "fixture" / "claims.toml"
    text = claims.read_text(encoding="utf-8")
    claims.write_text(text[: text.index('[[claim]]\nid = "fixture.speed"')], encoding="utf-8")
    with pytest.raises(ReportError) as err:
        block(shown("en"), "{{ fixture.speed | torch | output }}")
    assert str(err.value) == (
        "en/fixture.md: {{ fixture.speed | torch | output }}: unknown claim 'fixture.speed'"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_value_links_to_its_row_naming_its_field(shown, lang):
    out = shown(lang).render("{{ fixture.grad | paddle | value }}").split("\n")[-1]
    assert out.startswith('[<span class="claim-failed">✗ ')
    assert 'data-claim="fixture.grad" data-framework="paddle" data-device="cpu" ' in out
    assert 'data-field="value"' in out


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_banner_lists_what_failed_under_the_title(shown, lang):
    page = shown(lang)
    t = TEXT[lang]
    text = page.render("# Title\n\nText {{ fixture.grad | paddle | value }}.\n")
    env = page.failures["fixture.grad[paddle-cpu]"].env
    command = "python -m pytest snippets -k 'fixture.grad[paddle-cpu]'"
    lines = text.split("\n")
    assert lines[:9] == [
        "# Title",
        "",
        f'!!! failure "{t["banner_title"]}"',
        "",
        "    " + t["banner"].format(env=env_text(env, lang), command=command, root=""),
        "",
        "    - `fixture.grad[paddle-cpu]`",
        "",
        "",
    ]
    assert lines[9].startswith('Text [<span class="claim-failed">') and lines[10:] == [""]


# -- what a statement rests on -----------------------------------------------------------------


def names_of(standing) -> list[str]:
    return [case_name_of(e) for e in standing.entries]


def test_a_statement_rests_on_every_cpu_record_and_on_gpu_records_that_ran(shown):
    """fixture.leaf is declared on both devices: its GPU records were skipped (no GPU here), so
    the statement rests on the CPU records alone; a GPU record that failed counts; a missing
    CPU record is named, with the report looked in."""
    page = shown("en")
    claim = {c.id: c for c in page.reports.claims}["fixture.leaf"]
    assert claim.devices == ("cpu", "gpu")
    assert names_of(of_statement(page.reports, claim)) == [
        "fixture.leaf[paddle-cpu]",
        "fixture.leaf[torch-cpu]",
    ]
    records = page.reports.live.records
    records[("fixture.leaf", "paddle", "gpu")]["status"] = "failed"
    standing = of_statement(page.reports, claim)
    assert names_of(standing) == [
        "fixture.leaf[paddle-cpu]",
        "fixture.leaf[paddle-gpu]",
        "fixture.leaf[torch-cpu]",
    ]
    assert standing.missing == ()
    del records[("fixture.leaf", "torch", "cpu")]
    standing = of_statement(page.reports, claim)
    live = str(page.reports.live.path)
    assert standing.missing == (("fixture.leaf[torch-cpu]", live),)
    assert standing.refusal(Use.STATEMENT, "") == (
        f"claim fixture.leaf[torch-cpu] is not in {live} (unknown id, or the claims were not run)"
    )


def test_a_statement_rests_on_the_cpu_whatever_order_the_claim_lists_its_devices(tmp_path):
    """A claim may list the GPU first: a GPU record that was skipped is passed over, and the
    CPU records are still rested on. A case's device is the CPU unless named."""
    gpu_first = 'snippet = "leaf"\ndevices = ["gpu", "cpu"]\n'
    snippets = make_snippets(tmp_path, CLAIMS.replace('snippet = "leaf"\n', gpu_first))
    live = tmp_path / "build" / "claims.json"
    failed = {("fixture.leaf", "torch", "cpu"): {"reason": "boom"}}
    write(records(snippets, failed), live, snippets=snippets, versions=VERSIONS)
    reports = Reports(live, tmp_path / "results", snippets, VERSIONS)
    claim = {c.id: c for c in reports.claims}["fixture.leaf"]
    assert claim.devices == ("gpu", "cpu")
    standing = of_statement(reports, claim)
    assert names_of(standing) == ["fixture.leaf[paddle-cpu]", "fixture.leaf[torch-cpu]"]
    assert [case_name_of(e) for e in standing.failing(Use.STATEMENT)] == ["fixture.leaf[torch-cpu]"]
    assert names_of(of_case(reports, "fixture.leaf", "torch")) == ["fixture.leaf[torch-cpu]"]
    assert of_case(reports, "fixture.leaf", "torch").missing == ()


# -- the verification page's list of what did not pass, and each mark --------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_verification_page_opens_with_every_record_that_failed_or_is_stale(shown, lang):
    """Failed records, and stale ones of this build, but not a stale record of a case this
    build did not run (skipped: no GPU here)."""
    from verified.pages.fmt import anchor
    from verified.pages.tables import failed_entries, not_passed

    (shown.snippets / "fixture" / "leaf_paddle.py").write_text("# changed\n", encoding="utf-8")
    page = shown(lang)
    t = TEXT[lang]
    found = failed_entries(page.reports)
    names = sorted(case_name_of(e) for e in found)
    assert names == [
        "fixture.chain[paddle-cpu]",
        "fixture.chain[torch-cpu]",
        "fixture.grad[paddle-cpu]",
        "fixture.leaf[paddle-cpu]",  # stale; its GPU record (skipped) is stale too, not listed
        "fixture.leaf[torch-cpu]",
        "fixture.speed[paddle-cpu]",
        "fixture.speed[torch-cpu]",
    ]
    command = "python -m pytest snippets -k '" + " or ".join(names) + "'"
    items = [
        f"    - [`{case_name_of(e)}`](#{anchor(e.rec['id'], e.rec['framework'])}){t['colon']}"
        + mark(e, lang, None)
        for e in found
    ]
    assert not_passed(page.reports, lang) == [
        f'!!! failure "{t["failed_records"].format(count=7)}"',
        "",
        "    " + t["failed_records_intro"].format(command=command),
        "",
        *items,
        "",
    ]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_mark_says_framework_device_status_and_why_in_one_line(shown, lang):
    (shown.snippets / "fixture" / "grad_torch.py").write_text("# changed\n", encoding="utf-8")
    page = shown(lang)
    t = TEXT[lang]
    records = page.reports.live.records

    def marked(key, status, why):
        entry = page.reports.live.entry(records[key])
        text = t["marked"].format(framework=NAMES[lang][key[1]], device=t["dev"][key[2]],
                                  status=t["marked_status"][status], why=why)  # fmt: skip
        assert mark(entry, lang, None) == f'<span class="claim-failed">{text}</span>'

    stale = "the snippet, a file it reads or the expectation changed since it ran"
    marked(("fixture.grad", "torch", "cpu"), "stale", STALE_TEXT.get(lang, {}).get(stale, stale))
    no_gpu = SKIP_TEXT[lang]["no_cuda"].format(version=VERSIONS["torch"])
    marked(("fixture.leaf", "torch", "gpu"), "skipped", escape(no_gpu))
    records[("fixture.grad", "paddle", "cpu")]["reason"] = None  # failed, and said nothing
    marked(("fixture.grad", "paddle", "cpu"), "failed", escape(t["nothing_observed"]))
    records[("fixture.grad", "paddle", "cpu")]["reason"] = "  first line\nsecond\n"
    marked(("fixture.grad", "paddle", "cpu"), "failed", "first line")
    marked(("fixture.leaf", "torch", "cpu"), "failed", escape(LONG[:299] + "…"))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_verified_line_speaks_of_the_pages_own_claims(shown, lang):
    """Its processor is a CPU record's, its date the newest of the page's claims' records (one
    without a date aside), whatever other claims' records say."""
    page = shown(lang, provenance=False)
    for (claim_id, fw, device), rec in page.reports.live.records.items():
        if device == "gpu":
            rec["env"] = {**rec["env"], "cpu": "Another CPU"}
        if claim_id == "fixture.chain":
            rec["env"] = {**rec["env"], "date": "2026-12-09T10:00:00+00:00"}
        if claim_id == "fixture.leaf" or (claim_id, fw) == ("fixture.grad", "paddle"):
            rec["env"] = {**rec["env"], "date": None}
    line = page.render("{{ verified }}\n\n{{ fixture.leaf | paddle | type }}").split("\n")[0]
    assert "Test CPU" in line and "Another CPU" not in line
    assert "2026-12-01" not in line and "2026-12-09" not in line  # leaf's records have no date
    line = page.render("{{ verified }}\n\n{{ fixture.grad | torch | value }}").split("\n")[0]
    assert "2026-12-01" in line and "2026-12-09" not in line
    # the first record of the page's claims is a GPU one: the processor is still a CPU record's
    records = page.reports.live.records
    gpu_first = sorted(records, key=lambda key: key[2] != "gpu")
    page.reports.live.records = {key: records[key] for key in gpu_first}
    line = page.render("{{ verified }}\n\n{{ fixture.leaf | paddle | type }}").split("\n")[0]
    assert "Test CPU" in line and "Another CPU" not in line
    # a page whose claims have GPU records only here: the first one's environment
    for key in [k for k in records if k[0] == "fixture.leaf" and k[2] == "cpu"]:
        del page.reports.live.records[key]
    page.claims_used = {"fixture.leaf"}
    assert "Another CPU" in page.verified_line()


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_statement_of_a_notebook_marks_each_failed_record_without_links(shown, lang):
    """Both frameworks' records of fixture.speed failed: the statement is followed by both
    marks, one space apart, unlinked (a notebook has no verification page beside it)."""
    page = shown(lang, provenance=False)
    records = page.reports.live.records
    marks = [
        mark(page.reports.live.entry(records[("fixture.speed", fw, "cpu")]), lang, None)
        for fw in ("paddle", "torch")
    ]
    assert "](" not in marks[0] + marks[1]
    assert page.render("{{ fixture.speed | torch | statement }}") == (
        f"{STATEMENTS['fixture.speed'][lang]} {marks[0]} {marks[1]}"
    )


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_block_shows_an_exception_that_came_without_output(shown, lang):
    page = shown(lang)
    rec = page.reports.live.records[("fixture.leaf", "torch", "cpu")]
    rec["observed"] = {**rec["observed"], "output": ""}
    out = block(page, "{{ fixture.leaf | torch | output }}")
    assert out.endswith(
        f'```text title="{TEXT[lang]["output"]}"\nTraceback (most recent call last):\n  ...\n'
        "RuntimeError: a leaf Variable that requires grad\nmore\n```"
    )
    assert page.failures["fixture.leaf[torch-cpu]"].rec is rec  # the page's banner lists it


def test_a_page_without_a_title_gets_the_banner_first(shown):
    page = shown("en")
    lines = page.render("Text {{ fixture.grad | paddle | value }}.").split("\n")
    assert lines[0] == "" and lines[1].startswith('!!! failure "')
    assert lines[-1].startswith("Text [<span")


def test_a_dict_value_without_a_key_is_worded_in_chinese(shown):
    out = shown("zh", provenance=False).render("{{ fixture.launch | torch | value }}")
    yes = BOOLEANS["zh"][True]
    assert out == f"<code>&#123;agree: {yes}, silent&#95;loss: {yes}, evidence: 3&#125;</code>"


# -- a cell of the verification page's table ---------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_verification_cell_says_status_what_was_observed_and_where(shown, lang):
    from verified.pages.fmt import allocator_text, env_short, shorten
    from verified.pages.tables import summary
    from verified.pages.words import unrunnable_text

    (shown.snippets / "fixture" / "grad_torch.py").write_text("# changed\n", encoding="utf-8")
    page = shown(lang)
    t = TEXT[lang]
    records = page.reports.live.records

    def cell(key, **changes):
        rec = records[key]
        rec.update(changes)
        entry = page.reports.live.entry(rec)
        return summary(entry, lang), env_short(entry.env, lang)

    got, env = cell(("fixture.leaf", "torch", "cpu"))
    assert got == f"✗ {t['status']['failed']}: {escape(LONG[:200])}<br>{env}"
    got, env = cell(("fixture.speed", "torch", "cpu"))  # failed, no reason given
    assert got == f"✗ {t['status']['failed']}: <br>{env}"
    why = "the snippet, a file it reads or the expectation changed since it ran"
    got, _ = cell(("fixture.grad", "torch", "cpu"))
    assert got == f"⟳ {t['status']['stale']}{t['colon']}{STALE_TEXT.get(lang, {}).get(why, why)}"
    reason = ("paddle 2.6.2 has no host allocator statistics to measure with "
              "(core.host_memory_stat_reset_peak_value missing)")  # fmt: skip
    got, env = cell(("fixture.chain", "paddle", "cpu"), status="not-runnable", reason=reason)
    shown_reason = escape(unrunnable_text({"reason": reason}, lang)[:200])
    assert got == f"⊘ {t['status']['not-runnable']}{t['colon']}{shown_reason}<br>{env}"
    # passed: what was observed, shortened to 140 characters
    long = "x" * 300
    leaf = records[("fixture.leaf", "paddle", "cpu")]
    exc = {**leaf["observed"]["exception"], "message": long + "\nsecond line"}
    got, env = cell(
        ("fixture.leaf", "paddle", "cpu"), observed={**leaf["observed"], "exception": exc}
    )
    assert got == f"✓ {code(shorten('ValueError: ' + long, 140))}<br>{env}"
    grad = records[("fixture.grad", "paddle", "cpu")]
    got, env = cell(("fixture.grad", "paddle", "cpu"), status="passed",
                    observed={**grad["observed"], "value": [1.5] * 100})  # fmt: skip
    assert got == f"✓ {code(shorten(fmt_value([1.5] * 100), 140))}<br>{env}"
    # a memory claim of one region; and the allocator settings a value claim ran with
    chain = records[("fixture.chain", "torch", "cpu")]
    allocator = {"MALLOC_ARENA_MAX": "2"}
    got, env = cell(("fixture.chain", "torch", "cpu"), status="passed",
                    observed={"bytes": 2048, "theoretical_bytes": 4096},
                    env={**chain["env"], "allocator": allocator})  # fmt: skip
    unit = "B (measured / theoretical)" if lang == "en" else "字节（实测 / 理论值）"
    shown_allocator = escape(allocator_text({"allocator": allocator}, lang))
    assert got == f"✓ 2,048 / 4,096 {unit}<br>{env}<br>{shown_allocator}"
    # a timing without a control: ratio and times only
    speed = records[("fixture.speed", "paddle", "cpu")]
    observed = {k: v for k, v in speed["observed"].items() if k != "noise"}
    got, _ = cell(("fixture.speed", "paddle", "cpu"), status="passed", observed=observed)
    from verified.pages.fmt import fmt_ratio, fmt_seconds

    times = f"{fmt_seconds(0.004)} / {fmt_seconds(0.002)}"
    ratio = fmt_ratio(observed["ratio"], lang) + (" " if lang == "en" else "")
    assert got.startswith(f"✓ {ratio}{t['paren'].format(t['medians'] + t['colon'] + times)}<br>")


def test_the_record_of_a_case_newest_passed_first_and_where_a_missing_one_was_looked_for(shown):
    """A GPU case is looked up in the live report and in every environment report: the newest
    run that passed wins (one without a date loses); a missing case names where it was looked
    for; what did not pass is listed worst first."""
    from verified.pages.standing import Standing, of_case

    snippets = shown.snippets
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "torch", "gpu")]
    kit = record(case, status="passed", env=env_for("torch", "gpu", date="2026-11-01"),
                 observed=observed_for(case))  # fmt: skip
    write([kit], snippets.parent / "results" / "gpu-a.json", snippets=snippets,
          versions=VERSIONS, name="gpu-a")  # fmt: skip
    page = shown("en")
    live = page.reports.live.records[("fixture.chain", "torch", "gpu")]
    live.update(status="passed", observed=observed_for(case), env={**live["env"], "date": None})
    (entry,) = of_case(page.reports, "fixture.chain", "torch", "gpu").entries
    assert entry.report is not page.reports.live and entry.env["date"] == "2026-11-01"
    where = str(page.reports.live.path)
    assert of_case(page.reports, "fixture.none", "torch", "gpu").missing == (
        ("fixture.none[torch-gpu]", f"{where} or results/"),
    )
    assert of_case(page.reports, "fixture.none", "torch", "cpu").missing == (
        ("fixture.none[torch-cpu]", where),
    )
    records = page.reports.live.records
    skipped = page.reports.live.entry(records[("fixture.leaf", "torch", "gpu")])
    failed = page.reports.live.entry(records[("fixture.leaf", "torch", "cpu")])
    assert Standing((skipped, failed)).failing(Use.VALUE) == [failed, skipped]
