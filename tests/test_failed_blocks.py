"""A block placeholder (``output``, ``exception``, ``conditions``) whose record did not pass, on
a site that shows failures (``nox -s site``): the failure note (statement, what was observed or
why it is stale or not run, what was expected), then the block as far as anything was
observed. Both languages; whole blocks compared; rendered from fixture reports at hook level
(no site build)."""

from __future__ import annotations

import pytest
from claimkit import VERSIONS, env_for, make_docs, make_snippets, observed_for

from verified.claims import all_cases
from verified.pages.fields import PLACEHOLDER
from verified.pages.fmt import code, escape, fmt_value
from verified.pages.page import Page
from verified.pages.words import SKIP_TEXT, STALE_TEXT, TEXT
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
    }
    live = records(snippets, failed)
    for rec in live:
        if (rec["id"], rec["framework"]) == ("fixture.speed", "torch"):
            rec["observed"] = {**rec["observed"], "conditions": CONDITIONS}
        if (rec["id"], rec["framework"]) == ("fixture.speed", "paddle"):
            rec["observed"] = {**rec["observed"], "output": "a ``` fence\n"}
    write(live, tmp_path / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    (tmp_path / "results").mkdir()

    def page(lang: str) -> Page:
        reports = Reports(tmp_path / "build" / "claims.json", tmp_path / "results", snippets,
                          VERSIONS, failed_shown=True)  # fmt: skip
        return Page(reports, lang, f"{lang}/fixture.md", docs=docs)

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
