"""Rendering reports into pages: every placeholder field in both languages, the provenance of
every value, the "verified with" line, the verification page with each result in its own
environment and the release matrix, the silent-failures table. Rendered from fixture reports
and compared with the expected text; no framework runs here."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from claimkit import (
    CLAIMS,
    PAGE_EN,
    VERSIONS,
    ascii_locale,
    env_for,
    make_docs,
    make_snippets,
    observed_for,
)

from verified.claims import all_cases
from verified.pages.fields import exception_text, field_value, output_text, releases_text
from verified.pages.fmt import code, escape, fmt_bytes, fmt_ratio, fmt_seconds, fmt_value
from verified.pages.markdown import anchors_of, article_pages, statement_sections
from verified.pages.page import Page, render, verified_line
from verified.pages.tables import release_matrix, silent_table, verification_page
from verified.pages.words import ARTICLES
from verified.report import ReportError, Reports, record, write

OLD = {"paddle": "2.6.2", "torch": "2.13.0+cpu"}


def skipped(case):
    rec = record(case, status="skipped", env=env_for(case.framework), reason="no GPU here")
    rec["skip"] = {"code": "no_cuda" if case.framework == "torch" else "cpu_build",
                   "version": VERSIONS[case.framework]}  # fmt: skip
    return rec


def live_records(snippets, change=None):
    out = []
    for case in all_cases(snippets, VERSIONS).values():
        if case.device == "gpu":
            out.append(skipped(case))
            continue
        observed = observed_for(case)
        if change:
            change(case, observed)
        out.append(record(case, status="passed", env=env_for(case.framework), observed=observed))
    return out


@pytest.fixture
def site(tmp_path):
    snippets = make_snippets(tmp_path)
    docs = make_docs(tmp_path)
    write(live_records(snippets), tmp_path / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    results = tmp_path / "results"
    results.mkdir()
    return tmp_path, snippets, docs


def reports_of(site) -> Reports:
    root, snippets, _ = site
    return Reports(root / "build" / "claims.json", root / "results", snippets, VERSIONS)


def add_old_paddle(site, *, leaf_status="passed"):
    """An environment report of Paddle 2.6.2 (the leaf claim has an override there)."""
    root, snippets, _ = site
    records = []
    for case in all_cases(snippets, OLD).values():
        if case.framework != "paddle" or case.device != "cpu":
            continue
        status = leaf_status if case.claim.id == "fixture.leaf" else "passed"
        records.append(
            record(
                case,
                status=status,
                env=env_for("paddle", version="2.6.2"),
                observed=observed_for(case),
                reason=None if status == "passed" else "boom",
            )  # fmt: skip
        )
    write(records, root / "results" / "paddle-2.6.2.json", snippets=snippets, versions=OLD,
          name="paddle-2.6.2")  # fmt: skip


# -- formatting --------------------------------------------------------------------------------


def test_formatting():
    assert fmt_bytes(8388608, "en") == "8,388,608 bytes (8.00 MiB)"
    assert fmt_bytes(8388608, "zh") == "8,388,608 字节（8.00 MiB）"
    assert fmt_value(1 / 3) == "0.333333" and fmt_value(2.0) == "2" and fmt_value(True) == "True"
    assert fmt_value([1.5, {"a": None}]) == "[1.5, {a: None}]"
    assert fmt_seconds(2.5) == "2.50 s" and fmt_seconds(1.0) == "1.00 s"
    assert fmt_seconds(0.0042) == "4.20 ms" and fmt_seconds(0.001) == "1.00 ms"
    assert fmt_seconds(0.0000425) == "42.5 µs"
    assert fmt_seconds(0.0123456) == "12.35 ms" and fmt_seconds(0.000123456) == "123.5 µs"
    from verified.pages.fmt import span

    assert span(["2.2.2", "2.10.0", "2.7.1", "2.10.0+cpu"]) == "2.2.2–2.10.0"  # by release
    assert span(["3.3.1"]) == "3.3.1" and span([]) == "?"
    assert fmt_ratio(2.804, "en") == "2.80×" and fmt_ratio(2.804, "zh") == "2.80 倍"
    assert escape('a[0] | b_c *d* `e` {f} <g> "h" \\') == (
        "a&#91;0&#93; &#124; b&#95;c &#42;d&#42; &#96;e&#96; &#123;f&#125; &lt;g&gt; &quot;h&quot; &#92;"
    )
    assert code("x < 1") == "<code>x &lt; 1</code>"


def rec_of(site, claim_id, fw="torch", dev="cpu"):
    return reports_of(site).get(claim_id, fw, dev)


def test_every_value_field_in_both_languages(site):
    leaf, grad = rec_of(site, "fixture.leaf"), rec_of(site, "fixture.grad", "paddle")
    chain, speed = rec_of(site, "fixture.chain", "paddle"), rec_of(site, "fixture.speed")
    launch = rec_of(site, "fixture.launch")
    for lang in ("en", "zh"):
        assert field_value(leaf, "type", None, lang, "x") == "<code>RuntimeError</code>"
        assert field_value(leaf, "message", None, lang, "x") == (
            "<code>a leaf Variable that requires grad</code>"  # the first line only
        )
        assert field_value(grad, "value", None, lang, "x") == "<code>-16</code>"
        assert field_value(launch, "value", "agree", lang, "x") == "<code>True</code>"
        assert field_value(chain, "bytes", "out", lang, "x") == fmt_bytes(2048, lang)
        assert field_value(chain, "bytes", "inplace", lang, "x") == fmt_bytes(0, lang)
        assert field_value(speed, "median_baseline", None, lang, "x") == "4.00 ms"
        assert field_value(speed, "median_candidate", None, lang, "x") == "2.00 ms"
    theory = dict(
        chain, observed={**chain["observed"], "theoretical_bytes": {"out": 7, "inplace": 9}}
    )
    assert field_value(theory, "theoretical", "out", "en", "x") == "7 bytes"
    assert field_value(theory, "bytes", "out", "en", "x") == "2,048 bytes (2.00 KiB)"
    assert field_value(theory, "theoretical", "inplace", "zh", "x") == "9 字节"
    assert field_value(speed, "ratio", None, "en", "x") == "2.00×"
    assert field_value(speed, "ratio", None, "zh", "x") == "2.00 倍"
    single = dict(chain, observed={**chain["observed"], "bytes": 5, "theoretical_bytes": 6})
    assert field_value(single, "bytes", None, "en", "x") == "5 bytes"
    assert field_value(single, "theoretical", None, "en", "x") == "6 bytes"


@pytest.mark.parametrize(
    ("claim", "fw", "field", "key", "problem"),
    [
        ("fixture.grad", "torch", "type", None, "the claim observed no exception"),
        ("fixture.grad", "torch", "message", None, "the claim observed no exception"),
        ("fixture.chain", "paddle", "bytes", "nope", "no region 'nope' in ['inplace', 'out']"),
        (
            "fixture.chain",
            "paddle",
            "theoretical",
            None,
            "name a region, one of ['inplace', 'out']",
        ),
        ("fixture.grad", "torch", "bytes", None, "no byte count observed"),
        ("fixture.grad", "torch", "value", "k", "no key 'k' in the observed value"),
        ("fixture.launch", "torch", "value", "k", "no key 'k' in the observed value"),
        ("fixture.grad", "torch", "colour", None, "unknown field 'colour'"),
    ],
)
def test_field_errors_name_the_placeholder(site, claim, fw, field, key, problem):
    with pytest.raises(ReportError) as excinfo:
        field_value(rec_of(site, claim, fw), field, key, "en", "page.md: {{ x }}")
    assert str(excinfo.value) == f"page.md: {{{{ x }}}}: {problem}"


def test_output_text():
    rec = {"observed": {"output": "a\nb\n"}}
    assert output_text(rec) == "a\nb"
    long = "\n".join(f"line {i}" for i in range(20))
    rec = {"observed": {"output": "", "exception": {"type": "E", "message": long + "\n"}}}
    assert output_text(rec) == (
        "Traceback (most recent call last):\n  ...\nE: "
        + "\n".join(f"line {i}" for i in range(12))
        + "\n..."
    )
    assert output_text({"observed": None}) == ""


# -- a page ------------------------------------------------------------------------------------

TOOLTIP_EN = (
    "Claim fixture.grad · PyTorch · CPU · torch 2.13.0, CPU (Test CPU), Python 3.11.7, "
    "2026-12-01 — click for the verification report"
)
TOOLTIP_ZH = (
    "断言 fixture.grad · PyTorch · CPU · torch 2.13.0，CPU（Test CPU），Python 3.11.7，"
    "2026-12-01（点击查看验证报告）"
)


@pytest.mark.parametrize(("lang", "tooltip"), [("en", TOOLTIP_EN), ("zh", TOOLTIP_ZH)])
def test_values_link_to_their_claim_with_provenance(site, lang, tooltip):
    reports = reports_of(site)
    out = Page(reports, lang, f"{lang}/p.md").render("v {{ fixture.grad | torch | value }}.")
    assert out == (
        "v [<code>-16</code>](verification.md#c-fixture-grad-torch)"
        f'{{ .claim-value title="{tooltip}" data-claim="fixture.grad" data-framework="torch" '
        'data-device="cpu" data-field="value" }.'
    )
    plain = Page(reports, lang, "p.md", provenance=False)
    assert plain.render("v {{ fixture.grad | torch | value }}.") == "v <code>-16</code>."
    keyed = Page(reports, lang, "p.md").render("{{ fixture.chain | paddle | bytes.out }}")
    assert keyed.startswith(f"[{fmt_bytes(2048, lang)}](verification.md#c-fixture-chain-paddle)")
    assert 'data-framework="paddle"' in keyed and 'data-field="bytes.out"' in keyed


def test_output_blocks_with_their_source(site):
    page = Page(reports_of(site), "en", "en/p.md")
    out = page.render('=== "PyTorch"\n\n    {{ fixture.leaf | torch | output }}\n')
    assert out == (
        '=== "PyTorch"\n\n'
        '    ``` { .text .claim-output title="Output" }\n    hello\n    Traceback (most recent call last):\n'
        "      ...\n    RuntimeError: a leaf Variable that requires grad\n    more\n    ```\n"
        "    \n"
        '    [Claim fixture.leaf · PyTorch · CPU · <span data-search-exclude="env">torch 2.13.0, '
        "CPU (Test CPU), Python 3.11.7, 2026-12-01</span>](verification.md#c-fixture-leaf-torch)"
        '{ .claim-source data-claim="fixture.leaf" data-framework="torch" data-device="cpu" '
        'data-field="output" }\n'
    )
    zh = Page(reports_of(site), "zh", "zh/p.md", provenance=False)
    assert zh.render("{{ fixture.grad | paddle | output }}") == (
        '``` { .text .claim-output title="输出" }\nhello\n```'
    )


def test_exception_text_keeps_every_line_of_the_message():
    message = "first sentence. Second sentence.\n  [Hint: x]   \n\n(at file.cc:1)\n"
    rec = {"observed": {"exception": {"type": "RuntimeError", "message": message}}}
    assert exception_text(rec, "p.md") == (
        "RuntimeError: first sentence. Second sentence.\n  [Hint: x]\n\n(at file.cc:1)"
    )
    long = "\n".join(f"line {i}" for i in range(20))  # no cut at 12 lines, unlike output
    rec = {"observed": {"exception": {"type": "E", "message": long}}}
    assert exception_text(rec, "p.md") == f"E: {long}"
    with pytest.raises(ReportError, match=r"^p\.md: the claim observed no exception$"):
        exception_text({"observed": {"output": "fine"}}, "p.md")


@pytest.mark.parametrize(("lang", "title"), [("en", "Message"), ("zh", "报错信息")])
def test_exception_blocks_show_the_whole_message(site, lang, title):
    page = Page(reports_of(site), lang, f"{lang}/p.md")
    out = page.render('=== "PaddlePaddle"\n\n    {{ fixture.leaf | paddle | exception }}\n')
    block, _, source = out.partition("\n    \n")
    assert block == (
        '=== "PaddlePaddle"\n\n'
        f'    ``` {{ .text .claim-message title="{title}" }}\n'
        "    ValueError: (InvalidArgument) Leaf Var x can't use inplace strategy.\n"
        "    more\n"
        "    ```"
    )
    assert source.startswith("    [") and "](verification.md#c-fixture-leaf-paddle)" in source
    assert 'data-field="exception" }' in source
    plain = Page(reports_of(site), lang, "p.md", provenance=False)
    assert plain.render("{{ fixture.leaf | torch | exception }}") == (
        f'``` {{ .text .claim-message title="{title}" }}\n'
        "RuntimeError: a leaf Variable that requires grad\nmore\n```"
    )


@pytest.mark.parametrize(
    ("markdown", "problem"),
    [
        ("see {{ fixture.leaf | torch | exception }}", "must stand alone on its line"),
        ("{{ fixture.grad | torch | exception }}", "the claim observed no exception"),
        ("{{ fixture.leaf | torch | exception.type }}", "the exception field takes no key"),
    ],
)
def test_exception_field_errors(site, markdown, problem):
    with pytest.raises(ReportError, match=re.escape(problem)):
        Page(reports_of(site), "en", "en/p.md").render(markdown)


@pytest.mark.parametrize(("kind", "title"), [("message", "Message"), ("output", "输出")])
def test_blocks_get_their_class_and_title(kind, title):
    """The attribute form of the fence gives the block its class (claims.css wraps messages;
    the search keeps messages, and outputs where a page asks for them) and its title."""
    import markdown

    html = markdown.markdown(
        f'``` {{ .text .claim-{kind} title="{title}" }}\nRuntimeError: a b\n```',
        extensions=["attr_list", "pymdownx.highlight", "pymdownx.superfences"],
    )
    assert html.startswith(f'<div class="claim-{kind} highlight"><span class="filename">{title}')
    assert "RuntimeError: a b" in html


def test_fences_inside_outputs_are_longer(site):
    root, snippets, _ = site

    def fenced(case, observed):
        observed["output"] = "```\ncode\n```\n"

    write(live_records(snippets, fenced), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    out = Page(reports_of(site), "en", "p", provenance=False).render(
        "{{ fixture.grad | torch | output }}"
    )
    assert out == '```` { .text .claim-output title="Output" }\n```\ncode\n```\n````'


@pytest.mark.parametrize(
    ("markdown", "problem"),
    [
        (
            "a {{ fixture.grad | torch | output }} b",
            "en/p.md: {{ fixture.grad | torch | output }} must stand alone on its line",
        ),
        (
            "{{ fixture.grad | torch | colour }}",
            "en/p.md: {{ fixture.grad | torch | colour }}: unknown field 'colour'",
        ),
        (
            "{{ fixture.grad | jax | value }}",
            "en/p.md: unrecognised placeholder '{{ fixture.grad | jax | value }}'",
        ),
        ("{{ verified-table }}", "en/p.md: unrecognised placeholder '{{ verified-table }}'"),
        (
            "{{ fixture.nope | torch | statement }}",
            "en/p.md: {{ fixture.nope | torch | statement }}: unknown claim 'fixture.nope'",
        ),
        (
            "{{ fixture.grad | torch@gpu | value }}",
            "en/p.md: claim fixture.grad[torch-gpu] is not in",
        ),
        (
            "{{ fixture.leaf | torch@gpu | type }}",
            "en/p.md: claim fixture.leaf[torch-gpu] skipped in",
        ),
        # after a closed fence, braces are read again
        (
            "```python\nd = {{1: 2}}\n```\n{{ verified-table }}",
            "en/p.md: unrecognised placeholder '{{ verified-table }}'",
        ),
        # backticks before a placeholder open no fence: the next line is still read
        (
            "```{{ fixture.grad | torch | value }}```\n{{ verified-table }}",
            "en/p.md: unrecognised placeholder '{{ verified-table }}'",
        ),
    ],
)
def test_placeholder_errors_name_the_page(site, markdown, problem):
    with pytest.raises(ReportError) as excinfo:
        Page(reports_of(site), "en", "en/p.md").render(markdown)
    assert str(excinfo.value).startswith(problem)


def test_braces_in_code_fences_are_left_alone(site):
    text = "```python\nd = {{1: 2}}\n```"
    assert Page(reports_of(site), "en", "p").render(text) == text


def test_statements_come_from_the_current_claims(site):
    _root, snippets, _ = site
    page = Page(reports_of(site), "zh", "p")
    assert page.render("{{ fixture.launch | torch | statement }}") == "两个进程一致。"
    toml = snippets / "fixture" / "claims.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("两个进程一致。", "一致。"), "utf-8")
    assert (
        Page(reports_of(site), "zh", "p").render("{{ fixture.launch | paddle | statement }}")
        == "一致。"
    )


# -- the verified line -------------------------------------------------------------------------


def test_verified_line_in_both_languages(site):
    reports = reports_of(site)
    assert verified_line(reports, "en") == (
        "*Verified by running the code: PaddlePaddle 3.3.1 and PyTorch 2.13.0 on CPU (Test CPU), "
        "2026-12-01. GPU: not run for this page. See the [verification report](verification.md).*"
    )
    assert verified_line(reports, "zh") == (
        "*经实际运行代码验证：飞桨 3.3.1 与 PyTorch 2.13.0，CPU（Test CPU），2026-12-01。"
        "GPU 用例：本次构建未运行。详见[验证报告](verification.md)。*"
    )


def test_verified_line_names_the_releases_and_gpu_runs(site):
    add_old_paddle(site)
    root, snippets, _ = site
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "torch", "gpu")]
    gpu = record(case, status="passed", env=env_for("torch", "gpu"), observed=observed_for(case))
    write([gpu], root / "results" / "gpu.json", snippets=snippets, versions=VERSIONS, name="gpu")
    reports = reports_of(site)
    line = verified_line(reports, "en")
    assert "; the same claims were also run on PaddlePaddle 2.6.2–3.3.1. " in line
    assert "GPU: PyTorch 2.13.0 (NVIDIA H200). " in line
    # per page: only the claims the page uses count
    assert "GPU: not run for this page" in verified_line(reports, "en", {"fixture.grad"})
    assert "2.6.2" in verified_line(reports, "en", {"fixture.grad"})
    zh = verified_line(reports, "zh")
    assert (
        "；同样的断言还在飞桨 2.6.2–3.3.1 上运行过。GPU 用例：PyTorch 2.13.0（NVIDIA H200）。" in zh
    )
    page = Page(reports, "en", "p")
    rendered = page.render("{{ verified }}\n{{ fixture.chain | torch@gpu | bytes.out }}")
    assert "GPU: PyTorch 2.13.0 (NVIDIA H200)" in rendered
    assert 'data-device="gpu"' in rendered and "NVIDIA H200, CUDA 13.0" in rendered


def test_verified_line_of_gpu_records_only_names_the_first_ones_machine(site):
    """Without a fresh CPU record, the live run's versions and processor are those of the
    first record the page rests on."""
    root, snippets, _ = site
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "torch", "gpu")]
    env = env_for("torch", "gpu", cpu="Host CPU")
    gpu = record(case, status="passed", env=env, observed=observed_for(case))
    (root / "build" / "claims.json").unlink()  # a live report of this one record
    write([gpu], root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    assert verified_line(reports_of(site), "en") == (
        "*Verified by running the code: PaddlePaddle 3.3.1 and PyTorch 2.13.0 on CPU (Host CPU), "
        "2026-12-01. GPU: PyTorch 2.13.0 (NVIDIA H200). "
        "See the [verification report](verification.md).*"
    )


def test_verified_line_ignores_stale_and_failed_releases(site):
    add_old_paddle(site, leaf_status="failed")
    reports = reports_of(site)
    assert "2.6.2" not in verified_line(reports, "en", {"fixture.leaf"})
    assert "2.6.2" in verified_line(reports, "en", {"fixture.grad"})
    _root, snippets, _ = site
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    with pytest.raises(ReportError, match="no fresh result"):
        verified_line(reports_of(site), "en", {"no.such-claim"})


# -- releases in prose ---------------------------------------------------------------------------


def test_releases_text(site):
    add_old_paddle(site)
    reports = reports_of(site)
    assert releases_text(reports, "fixture.leaf", "paddle", "en", "x") == (
        "PaddlePaddle 3.3.1; differs on 2.6.2: Paddle 2 says Var"
    )
    assert releases_text(reports, "fixture.leaf", "paddle", "zh", "x") == (
        "飞桨 3.3.1；在 2.6.2 上不同：飞桨 2 的报错写作 Var"
    )
    assert releases_text(reports, "fixture.grad", "paddle", "en", "x") == "PaddlePaddle 2.6.2–3.3.1"
    assert releases_text(reports, "fixture.grad", "torch", "en", "x") == "PyTorch 2.13.0"
    page = Page(reports, "en", "p").render("{{ fixture.leaf | paddle | releases }}")
    assert page == "PaddlePaddle 3.3.1; differs on 2.6.2: Paddle 2 says Var"


def test_a_reworded_note_shows_without_a_rerun(site):
    """A version override's note is prose outside the record's hash: reworded in claims.toml,
    the record of the release stays fresh, and the sentence and the release matrix say the
    new words, not the copy the record took when it ran (the DDP note of issue 27 kept saying
    "PyTorch 2.6 to 2.11" from two release reports after its claims.toml was corrected)."""
    add_old_paddle(site)
    root, snippets, _ = site
    claims = snippets / "fixture" / "claims.toml"
    text = claims.read_text(encoding="utf-8")
    assert text.count("Paddle 2 says Var.") == 1 and text.count("飞桨 2 的报错写作 Var。") == 1
    claims.write_text(
        text.replace("Paddle 2 says Var.", "Paddle 2.6 names a Var.").replace(
            "飞桨 2 的报错写作 Var。", "飞桨 2.6 的报错写的是 Var。"
        ),
        encoding="utf-8",
    )
    reports = reports_of(site)
    old = reports.entries_for("fixture.leaf", "paddle", "cpu")[-1]
    assert old.rec["override"]["note"]["en"] == "Paddle 2 says Var." and old.stale is None
    assert old.override["note"]["en"] == "Paddle 2.6 names a Var."
    assert releases_text(reports, "fixture.leaf", "paddle", "en", "x") == (
        "PaddlePaddle 3.3.1; differs on 2.6.2: Paddle 2.6 names a Var"
    )
    assert releases_text(reports, "fixture.leaf", "paddle", "zh", "x") == (
        "飞桨 3.3.1；在 2.6.2 上不同：飞桨 2.6 的报错写的是 Var"
    )
    matrix = "\n".join(release_matrix(reports, "en"))
    assert "| [`fixture.leaf`](#c-fixture-leaf) | ≠<sup>1</sup> | ✓ |" in matrix
    assert "1. Paddle 2.6 names a Var." in matrix and "says Var" not in matrix


def test_a_note_loses_only_its_final_full_stop(site):
    """The page's sentence ends the note: its full stop goes, the letters before it stay."""
    add_old_paddle(site)
    _root, snippets, _ = site
    claims = snippets / "fixture" / "claims.toml"
    text = claims.read_text(encoding="utf-8")
    claims.write_text(
        text.replace("Paddle 2 says Var.", "Paddle 2 calls it X.").replace(
            "飞桨 2 的报错写作 Var。", "飞桨 2 称之为 X。"
        ),
        encoding="utf-8",
    )
    reports = reports_of(site)
    assert releases_text(reports, "fixture.leaf", "paddle", "en", "x") == (
        "PaddlePaddle 3.3.1; differs on 2.6.2: Paddle 2 calls it X"
    )
    assert releases_text(reports, "fixture.leaf", "paddle", "zh", "x") == (
        "飞桨 3.3.1；在 2.6.2 上不同：飞桨 2 称之为 X"
    )


def test_releases_in_version_order_beside_a_live_record_of_another_release(site):
    """The live Paddle record ran on another release than the installed one (stale): the
    fresh releases of the environment reports are still counted, in version order (2.9.0
    before 2.10.0), and the standing rests on the live record and on each of them; a claim
    that holds as stated on none of them says so."""
    from verified.pages.fields import release_results, releases_standing
    from verified.pages.words import NAMES, TEXT

    root, snippets, _ = site
    live = live_records(snippets)
    for rec in live:
        if rec["framework"] == "paddle" and rec["device"] == "cpu":
            rec["env"] = env_for("paddle", version="3.2.0")
    write(live, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    for version in ("2.10.0", "2.9.0"):
        versions = {**OLD, "paddle": version}
        records = [
            record(
                case,
                status="passed",
                env=env_for("paddle", version=version),
                observed=observed_for(case),
            )  # fmt: skip
            for case in all_cases(snippets, versions).values()
            if case.framework == "paddle" and case.device == "cpu"
        ]
        write(records, root / "results" / f"paddle-{version}.json", snippets=snippets,
              versions=versions, name=f"paddle-{version}")  # fmt: skip
    reports = reports_of(site)
    assert list(release_results(reports, "fixture.grad", "paddle")) == ["2.9.0", "2.10.0"]
    standing = releases_standing(reports, "fixture.grad", "paddle")
    assert [e.env["version"] for e in standing.entries] == ["3.2.0", "2.9.0", "2.10.0"]
    t = TEXT["en"]
    assert releases_text(reports, "fixture.leaf", "paddle", "en", "x") == t[
        "releases_field"
    ].format(framework=NAMES["en"]["paddle"], holds=t["none"]) + t["differs"].format(
        versions="2.9.0 and 2.10.0", note="Paddle 2 says Var"
    )
    # the release matrix: releases in version order; a claim a release has no record of: ·
    old = root / "results" / "paddle-2.9.0.json"
    data = json.loads(old.read_text(encoding="utf-8"))
    data["claims"] = [r for r in data["claims"] if r["id"] != "fixture.grad"]
    old.write_text(json.dumps(data), encoding="utf-8")
    matrix = release_matrix(reports_of(site), "en")
    paddle = matrix[matrix.index("### PaddlePaddle") :]
    header = next(line for line in paddle if line.startswith("| Claim"))
    assert header == "| Claim | 2.9.0 | 2.10.0 | 3.2.0 |"
    grad = next(line for line in paddle if line.startswith("| [`fixture.grad`]"))
    assert grad.split(" | ")[1:] == ["·", "✓", "⟳<sup>2</sup> |"]  # the live record: stale


def test_releases_text_refuses_failures(site):
    add_old_paddle(site, leaf_status="failed")
    with pytest.raises(
        ReportError,
        match=r"^p: \{\{ fixture\.leaf \| paddle \| releases \}\}: "
        r"claim fixture\.leaf\[paddle-cpu\] failed in .*paddle-2\.6\.2\.json: boom$",
    ):
        Page(reports_of(site), "en", "p").render("{{ fixture.leaf | paddle | releases }}")


def test_unrunnable_releases_are_named(site):
    root, snippets, _ = site
    case = all_cases(snippets, {"paddle": "1.5.0"})[("fixture.leaf", "paddle", "cpu")]
    rec = record(case, status="not-runnable", env=env_for("paddle", version="1.5.0"),
                 reason="AttributeError: no inplace")  # fmt: skip
    write([rec], root / "results" / "p1.json", snippets=snippets, versions={"paddle": "1.5.0"})
    reports = reports_of(site)
    assert releases_text(reports, "fixture.leaf", "paddle", "en", "x") == (
        "PaddlePaddle 3.3.1; cannot run on 1.5.0: Paddle 1 has no such API"
    )
    matrix = "\n".join(release_matrix(reports, "en"))
    assert "| [`fixture.leaf`](#c-fixture-leaf) | ⊘<sup>1</sup> | ✓ |" in matrix
    assert "1. Paddle 1 has no such API." in matrix


# -- the verification page -------------------------------------------------------------------


def test_verification_page_rows_say_where_each_result_ran(site):
    _root, _snippets, docs = site
    page = verification_page(reports_of(site), "en", docs)
    assert (
        '| <a id="c-fixture-grad"></a>`fixture.grad`<br>The gradient is -16.<br>Shown in: '
        "[A section](fixture.md#a-section) | "
        '<a id="c-fixture-grad-paddle"></a>PaddlePaddle | `fixture/grad_paddle.py`<br>'
        "`fixture/claims.toml` | ✓ <code>-16</code><br>"
        '<span class="claim-env" title="paddle 3.3.1, CPU (Test CPU), Python 3.11.7, 2026-12-01">'
        "paddle 3.3.1 · 2026-12-01</span> | — |"
    ) in page
    assert "`fixture/launch_torch.py`<br>`fixture/data.json`<br>`fixture/work_torch.py`" in page
    assert "Shown in: not shown on a page" in page  # fixture.speed
    assert "✓ 2.00× (medians: 4.00 ms / 2.00 ms, control 1.01×)" in page
    assert (
        "<code>out</code>: 2,048 / 2,048<br><code>inplace</code>: 0 / 0 B (measured / theoretical)"
        in page
    )
    assert "| this build | paddle 3.3.1, torch 2.13.0 | CPU | 3.11.7 | Test CPU |" in page
    # GPU cells say "not run"; the reasons are listed once, in the page's language
    assert page.count("— not run |") == 4 and page.count("no_cuda") == 0
    assert (
        "- PyTorch: torch 2.13.0+cpu: torch.cuda.is&#95;available() is False on this machine"
        in page
    )
    zh = verification_page(reports_of(site), "zh", docs)
    assert "- PyTorch：torch 2.13.0+cpu：本机上 torch.cuda.is&#95;available() 为 False" in zh
    assert "- 飞桨：paddle 3.3.1 是 CPU 版本" in zh
    assert zh.count("— 未运行 |") == 4 and "出现于：[A section](fixture.md#a-section)" in zh
    assert (
        "✓ 2.00 倍（中位数：4.00 ms / 2.00 ms、对照 1.01 倍）" in zh
        and "字节（实测 / 理论值）" in zh
    )


@pytest.mark.parametrize(
    ("lang", "rows"),
    [
        ("en", ["| other | paddle 3.3.1, torch 2.13.0 | CPU | 3.11.7 | Test CPU |  |",
                "| other | torch 2.13.0 | CPU | 3.11.7 | Test CPU, 8 cores, glibc 2.39, 6.8 |  |"]),
        ("zh", ["| other | paddle 3.3.1、torch 2.13.0 | CPU | 3.11.7 | Test CPU |  |",
                "| other | torch 2.13.0 | CPU | 3.11.7 | Test CPU，8 核，glibc 2.39，6.8 |  |"]),
    ],
)  # fmt: skip
def test_verification_page_environments_of_one_report(site, lang, rows):
    """One row per environment a report's records ran in, in a stable order even where a
    framework was not installed (None) for some records and was for others; the host in the
    page's language; a CPU row names no GPU; a skipped record's environment is no row; a
    report that does not say when it was generated leaves that cell empty."""
    root, snippets, docs = site
    cases = all_cases(snippets, VERSIONS)
    host = {"cpu": "Test CPU", "cores": 8, "libc": "glibc 2.39", "kernel": "6.8"}

    def torch_cpu(claim_id, status="passed", **env):
        case = cases[(claim_id, "torch", "cpu")]
        return record(case, status=status, env=env_for("torch", **env),
                      observed=observed_for(case), reason="no torch here")  # fmt: skip

    records = [
        torch_cpu("fixture.grad", versions={"paddle": None, "torch": VERSIONS["torch"]}, host=host),
        torch_cpu("fixture.leaf", gpu="NVIDIA H200"),
        torch_cpu("fixture.chain", "skipped", python="3.99.0"),
    ]
    path = root / "results" / "other.json"
    write(records, path, snippets=snippets, versions=VERSIONS, name="other")
    data = json.loads(path.read_text(encoding="utf-8"))
    del data["generated"]
    path.write_text(json.dumps(data), encoding="utf-8")
    lines = verification_page(reports_of(site), lang, docs).split("\n")
    assert [line for line in lines if line.startswith("| other |")] == rows


def test_verification_page_marks_failed_stale_and_missing(site):
    root, snippets, docs = site

    def wrong(case, observed):
        pass

    records = live_records(snippets, wrong)
    records[2] = dict(records[2], status="failed", reason="value: expected 1, observed 2")
    write(records, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    records[3] = dict(records[3], status="not-runnable", reason="AttributeError: " + "x" * 300)
    write(records, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    page = verification_page(reports_of(site), "en", docs)
    assert "✗ failed: value: expected 1, observed 2" in page
    for lang, words in (("en", "not runnable: "), ("zh", "无法运行：")):
        cell = verification_page(reports_of(site), lang, docs)
        shown = f'⊘ {words}AttributeError: {"x" * 184}<br><span class="claim-env"'
        assert shown in cell, lang  # the reason cut at 200 characters, then the environment
    (snippets / "fixture" / "grad_torch.py").write_text("# changed\n", encoding="utf-8")
    page = verification_page(reports_of(site), "en", docs)
    assert "⟳ stale: the snippet, a file it reads or the expectation changed since it ran" in page
    write([r for r in records if r["id"] != "fixture.speed"], root / "build" / "claims.json",
          snippets=snippets, versions=VERSIONS)  # fmt: skip
    reports = reports_of(site)
    reports.live.records = {
        k: v for k, v in reports.live.records.items() if k[0] != "fixture.speed"
    }
    with pytest.raises(
        ReportError,
        match=r"^verification page: claim fixture\.speed \[paddle-cpu\] is missing from the "
        r"report; run the claims$",
    ):
        verification_page(reports, "en", docs)


def test_verification_page_cells_of_a_gpu_claim(tmp_path):
    """A claim declared on the GPU alone has "—" for the CPU and its GPU cell, and no row in
    the release matrix (the claims after it have theirs); a GPU case that passed in two
    reports shows both results, one under the other."""
    gpu_only = 'snippet = "chain"\ndevices = ["gpu"]\nregions'
    snippets = make_snippets(tmp_path, CLAIMS.replace('snippet = "chain"\nregions', gpu_only))
    docs = make_docs(tmp_path)
    write(live_records(snippets), tmp_path / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "torch", "gpu")]
    for name, gpu in (("a", "NVIDIA H100"), ("b", "NVIDIA H200")):
        rec = record(case, status="passed", env=env_for("torch", "gpu", gpu=gpu),
                     observed=observed_for(case))  # fmt: skip
        write([rec], tmp_path / "results" / f"{name}.json", snippets=snippets,
              versions=VERSIONS, name=name)  # fmt: skip
    page = verification_page(reports_of((tmp_path, snippets, docs)), "en", docs)
    shown = (
        "✓ <code>out</code>: 2,048 / 2,048<br><code>inplace</code>: 0 / 0 B "
        "(measured / theoretical)"
    )
    env = (
        '<br><span class="claim-env" title="torch 2.13.0, {gpu}, CUDA 13.0, Python 3.11.7, '
        '2026-12-01">torch 2.13.0 · {gpu} · 2026-12-01</span>'
    )
    assert (
        '<a id="c-fixture-chain-paddle"></a>PaddlePaddle | `fixture/chain_paddle.py`<br>'
        "`fixture/claims.toml` | — | — not run |"
    ) in page
    assert (
        '<a id="c-fixture-chain-torch"></a>PyTorch | `fixture/chain_torch.py`<br>'
        f"`fixture/claims.toml` | — | {shown}{env.format(gpu='NVIDIA H100')}<br>"
        f"{shown}{env.format(gpu='NVIDIA H200')} |"
    ) in page
    matrix = page.split("\n## Across framework releases\n")[1]
    assert "[`fixture.chain`]" not in matrix
    assert matrix.count("| [`fixture.speed`](#c-fixture-speed) | ✓ |") == 2  # each framework


def test_verification_page_titles_and_links_each_article_in_its_language(site, monkeypatch):
    """An article's heading is its title in the page's language, linked to the article (or
    its overview) among that language's pages; a claim shown in two sections links both."""
    _root, _snippets, docs = site
    monkeypatch.setitem(ARTICLES, "fixture", {"en": "Fixture article", "zh": "夹具文章"})
    again = PAGE_EN + "\n## Again\n\n{{ fixture.grad | paddle | value }}\n"
    (docs / "en" / "fixture.md").write_text(again, "utf-8")
    (docs / "zh" / "fixture.md").unlink()  # Chinese: a section of pages, with its overview
    (docs / "zh" / "fixture").mkdir()
    (docs / "zh" / "fixture" / "index.md").write_text("# Fixture\n\nOverview.\n", "utf-8")
    (docs / "zh" / "fixture" / "sub.md").write_text(again, "utf-8")
    en = verification_page(reports_of(site), "en", docs)
    assert "\n## [Fixture article](fixture.md)\n" in en
    assert "Shown in: [A section](fixture.md#a-section)<br>[Again](fixture.md#again) |" in en
    zh = verification_page(reports_of(site), "zh", docs)
    assert "\n## [夹具文章](fixture/index.md)\n" in zh
    assert "[A section](fixture/sub.md#a-section)<br>[Again](fixture/sub.md#again) |" in zh


def test_release_matrix_marks_each_release(site):
    add_old_paddle(site)
    root, snippets, _ = site
    matrix = "\n".join(release_matrix(reports_of(site), "en"))
    assert "| Claim | 2.6.2 | 3.3.1 |" in matrix and "| Claim | 2.13.0 |" in matrix
    assert "| [`fixture.leaf`](#c-fixture-leaf) | ≠<sup>1</sup> | ✓ |" in matrix
    assert "| [`fixture.grad`](#c-fixture-grad) | ✓ | ✓ |" in matrix
    assert "1. Paddle 2 says Var." in matrix
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    matrix = "\n".join(release_matrix(reports_of(site), "zh"))
    assert "| [`fixture.grad`](#c-fixture-grad) | ⟳<sup>2</sup> | ⟳<sup>2</sup> |" in matrix
    assert "1. 飞桨 2 的报错写作 Var。" in matrix
    add_old_paddle(site, leaf_status="failed")
    matrix = "\n".join(release_matrix(reports_of(site), "en"))
    assert "| [`fixture.leaf`](#c-fixture-leaf) | ✗<sup>1</sup> | ✓ |" in matrix
    assert "1. boom" in matrix


def test_release_matrix_notes_and_marks_of_every_status(site):
    """A release without a record of the claim is "·" and the next release still has its
    cell; a failure's note is its reason cut at 300 characters; a case that cannot run is
    noted with its reason (no override declares it), and a stale one with why, both in the
    page's language; a skipped one as not run (the legend's ·), in either language."""
    add_old_paddle(site)
    root, snippets, _ = site
    old = root / "results" / "paddle-2.6.2.json"
    data = json.loads(old.read_text(encoding="utf-8"))
    data["claims"] = [r for r in data["claims"] if r["id"] != "fixture.launch"]
    old.write_text(json.dumps(data), encoding="utf-8")
    unmeasurable = "paddle 3.3.1 has no host allocator statistics to measure with (stats missing)"
    changes = {
        ("fixture.grad", "torch"): {"status": "failed", "reason": "x" * 400},
        ("fixture.launch", "paddle"): {"status": "not-runnable", "reason": unmeasurable},
        ("fixture.speed", "torch"): {"status": "skipped", "reason": "no torch here"},
    }
    records = [
        {**r, **changes.get((r["id"], r["framework"]), {})} if r["device"] == "cpu" else r
        for r in live_records(snippets)
    ]
    write(records, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    rows = {
        "| [`fixture.grad`](#c-fixture-grad) | ⟳<sup>2</sup> | ⟳<sup>2</sup> |",
        "| [`fixture.launch`](#c-fixture-launch) | · | ⊘<sup>3</sup> |",
        "| [`fixture.grad`](#c-fixture-grad) | ✗<sup>1</sup> |",
        "| [`fixture.speed`](#c-fixture-speed) | · |",
    }
    en = release_matrix(reports_of(site), "en")
    assert rows <= set(en)
    assert "2. the snippet, a file it reads or the expectation changed since it ran" in en
    assert f"3. {unmeasurable}" in en and f"1. {'x' * 300}" in en
    zh = release_matrix(reports_of(site), "zh")
    assert rows <= set(zh)
    assert "2. 那次运行之后，代码片段、它读取的文件或预期有改动" in zh
    assert "3. 飞桨 3.3.1 没有可用于测量的主机分配器统计（缺少 stats）" in zh


def test_statement_sections(tmp_path):
    page = tmp_path / "en" / "a.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# Title {{ x.a | torch | value }}\n\n## Rule `one`\n\n{{ x.a | torch | value }}\n"
        "{{ x.b | paddle | output }}\n\n```\n## not a heading {{ x.c | torch | value }}\n```\n\n"
        "## Rule one\n\n{{ x.a | paddle | type }} {{ x.a | paddle | type }}\n\n### 中文 标题 { #custom }\n\n"
        "{{ x.b | torch | value }}\n",
        encoding="utf-8",
    )
    assert statement_sections(tmp_path, "en") == {
        "x.a": [
            ("a.md", "Title {{ x.a | torch | value }}", "title--xa--torch--value-"),
            ("a.md", "Rule one", "rule-one"),
            ("a.md", "Rule one", "rule-one_1"),
        ],
        "x.b": [("a.md", "Rule one", "rule-one"), ("a.md", "中文 标题", "custom")],
    }


# -- silent failures -------------------------------------------------------------------------


def test_silent_table_names_the_frameworks_the_run_observed(site):
    root, snippets, docs = site
    assert silent_table(reports_of(site), "en", docs) == (
        "| Symptom | Affected | Shown in | Fix |\n|---|---|---|---|\n"
        "| The loss is lost. | [PyTorch](verification.md#c-fixture-launch-torch) | "
        "[A section](fixture.md#a-section) | Keep the loss. |"
    )

    def both(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"]["silent_loss"] = True

    write(live_records(snippets, both), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    table = silent_table(reports_of(site), "zh", docs)
    assert table.splitlines()[0] == "| 症状 | 受影响的框架 | 演示章节 | 修正方法 |"
    assert (
        "| 损失丢失。 | [飞桨](verification.md#c-fixture-launch-paddle)、"
        "[PyTorch](verification.md#c-fixture-launch-torch) | [A section](fixture.md#a-section) | 保留损失。 |"
    ) in table

    def neither(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"]["silent_loss"] = False

    write(live_records(snippets, neither), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    assert "| The loss is lost. | none |" in silent_table(reports_of(site), "en", docs)


def test_a_page_goes_on_after_its_silent_failures_table(site):
    _root, _snippets, docs = site
    page = Page(reports_of(site), "en", "en/p.md", docs=docs)
    assert page.render("# Silent failures\n\n{{ silent-failures }}\n\nAfter the table.") == (
        "# Silent failures\n\n"
        + silent_table(reports_of(site), "en", docs)
        + "\n\nAfter the table."
    )


def test_silent_table_needs_the_section_to_show_the_claim(site):
    _root, _snippets, docs = site
    en, zh = docs / "en" / "fixture.md", docs / "zh" / "fixture.md"
    original = en.read_text(encoding="utf-8")
    # the zh page's sections have Chinese anchors: the row links to the section at the same place
    zh.write_text(
        original.replace("## A section", "## 一节").replace("## Memory", "## 内存"), "utf-8"
    )
    assert (
        "| 损失丢失。 | [PyTorch](verification.md#c-fixture-launch-torch) | [一节](fixture.md#一节) |"
        in (silent_table(reports_of(site), "zh", docs))
    )
    zh.write_text(original + "\n## 多出的一节\n", "utf-8")
    with pytest.raises(
        ReportError, match=r"docs/zh/fixture.md has 4 sections, docs/en/fixture.md 3"
    ):
        silent_table(reports_of(site), "zh", docs)
    en.write_text(original.replace("## A section", "## Other"), "utf-8")
    with pytest.raises(
        ReportError, match=r"^silent failures: no section #a-section in docs/en/fixture.md$"
    ):
        silent_table(reports_of(site), "en", docs)
    en.write_text(original.replace("## A section\n", "## A section\n\n## Next\n"), "utf-8")
    with pytest.raises(
        ReportError, match=r"names section 'a-section', which does not use it in docs/en/fixture.md"
    ):
        silent_table(reports_of(site), "en", docs)


def test_whole_page_renders_in_both_languages(site):
    _root, _snippets, docs = site
    for lang in ("en", "zh"):
        out = render(PAGE_EN, lang, f"{lang}/fixture.md", reports_of(site), docs=docs)
        assert "{{" not in out
        assert len(re.findall(r"\.claim-value ", out)) == 3
        assert len(re.findall(r"\.claim-source ", out)) == 1
    page = render(
        "{{ verification-table }}\n\n{{ silent-failures }}", "en", "v", reports_of(site), docs=docs
    )
    assert "## Environments" in page and "| Symptom |" in page


# -- Chinese soft line breaks ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("markdown", "joined"),
    [
        ("第一行，\n第二行。", "第一行，第二行。"),  # after full-width punctuation
        ("原位操作\n会报错。", "原位操作会报错。"),  # after a character
        ("调用 `add_()`\n后报错。", "调用 `add_()`后报错。"),  # before a character
        ("English line\nnext line", "English line\nnext line"),  # not Chinese: a space
        ("第一段。\n\n第二段。", "第一段。\n\n第二段。"),  # paragraphs stay apart
        ("说明：\n- 列表项", "说明：\n- 列表项"),  # block syntax is left alone
        ("说明：\n1. 列表项", "说明：\n1. 列表项"),
        ("| 表格 |\n| 行 |", "| 表格 |\n| 行 |"),
        ("## 标题\n正文", "## 标题\n正文"),
        ("```\n代码\n代码\n```", "```\n代码\n代码\n```"),  # fences are left alone
        ("    缩进的\n    续行", "    缩进的续行"),  # same indentation: joined
        ("    缩进的\n续行", "    缩进的\n续行"),  # another indentation: not
        ("文字\n{{ verified }}", "文字\n{{ verified }}"),
        ('文字\n=== "PyTorch"', '文字\n=== "PyTorch"'),
        ("<figure>\n图", "<figure>\n图"),
        # a four-backtick fence ends at four backticks, not at the three-backtick line inside
        ("````text\n一行\n```\n二行\n三行\n````\n", "````text\n一行\n```\n二行\n三行\n````\n"),
        (
            "~~~\n一行\n```\n二行\n三行\n~~~\n正文\n续行",
            "~~~\n一行\n```\n二行\n三行\n~~~\n正文续行",
        ),
        # after a line of block syntax nothing is joined, even before a Chinese character
        ("```\n代码\n```\n正文", "```\n代码\n```\n正文"),
        ("| 表格 |\n续行", "| 表格 |\n续行"),
        ('=== "飞桨"\n正文', '=== "飞桨"\n正文'),
        ('!!! note "注意"\n正文', '!!! note "注意"\n正文'),
        # a Chinese line with a trailing space still ends in a Chinese character
        ("第一行。 \n`add_()` 后", "第一行。`add_()` 后"),
        # joining one pair of lines goes on with the next ones
        ("第一行，\n第二行。\n\n第二段，\n续行。", "第一行，第二行。\n\n第二段，续行。"),
    ],
)
def test_join_cjk_soft_breaks(markdown, joined):
    from verified.pages.markdown import join_cjk_soft_breaks

    assert join_cjk_soft_breaks(markdown) == joined


def test_timing_fields_and_expectations(site):
    speed = rec_of(site, "fixture.speed")
    fastest = dict(
        speed,
        observed={**speed["observed"], "statistic": "min", "ratio": 2.5,
                  "min_baseline_s": 0.0025, "min_candidate_s": 0.001},
    )  # fmt: skip
    assert field_value(fastest, "min_baseline", None, "en", "x") == "2.50 ms"
    assert field_value(fastest, "min_candidate", None, "zh", "x") == "1.00 ms"
    assert field_value(fastest, "ratio", None, "en", "x") == "2.50×"
    for lang in ("en", "zh"):
        assert field_value(dict(speed, observed={**speed["observed"], "repeat": 17}),
                           "repeat", None, lang, "x") == "17"  # fmt: skip
    with pytest.raises(ReportError, match="x: no number of timed runs observed"):
        field_value(rec_of(site, "fixture.grad"), "repeat", None, "en", "x")
    with pytest.raises(ReportError, match="x: no min_baseline time observed"):
        field_value(speed, "min_baseline", None, "en", "x")
    assert field_value(speed, "expected", "margin", "en", "x") == "1.50×"
    assert field_value(speed, "expected", "verdict", "zh", "x") == "<code>faster</code>"
    assert field_value(speed, "noise", None, "en", "x") == "1.01×"
    assert field_value(speed, "noise", None, "zh", "x") == "1.01 倍"
    with pytest.raises(ReportError, match="x: no control observed"):
        field_value(rec_of(site, "fixture.grad"), "noise", None, "en", "x")
    allocator = {"MALLOC_MMAP_THRESHOLD_": "131072"}
    pinned = dict(speed, env={**speed["env"], "allocator": allocator})
    assert (
        field_value(pinned, "env", None, "en", "x")
        == "<code>MALLOC&#95;MMAP&#95;THRESHOLD&#95;=131072</code>"
    )
    defaults = dict(speed, env={**speed["env"], "allocator": {}})
    assert (
        field_value(defaults, "env", None, "zh", "x") == "glibc 的默认设置（未设置任何分配器变量）"
    )
    with pytest.raises(ReportError, match="x: the record does not say which allocator settings"):
        field_value(dict(speed, env={**speed["env"], "allocator": None}), "env", None, "en", "x")
    chain = rec_of(site, "fixture.chain")
    assert field_value(chain, "expected", "tol_bytes", "en", "x") == "16 bytes"
    assert field_value(chain, "expected", "theoretical", "en", "x") == (
        "<code>&#123;out: 2 &#42; 1024, inplace: 0&#125;</code>"
    )
    with pytest.raises(ReportError, match=r"x: name an expectation key, one of \['bytes'"):
        field_value(chain, "expected", None, "en", "x")
    with pytest.raises(ReportError, match="name an expectation key"):
        field_value(chain, "expected", "ratio_min", "en", "x")
    from verified.pages.tables import summary
    from verified.report import Entry

    entry = Entry(fastest, reports_of(site).live, None)
    assert summary(entry, "en").startswith(
        "✓ 2.50× (fastest runs: 2.50 ms / 1.00 ms, control 1.01×)<br>"
    )
    assert summary(entry, "zh").startswith(
        "✓ 2.50 倍（各自最快一次：2.50 ms / 1.00 ms、对照 1.01 倍）<br>"
    )
    entry = Entry(pinned, reports_of(site).live, None)
    assert summary(entry, "en").endswith("<br>allocator: MALLOC&#95;MMAP&#95;THRESHOLD&#95;=131072")
    entry = Entry(defaults, reports_of(site).live, None)
    assert summary(entry, "zh").endswith("<br>分配器：glibc 默认设置")
    # a figure shown only (a timing with verdict "shown", a measurement) ran, but nothing about
    # it was asserted: no ✓, in both languages
    shown = dict(fastest, expected={**fastest["expected"], "verdict": "shown"})
    entry = Entry(shown, reports_of(site).live, None)
    assert summary(entry, "en").startswith(
        "◷ measured here, shown only: nothing about it is asserted: 2.50× (fastest runs"
    )
    assert summary(entry, "zh").startswith("◷ 本机实测，仅作展示，不作断言：2.50 倍（各自最快一次")
    measured = dict(rec_of(site, "fixture.launch"), kind="measurement")
    assert summary(Entry(measured, reports_of(site).live, None), "en").startswith("◷ ")


def test_status_of_a_case_in_words(site):
    reports = reports_of(site)
    page = Page(reports, "en", "p")
    assert page.render("GPU: {{ fixture.chain | torch@gpu | status }}.") == (
        "GPU: declared but not run here (torch 2.13.0+cpu: torch.cuda.is&#95;available() is "
        "False on this machine)."
    )
    zh = Page(reports, "zh", "p").render("{{ fixture.chain | paddle@gpu | status }}")
    assert zh == (
        "已声明，但本次构建没有运行，因为 paddle 3.3.1 是 CPU 版本，paddle.device.is&#95;compiled&#95;with&#95;cuda() 为 False"
    )
    # no brackets within brackets: the environment names the CPU in brackets of its own
    assert Page(reports, "zh", "p").render("{{ fixture.chain | torch | status }}") == (
        "已验证，运行环境为 torch 2.13.0，CPU（Test CPU），Python 3.11.7，2026-12-01"
    )
    assert page.render("{{ fixture.chain | torch | status }}") == (
        "verified (torch 2.13.0, CPU (Test CPU), Python 3.11.7, 2026-12-01)"
    )
    with pytest.raises(ReportError, match=r"p: \{\{ fixture.grad \| torch@gpu \| status \}\}: "):
        page.render("{{ fixture.grad | torch@gpu | status }}")


# -- whole renders against reviewed expected text ------------------------------------------------

GOLDEN = Path(__file__).parent / "golden"


def golden_site(tmp_path):
    """The fixture site with a Paddle 2.6.2 report and a GPU report (the records' dates are
    env_for's; the time a report was generated is masked where the text is compared)."""
    snippets = make_snippets(tmp_path)
    docs = make_docs(tmp_path)
    write(live_records(snippets), tmp_path / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    (tmp_path / "results").mkdir()
    site = (tmp_path, snippets, docs)
    add_old_paddle(site)
    case = all_cases(snippets, VERSIONS)[("fixture.chain", "torch", "gpu")]
    gpu = record(case, status="passed", env=env_for("torch", "gpu"), observed=observed_for(case))
    write([gpu], tmp_path / "results" / "gpu.json", snippets=snippets, versions=VERSIONS,
          name="gpu")  # fmt: skip
    return site


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize("what", ["page", "verification", "silent"])
def test_renders_match_the_reviewed_text(tmp_path, lang, what):
    """tests/golden/*.md were reviewed by hand; AUTOGRAD_UPDATE_GOLDEN=1 rewrites them after a
    deliberate change (then review the diff)."""
    import os

    site = golden_site(tmp_path)
    reports = reports_of(site)
    docs = site[2]
    if what == "page":
        text = render(PAGE_EN + "\nGPU: {{ fixture.chain | torch@gpu | bytes.out }}\n", lang,
                      f"{lang}/fixture.md", reports, docs=docs)  # fmt: skip
    elif what == "verification":
        text = verification_page(reports, lang, docs)
    else:
        text = silent_table(reports, lang, docs)
    text = re.sub(r"\| (\d{4}-\d\d-\d\dT\d\d:\d\d) \|", "| <generated> |", text)
    check_golden(GOLDEN / f"{what}_{lang}.md", text, os.environ)


def check_golden(path: Path, text: str, environ) -> None:
    """``text`` is the reviewed text of ``path``. AUTOGRAD_UPDATE_GOLDEN=1 rewrites it instead,
    never where CI is set: there an update would make the test pass whatever was rendered."""
    if environ.get("AUTOGRAD_UPDATE_GOLDEN") == "1":
        if environ.get("CI"):
            pytest.fail("AUTOGRAD_UPDATE_GOLDEN=1 with CI set: golden files are updated by hand "
                        "and reviewed, never in CI")  # fmt: skip
        path.parent.mkdir(exist_ok=True)
        path.write_text(text + "\n", encoding="utf-8")
    assert path.is_file(), f"{path} is missing: run with AUTOGRAD_UPDATE_GOLDEN=1 and review it"
    assert text + "\n" == path.read_text(encoding="utf-8")


def test_golden_files_are_never_updated_in_ci(tmp_path):
    path = tmp_path / "golden" / "page_en.md"
    path.parent.mkdir()
    path.write_text("reviewed\n", encoding="utf-8")
    with pytest.raises(pytest.fail.Exception, match="never in CI"):
        check_golden(path, "changed", {"AUTOGRAD_UPDATE_GOLDEN": "1", "CI": "true"})
    assert path.read_text(encoding="utf-8") == "reviewed\n"
    with pytest.raises(AssertionError):
        check_golden(path, "changed", {"CI": "true"})
    check_golden(path, "changed", {"AUTOGRAD_UPDATE_GOLDEN": "1"})  # by hand: rewritten
    assert path.read_text(encoding="utf-8") == "changed\n"
    check_golden(path, "changed", {})


def test_english_phrases_are_shown_in_the_page_language(site):
    root, snippets, _ = site

    def phrase(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"]["outcome"] = "wrong gradient, no error"
            observed["value"]["name"] = "x += 1"

    write(live_records(snippets, phrase), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    markdown = "{{ fixture.launch | torch | value.outcome }}"
    with pytest.raises(ReportError) as excinfo:
        Page(reports_of(site), "zh", "zh/p.md").render(markdown)
    assert str(excinfo.value) == (
        "zh/p.md: {{ fixture.launch | torch | value.outcome }}: the observed value "
        "'wrong gradient, no error' is English: add its zh wording to "
        'snippets/fixture/values.zh.toml ("wrong gradient, no error" = "…"; the same text keeps '
        "it verbatim, as for a message)"
    )
    table = snippets / "fixture" / "values.zh.toml"
    table.write_text('"wrong gradient, no error" = "不报错，梯度错误"\n', encoding="utf-8")
    zh = Page(reports_of(site), "zh", "zh/p.md")
    out = zh.render(markdown)
    assert out.startswith("[不报错，梯度错误](verification.md#c-fixture-launch-torch)")
    # the hover title has no English: the page's words are the observation (the report has it)
    assert '（点击查看验证报告）"' in out and "wrong gradient" not in out
    plain = Page(reports_of(site), "zh", "p", provenance=False).render(markdown)
    assert plain == "不报错，梯度错误"
    # English pages and values that are not English phrases are shown as observed
    assert Page(reports_of(site), "en", "p", provenance=False).render(markdown) == (
        "<code>wrong gradient, no error</code>"
    )
    code_like = "{{ fixture.launch | torch | value.name }}"
    assert zh.render(code_like).startswith("[<code>x += 1</code>]")
    assert "观测值" not in zh.render(code_like)
    table.write_text('"wrong gradient, no error" = "wrong gradient, no error"\n', encoding="utf-8")
    assert Page(reports_of(site), "zh", "p", provenance=False).render(markdown) == (
        "<code>wrong gradient, no error</code>"
    )
    table.write_text('"wrong gradient, no error" = ""\n', encoding="utf-8")
    with pytest.raises(ReportError, match=r"values.zh.toml: entries without a wording"):
        Page(reports_of(site), "zh", "p").render(markdown)
    table.write_text("= broken", encoding="utf-8")
    with pytest.raises(ReportError, match=r"values.zh.toml: "):
        Page(reports_of(site), "zh", "p").render(markdown)


def test_english_phrases_inside_lists_and_dicts(site):
    root, snippets, _ = site

    def nested(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"]["ended"] = {
                "first=True": "exit code 0",
                "first=False": "killed by SIGSEGV",
            }
            observed["value"]["runs"] = ["exit code 0", 3]

    write(live_records(snippets, nested), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    (snippets / "fixture" / "values.zh.toml").write_text(
        '"exit code 0" = "退出码 0"\n"killed by SIGSEGV" = "被 SIGSEGV 终止"\n', encoding="utf-8"
    )
    zh = Page(reports_of(site), "zh", "p")
    out = zh.render("{{ fixture.launch | torch | value.ended }}")
    assert out.startswith(
        "[<code>&#123;first=True: 退出码 0, first=False: 被 SIGSEGV 终止&#125;</code>]("
    )
    assert "exit code" not in out and "killed by" not in out
    plain = Page(reports_of(site), "zh", "p", provenance=False)
    assert (
        plain.render("{{ fixture.launch | torch | value.runs }}")
        == "<code>&#91;退出码 0, 3&#93;</code>"
    )
    (snippets / "fixture" / "values.zh.toml").write_text('"exit code 0" = "退出码 0"\n', "utf-8")
    with pytest.raises(ReportError, match="the observed value 'killed by SIGSEGV' is English"):
        plain.render("{{ fixture.launch | torch | value.ended }}")


def test_the_zh_verification_page_words_observed_values_it_can(site):
    """The report's cell shows an observed value in the page's words when the article's
    values table words every English phrase in it, and as observed when one is missing; the
    English page always shows it as observed. Booleans stay as observed: a cell of data, not a
    sentence."""
    root, snippets, docs = site

    def nested(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"] = {
                "first": "killed by SIGSEGV",
                "second": "exit code 0",
                "ok": [True],
            }

    write(live_records(snippets, nested), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    raw = (
        "<code>&#123;first: killed by SIGSEGV, second: exit code 0, ok: &#91;True&#93;&#125;</code>"
    )
    table = snippets / "fixture" / "values.zh.toml"
    table.write_text(
        '"killed by SIGSEGV" = "被 SIGSEGV 终止"\n"exit code 0" = "退出码 0"\n', "utf-8"
    )
    zh = verification_page(reports_of(site), "zh", docs)
    assert (
        "<code>&#123;first: 被 SIGSEGV 终止, second: 退出码 0, ok: &#91;True&#93;&#125;</code>"
        in zh
    )
    assert "killed by SIGSEGV" not in zh
    assert raw in verification_page(reports_of(site), "en", docs)
    english = snippets / "fixture" / "values.en.toml"  # even a table for English words nothing
    english.write_text('"killed by SIGSEGV" = "crashed"\n"exit code 0" = "exited"\n', "utf-8")
    assert raw in verification_page(reports_of(site), "en", docs)
    english.unlink()
    table.write_text('"killed by SIGSEGV" = "被 SIGSEGV 终止"\n', "utf-8")  # one phrase unworded
    assert raw in verification_page(reports_of(site), "zh", docs)


def test_engine_reasons_in_the_page_language():
    from verified.pages.words import unrunnable_text

    rec = {"reason": "paddle 2.6.2 has no host allocator statistics to measure with "
           "(core.host_memory_stat_reset_peak_value missing)"}  # fmt: skip
    assert unrunnable_text(rec, "en") == rec["reason"]
    assert unrunnable_text(rec, "zh") == (
        "飞桨 2.6.2 没有可用于测量的主机分配器统计（缺少 core.host_memory_stat_reset_peak_value）"
    )
    other = {"reason": "AttributeError: x"}
    assert unrunnable_text(other, "zh") == "AttributeError: x"


# -- claims that failed on this machine (nox -s site) --------------------------------------------


def failed_site(site):
    """The fixture report with fixture.grad[torch-cpu] and fixture.leaf[torch-cpu] failed."""
    root, snippets, _ = site
    records = []
    for rec in live_records(snippets):
        if (rec["id"], rec["framework"], rec["device"]) in (
            ("fixture.grad", "torch", "cpu"),
            ("fixture.leaf", "torch", "cpu"),
        ):
            rec = {**rec, "status": "failed", "reason": "value: expected -16, observed -15"}
            rec["observed"] = {**rec["observed"], "value": -15}
        records.append(rec)
    write(records, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    return site


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_failed_claim_is_refused_unless_the_site_shows_failures(site, lang):
    root, snippets, docs = failed_site(site)
    strict = Reports(root / "build" / "claims.json", root / "results", snippets, VERSIONS,
                     failed_shown=False)  # fmt: skip
    with pytest.raises(ReportError, match=r"claim fixture\.grad\[torch-cpu\] failed in "):
        Page(strict, lang, f"{lang}/fixture.md", docs=docs).render(PAGE_EN)
    shown = Reports(root / "build" / "claims.json", root / "results", snippets, VERSIONS,
                    failed_shown=True)  # fmt: skip
    page = Page(shown, lang, f"{lang}/fixture.md", docs=docs)
    text = page.render(PAGE_EN)
    assert set(page.failures) == {"fixture.grad[torch-cpu]", "fixture.leaf[torch-cpu]"}
    observed = (
        "观测值 <code>-15</code>；预期 <code>&#123;value: -16&#125;</code>"
        if lang == "zh"
        else ("observed <code>-15</code>; expected <code>&#123;value: -16&#125;</code>")
    )
    assert observed in text
    assert 'class="claim-failed"' in text and "verification.md#c-fixture-grad-torch" in text
    title = "本页有部分结果在本机上未通过" if lang == "zh" else "Some results on this page failed"
    lines = text.split("\n")
    assert lines[0] == "# Fixture" and lines[2].startswith(f'!!! failure "{title}')
    assert (
        "python -m pytest snippets -k 'fixture.grad[torch-cpu] or fixture.leaf[torch-cpu]'" in text
    )
    assert '!!! failure "✗ fixture.leaf"' in text  # the output block of the failed error claim
    ok = Page(shown, lang, f"{lang}/fixture.md", docs=docs)
    ok.render("# Fine\n\n{{ fixture.chain | paddle | bytes.out }}\n")
    assert ok.failures == {}  # a page without failed claims gets no banner


def test_a_page_without_the_setting_refuses_failed_claims(site, monkeypatch):
    """The default comes from AUTOGRAD_SHOW_FAILED, and only "1" shows failures."""
    root, snippets, docs = failed_site(site)
    for value, shown in (("1", True), ("0", False), ("", False), ("yes", False)):
        monkeypatch.setenv("AUTOGRAD_SHOW_FAILED", value)
        reports = Reports(root / "build" / "claims.json", root / "results", snippets, VERSIONS)
        assert reports.failed_shown is shown
    monkeypatch.delenv("AUTOGRAD_SHOW_FAILED")
    assert reports_of(site).failed_shown is False


# -- sections: an overview and sub-pages ------------------------------------------------------


def test_pages_are_read_as_utf8_whatever_the_locale(tmp_path):
    page = tmp_path / "en" / "p.md"
    page.parent.mkdir(parents=True)
    page.write_text("# 中文 标题\n\n{{ x.a | torch | value }}\n", encoding="utf-8")
    with ascii_locale():
        assert statement_sections(tmp_path, "en") == {"x.a": [("p.md", "中文 标题", "中文-标题")]}


def test_statement_sections_of_sub_pages_and_their_title(tmp_path):
    """Sub-pages of a section are pages too, named by their path; a sub-page's opening answer
    (before its first H2) belongs to its title."""
    page = tmp_path / "en" / "topic" / "sub.md"
    page.parent.mkdir(parents=True)
    page.write_text(
        "# The `sub` page\n\n{{ x.a | torch | value }}\n\n## Evidence\n\n{{ x.b | torch | type }}\n",
        encoding="utf-8",
    )
    (tmp_path / "en" / "notebooks").mkdir()
    (tmp_path / "en" / "notebooks" / "x.md").write_text("{{ x.c | torch | value }}\n", "utf-8")
    assert statement_sections(tmp_path, "en") == {
        "x.a": [("topic/sub.md", "The sub page", "the-sub-page")],
        "x.b": [("topic/sub.md", "Evidence", "evidence")],
    }


def test_a_line_before_the_first_heading_belongs_to_no_section(tmp_path):
    """A placeholder above the page's title has no heading and no anchor, and a page's anchors
    are its headings' only."""
    page = tmp_path / "en" / "p.md"
    page.parent.mkdir(parents=True)
    page.write_text("{{ x.a | torch | value }}\n\n# Title\n\n{{ x.b | torch | value }}\n", "utf-8")
    assert statement_sections(tmp_path, "en") == {
        "x.a": [("p.md", "", "")],
        "x.b": [("p.md", "Title", "title")],
    }
    assert anchors_of(page) == ["title"]


def test_a_sections_pages_start_with_its_overview(tmp_path):
    """``article_pages``: a section's overview first, then its sub-pages in name order (the
    overview sorts after ``a.md`` by name); an article of one page is that page."""
    folder = tmp_path / "en" / "topic"
    folder.mkdir(parents=True)
    for name in ("z.md", "index.md", "a.md", "b-index.md"):
        (folder / name).write_text("# T\n", encoding="utf-8")
    assert article_pages(tmp_path, "topic") == [
        "topic/index.md", "topic/a.md", "topic/b-index.md", "topic/z.md",
    ]  # fmt: skip
    (tmp_path / "en" / "single.md").write_text("# S\n", encoding="utf-8")
    assert article_pages(tmp_path, "single") == ["single.md"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_sub_page_links_up_to_the_verification_page(site, lang):
    """Links are relative to the page: from ``<lang>/topic/sub.md`` the report is one folder
    up (MkDocs resolves page links against the page's own folder)."""
    reports = reports_of(site)
    deep = Page(reports, lang, f"{lang}/topic/sub.md")
    value = deep.render("{{ fixture.grad | torch | value }}")
    assert value.startswith("[<code>-16</code>](../verification.md#c-fixture-grad-torch)")
    block = deep.render("{{ fixture.leaf | torch | output }}")
    assert "](../verification.md#c-fixture-leaf-torch){ .claim-source" in block
    line = deep.render("{{ fixture.grad | torch | value }}\n{{ verified }}").split("\n")[-2]
    assert "](../verification.md)" in line and "](verification.md)" not in line
    top = Page(reports, lang, f"{lang}/p.md").render("{{ verified }}")
    assert "](verification.md)" in top
    deeper = Page(reports, lang, f"{lang}/a/b/c.md").render("{{ fixture.grad | torch | value }}")
    assert "](../../verification.md#" in deeper


def as_section(docs, sub_en: str, sub_zh: str) -> None:
    """docs/<lang>/fixture/: an overview and one sub-page, instead of fixture.md."""
    for lang, sub in (("en", sub_en), ("zh", sub_zh)):
        (docs / lang / "fixture.md").unlink()
        (docs / lang / "fixture").mkdir()
        (docs / lang / "fixture" / "index.md").write_text("# Fixture\n\nOverview.\n", "utf-8")
        (docs / lang / "fixture" / "sub.md").write_text(sub, "utf-8")


def test_silent_table_finds_the_section_on_a_sub_page(site):
    _root, _snippets, docs = site
    body = PAGE_EN.replace("# Fixture", "# Sub")
    as_section(docs, body, body.replace("## A section", "## 一节"))
    assert silent_table(reports_of(site), "en", docs).endswith(
        "| [A section](fixture/sub.md#a-section) | Keep the loss. |"
    )
    assert "| [一节](fixture/sub.md#一节) | 保留损失。 |" in silent_table(
        reports_of(site), "zh", docs
    )
    # the same anchor on two pages of the section: which one the row means is not clear
    (docs / "en" / "fixture" / "index.md").write_text("# Fixture\n\n## A section\n", "utf-8")
    with pytest.raises(ReportError, match=r"#a-section is on several pages of docs/en/fixture: "
                       r"fixture/index.md, fixture/sub.md"):  # fmt: skip
        silent_table(reports_of(site), "en", docs)
    (docs / "en" / "fixture" / "index.md").write_text("# Fixture\n", "utf-8")
    (docs / "en" / "fixture" / "sub.md").write_text(body.replace("## A section", "## B"), "utf-8")
    with pytest.raises(ReportError, match=r"no section #a-section in docs/en/fixture/$"):
        silent_table(reports_of(site), "en", docs)


def test_the_verification_page_links_a_sections_overview(site):
    _root, _snippets, docs = site
    as_section(docs, PAGE_EN, PAGE_EN)
    page = verification_page(reports_of(site), "en", docs)
    assert "## [fixture](fixture/index.md)" in page
    assert "[A section](fixture/sub.md#a-section)" in page


def test_mib_field(site):
    reports = reports_of(site)
    rec = reports.get("fixture.chain", "paddle", "cpu")
    assert field_value(rec, "mib", "out", "en", "x") == "2.00 KiB"  # under 1 MiB: KiB
    assert field_value(rec, "mib", "out", "zh", "x") == "2.00 KiB"
    with pytest.raises(ReportError, match="no region 'nope'"):
        field_value(rec, "mib", "nope", "en", "x")


def test_booleans_in_the_page_language(site):
    """True and False in a Chinese sentence are 是 and 否 (the raw value in the tooltip); an
    English page shows them as Python writes them."""
    reports = reports_of(site)
    rec = reports.get("fixture.launch", "torch", "cpu")
    value = rec["observed"]["value"]
    key = next(k for k, v in value.items() if isinstance(v, bool))
    zh = Page(reports, "zh", "zh/p.md").render(f"{{{{ fixture.launch | torch | value.{key} }}}}")
    shown = {True: "是", False: "否"}[value[key]]
    assert zh.startswith(f"[{shown}](verification.md#") and f"观测值：{value[key]}" in zh
    en = Page(reports, "en", "en/p.md").render(f"{{{{ fixture.launch | torch | value.{key} }}}}")
    assert en.startswith(f"[<code>{value[key]}</code>](verification.md#")


def test_stale_reasons_in_the_page_language():
    from verified.pages.words import stale_text

    reason = "the snippet, a file it reads or the expectation changed since it ran"
    assert stale_text(reason, "en") == reason
    assert stale_text(reason, "zh") == "那次运行之后，代码片段、它读取的文件或预期有改动"
    assert stale_text("ran on torch 2.2.2, expected 2.13.0", "zh") == (
        "运行于 torch 2.2.2，应为 2.13.0"
    )
    assert (
        stale_text("the engine code changed since it ran", "zh") == "那次运行之后，引擎代码有改动"
    )
    assert stale_text("something new", "zh") == "something new"
    assert stale_text(reason, "de") == reason  # a language without a table: the report's words


def test_a_single_english_word_the_table_words(site):
    """A one-word outcome ("error") is worded when the table has it, and shown as observed when
    it does not (a name such as "None" is not prose)."""
    root, snippets, _ = site

    def word(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"]["outcome"] = "error"

    write(live_records(snippets, word), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    markdown = "{{ fixture.launch | torch | value.outcome }}"
    plain = Page(reports_of(site), "zh", "p", provenance=False)
    assert plain.render(markdown) == "<code>error</code>"
    (snippets / "fixture" / "values.zh.toml").write_text('"error" = "报错"\n', "utf-8")
    assert Page(reports_of(site), "zh", "p", provenance=False).render(markdown) == "报错"
    assert Page(reports_of(site), "en", "p", provenance=False).render(markdown) == (
        "<code>error</code>"
    )


# -- values as words of their sentence (issue 29 point 3) ----------------------------------------

WORDED = {
    "flag": True,
    "names": ["x += 1", "x[0] = 5"],
    "one": ["x[0] = 5"],
    "none": [],
    "flags": [[True, True], [True, True]],
    "ended": {"retain_graph=False": "exit code 0", "retain_graph=True": "exit code 0"},
    "low": 3,
    "high": 5,
    "same": 3,
    "norms": {"clean window": 0.125, "clipped": 1e-06},
    "grad": [2.0, 4.0],
}


def worded_site(site) -> Reports:
    root, snippets, _ = site

    def word(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"] = dict(WORDED)

    write(live_records(snippets, word), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    return reports_of(site)


def said(reports, lang: str, field: str) -> str:
    page = Page(reports, lang, f"{lang}/p.md", provenance=False)
    return page.render(f"{{{{ fixture.launch | torch | {field} }}}}")


@pytest.mark.parametrize(
    ("field", "en", "zh"),
    [
        ('value.flag | yesno("raises", "runs")', "raises", "raises"),
        ("value.names", "<code>x += 1</code> and <code>x&#91;0&#93; = 5</code>",
         "<code>x += 1</code> 和 <code>x&#91;0&#93; = 5</code>"),
        ("value.one", "<code>x&#91;0&#93; = 5</code>", "<code>x&#91;0&#93; = 5</code>"),
        ('value.none | words([] = "no warning", ["w"] = "one")', "no warning", "no warning"),
        ('value.flags | each(true = "every time")', "every time", "every time"),
        ('value.ended | each("exit code 0" = "both end")', "both end", "both end"),
        ("value.low | to(value.high)", "<code>3</code> to <code>5</code>",
         "<code>3</code> 到 <code>5</code>"),
        ("value.low | to(value.same)", "<code>3</code>", "<code>3</code>"),
        ('value.norms | at("clean window")', "<code>0.125</code>", "<code>0.125</code>"),
        ("value.grad", "<code>&#91;2, 4&#93;</code>", "<code>&#91;2, 4&#93;</code>"),
    ],
)  # fmt: skip
def test_a_value_in_the_words_of_its_sentence(site, field, en, zh):
    """A boolean, a list or a dict says what the placeholder declares for the observed value; a
    list of names is joined in words, a range of one value is that value, a tensor stays."""
    reports = worded_site(site)
    assert said(reports, "en", field) == en
    assert said(reports, "zh", field) == zh


@pytest.mark.parametrize(
    ("field", "error"),
    [
        ('value.flag | yesno("raises")', "yesno takes two phrases"),
        ('value.low | yesno("a", "b")', "yesno words a boolean; the observed value is 3"),
        ('value.none | words(["w"] = "one warning")', "not the observed value []"),
        ('value.flags | each(false = "never")', "not the observed value"),
        ('value.names | words(["x += 1"] = "one")', "not the observed value"),
        ("value.flag | words(true)", 'takes VALUE = "phrase" pairs'),
        ('value.flag | words(true = "")', "must be a non-empty string"),
        ('value.flag | shout("a")', "unknown filter 'shout'"),
        ('type | yesno("a", "b")', "only a value field takes a filter"),
        ("value.low | to(high)", "to() takes a value field"),
        ("value.low | to(ratio.high)", "to() takes a value field"),
        ("value.low | to(value.nothing)", "no key 'nothing' in the observed value"),
        ("value.low | to(value.high, value.same)", "to() takes the other end's field"),
        ("value.low | to()", "to() takes the other end's field"),
        ('value.low | to(5 = "five")', "to() takes the other end's field"),
        ("value.low | to(value.high value.same)", "expected ','"),
        ('value.norms | at("dirty window")', "no key 'dirty window'"),
        ('value.norms | at("clean window", "clipped")', "at() takes one key"),
        ("value.norms | at()", "at() takes one key"),
        ('value.norms | at("clean window" "clipped")', "expected ','"),
        ("value.nothing", "no key 'nothing' in the observed value"),
    ],
)
def test_a_wording_that_does_not_fit_the_value_stops_the_build(site, field, error):
    """The wording can never outlive the observation: a value the filter does not declare, a
    filter on another field, an unknown filter, each stops the render naming the placeholder."""
    reports = worded_site(site)
    with pytest.raises(ReportError, match=re.escape(error)) as caught:
        said(reports, "en", field)
    assert "en/p.md: {{ fixture.launch | torch | " in str(caught.value)


@pytest.mark.parametrize("provenance", [False, True])
def test_no_space_between_a_chinese_value_and_chinese_text(site, provenance):
    """Paddle's guides put no space between two Chinese characters: the source's space beside
    a value goes where the value starts or ends with a Chinese character or full-width
    punctuation; a space beside Latin text or code stays, and English keeps every space."""
    reports = worded_site(site)
    flag = 'fixture.launch | torch | value.flag | yesno("报错", "不报错")'
    code = "fixture.launch | torch | value.low"
    markdown = (
        f"调用 {{{{ {flag} }}}} 时，值 {{{{ {code} }}}} 和 {{{{ {flag} }}}}。a {{{{ {flag} }}}} b"
    )
    out = Page(reports, "zh", "zh/p.md", provenance).render(markdown)
    text = re.sub(r"\]\([^)]*\)\{[^}]*\}", "]", out).replace("[", "").replace("]", "")
    assert text == "调用报错时，值 <code>3</code> 和报错。a 报错 b"
    en = Page(reports, "en", "en/p.md", provenance).render(markdown)
    text = re.sub(r"\]\([^)]*\)\{[^}]*\}", "]", en).replace("[", "").replace("]", "")
    assert text == "调用 报错 时，值 <code>3</code> 和 报错。a 报错 b"


def test_the_ends_of_a_chinese_line_beside_its_values(site):
    """The line's own leading space stays (only a space beside a value goes); after a value
    that ends with a Chinese character the rest of the line starts without a space, after code
    it keeps its space."""
    reports = worded_site(site)
    flag = 'fixture.launch | torch | value.flag | yesno("不报错", "报错")'
    low = "fixture.launch | torch | value.low"
    page = Page(reports, "zh", "zh/p.md", provenance=False)
    assert (
        page.render(f" 值 {{{{ {low} }}}} 和 {{{{ {flag} }}}} 时")
        == " 值 <code>3</code> 和不报错时"
    )
    assert page.render(f"值 {{{{ {low} }}}} 和") == "值 <code>3</code> 和"


def test_the_hover_title_is_the_provenance_then_the_observation(site):
    """The title attribute holds the whole tooltip: where the value ran (double quotes of a
    processor's name become single ones), then the value observed, when the page words it."""
    root, snippets, _ = site

    def word(case, observed):
        if case.claim.id == "fixture.launch":
            observed["value"] = dict(WORDED)

    records = live_records(snippets, word)
    for rec in records:
        rec["env"]["cpu"] = 'A "quoted" CPU'
    write(records, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    markdown = '{{ fixture.launch | torch | value.flag | yesno("raises", "runs") }}'
    assert Page(reports_of(site), "en", "en/p.md").render(markdown) == (
        '[raises](verification.md#c-fixture-launch-torch){ .claim-value title="Claim '
        "fixture.launch · PyTorch · CPU · torch 2.13.0, CPU (A 'quoted' CPU), Python 3.11.7, "
        '2026-12-01 — click for the verification report · observed: True" '
        'data-claim="fixture.launch" data-framework="torch" data-device="cpu" '
        'data-field="value.flag" }'
    )


def test_notebook_values_keep_the_chinese_spacing():
    """The committed notebooks mark each value with a span: the same spacing holds there."""
    from verified.notebooks.cells import SPAN_END, SPAN_START

    span = '<span class="claim-value" data-claim="c|torch">'
    marked = f"调用 {span}报错</span> 时，值 {span}<code>3</code></span> 和 {span}3 倍</span> 和"
    tight = SPAN_START.sub(r"\1", SPAN_END.sub(r"\1", marked))
    assert (
        tight == f"调用{span}报错</span>时，值 {span}<code>3</code></span> 和 {span}3 倍</span>和"
    )


def test_the_hover_title_of_a_worded_value_is_in_the_page_language(site):
    """The observation behind a phrase is in its hover title, worded as the page's language
    words it (a case's English name and outcome in Chinese on a zh page)."""
    root, snippets, _ = site
    reports = worded_site(site)
    (snippets / "fixture" / "values.zh.toml").write_text(
        '"exit code 0" = "退出码 0"\n"retain_graph=False" = "不传 retain_graph"\n', "utf-8"
    )
    markdown = '{{ fixture.launch | torch | value.ended | each("exit code 0" = "都正常结束") }}'
    zh = Page(reports, "zh", "zh/p.md").render(markdown)
    assert zh.startswith("[都正常结束](verification.md#")
    assert "观测值：{不传 retain_graph: 退出码 0, retain_graph=True: 退出码 0}" in html.unescape(zh)
    assert "exit code" not in zh
    en = Page(reports, "en", "en/p.md").render(markdown.replace("都正常结束", "both end"))
    assert "observed: {retain_graph=False: exit code 0, retain_graph=True: exit code 0}" in (
        html.unescape(en)
    )


def test_sizes_as_the_frameworks_docs_write_them():
    from verified.pages.fmt import fmt_size

    assert fmt_bytes(32, "zh") == "32 字节" and fmt_bytes(32, "en") == "32 bytes"
    assert fmt_bytes(5000, "en") == "5,000 bytes (4.88 KiB)"
    assert fmt_bytes(8 * 2**20, "zh") == "8,388,608 字节（8.00 MiB）"
    assert fmt_size(32, "zh") == "32 字节" and fmt_size(5000, "en") == "4.88 KiB"
    assert fmt_size(10502148, "zh") == "10.02 MiB"


# -- a sentence takes the status of every record it rests on (issue 25 point 4, issue 30 point 4) --

REASON = "facts: agree expected true, observed false"


def doctored(site, statuses: dict, observed=None) -> Reports:
    """The fixture report with the cases of ``statuses`` failed, skipped or stale (a stale case
    is made by changing its snippet after the run), read with failures shown."""
    root, snippets, _docs = site
    records = []
    for rec in live_records(snippets):
        status = statuses.get((rec["id"], rec["framework"], rec["device"]))
        if status in ("failed", "skipped"):
            rec = {**rec, "status": status, "reason": REASON}
            if observed:
                rec["observed"] = {**rec["observed"], **observed}
        records.append(rec)
    write(records, root / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    for (claim_id, fw, _dev), status in statuses.items():
        if status == "stale":
            snippet = {"fixture.launch": "launch", "fixture.chain": "chain"}.get(claim_id, "grad")
            (snippets / "fixture" / f"{snippet}_{fw}.py").write_text("# changed\n", "utf-8")
    return shown_reports(site)


def shown_reports(site, shown: bool = True) -> Reports:
    root, snippets, _docs = site
    return Reports(root / "build" / "claims.json", root / "results", snippets, VERSIONS,
                   failed_shown=shown)  # fmt: skip


BANNER = {"en": "Some results on this page", "zh": "本页有部分结果"}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_statement_stands_on_every_framework_its_claim_declares(site, lang):
    """The statement is rendered with ``| torch |``; only the Paddle record failed."""
    _root, _snippets, docs = site
    reports = doctored(site, {("fixture.launch", "paddle", "cpu"): "failed"})
    page = Page(reports, lang, f"{lang}/fixture.md", docs=docs)
    text = page.render("# Title\n\n{{ fixture.launch | torch | statement }}\n")
    assert set(page.failures) == {"fixture.launch[paddle-cpu]"}
    statement = {"en": "Both workers agree.", "zh": "两个进程一致。"}[lang]
    line = next(ln for ln in text.split("\n") if ln.startswith(statement))
    assert "✗" in line and REASON in line and 'class="claim-failed"' in line
    assert "verification.md#c-fixture-launch-paddle" in line
    assert BANNER[lang] in text
    with pytest.raises(ReportError, match=r"fixture\.launch\[paddle-cpu\] failed"):
        Page(shown_reports(site, False), lang, f"{lang}/fixture.md", docs=docs).render(
            "{{ fixture.launch | torch | statement }}"
        )
    fine = Page(shown_reports(site), lang, f"{lang}/fixture.md", docs=docs)
    assert fine.render("{{ fixture.grad | torch | statement }}") in ("The gradient is -16.",
                                                                      "梯度为 -16。")  # fmt: skip
    assert fine.failures == {}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_silent_table_marks_a_failed_record(site, lang):
    """A failed record's observation is not the truth: its framework is marked failed, never
    counted as "not affected"."""
    _root, _snippets, docs = site
    reports = doctored(site, {("fixture.launch", "torch", "cpu"): "failed"},
                       observed={"value": {"agree": False, "silent_loss": False}})  # fmt: skip
    page = Page(reports, lang, f"{lang}/silent.md", docs=docs)
    text = page.render("# Silent\n\n{{ silent-failures }}\n")
    row = next(ln for ln in text.split("\n") if ln.startswith(("| The loss", "| 损失")))
    cells = [c.strip() for c in row.split("|")]
    assert cells[2] not in ("none", "无"), row
    assert "✗" in cells[2] and TEXT_FAILED[lang] in cells[2], row
    assert "verification.md#c-fixture-launch-torch" in cells[2]
    assert set(page.failures) == {"fixture.launch[torch-cpu]"}
    assert BANNER[lang] in text
    with pytest.raises(ReportError, match=r"fixture\.launch\[torch-cpu\] failed"):
        silent_table(shown_reports(site, False), lang, docs)


TEXT_FAILED = {"en": "failed", "zh": "未通过"}
STALE = {"en": "stale", "zh": "已过期"}
NOT_RUN = {"en": "not run", "zh": "未运行"}


@pytest.mark.parametrize("lang", ["en", "zh"])
@pytest.mark.parametrize(
    ("markdown", "case"),
    [
        ("{{ fixture.chain | torch | status }}", ("fixture.chain", "torch", "cpu")),
        ("{{ fixture.grad | paddle | releases }}", ("fixture.grad", "paddle", "cpu")),
        ("{{ fixture.grad | torch | value }}", ("fixture.grad", "torch", "cpu")),
        ("{{ fixture.chain | paddle | bytes.out }}", ("fixture.chain", "paddle", "cpu")),
    ],
)
@pytest.mark.parametrize("status", ["failed", "stale", "skipped"])
def test_fields_through_failed_stale_and_not_run_records(site, lang, markdown, case, status):
    _root, _snippets, docs = site
    reports = doctored(site, {case: status})
    page = Page(reports, lang, f"{lang}/fixture.md", docs=docs)
    name = f"{case[0]}[{case[1]}-{case[2]}]"
    if status == "skipped" and markdown.endswith("| status }}"):
        # a case not run is what the status field says in words: nothing failed
        said = {"en": "declared but not run here", "zh": "本次构建没有运行"}[lang]
        assert said in page.render(markdown)
        assert page.failures == {}
        return
    text = page.render(f"# Title\n\n{markdown}\n")
    assert set(page.failures) == {name}
    line = text.rstrip("\n").split("\n")[-1]
    assert line.count("✗") == 1 and 'class="claim-failed"' in line, line
    words = {"failed": TEXT_FAILED, "stale": STALE, "skipped": NOT_RUN}[status][lang]
    assert words in line, line
    is_value = not markdown.endswith(("| status }}", "| releases }}"))
    if status == "skipped" or (status == "failed" and not is_value):
        assert REASON in line, line  # why it did not run, or what the failed run observed
    elif status == "failed":  # a value shows what was observed in its own field
        assert ("failed on this machine: observed " if lang == "en" else "观测值 ") in line, line
    assert BANNER[lang] in text
    with pytest.raises(ReportError, match=re.escape(name)):
        Page(shown_reports(site, False), lang, f"{lang}/fixture.md", docs=docs).render(markdown)


def test_a_failed_release_marks_the_releases_sentence(site):
    add_old_paddle(site, leaf_status="failed")
    page = Page(shown_reports(site), "en", "en/fixture.md")
    line = page.render("{{ fixture.leaf | paddle | releases }}")
    assert set(page.failures) == {"fixture.leaf[paddle-cpu]"}
    assert "✗" in line and "boom" in line and "2.6.2" in line


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_verification_page_opens_with_every_failed_record(site, lang):
    """A failed record that no page renders is on the verification page's first screen."""
    _root, _snippets, docs = site
    reports = doctored(site, {("fixture.speed", "paddle", "cpu"): "failed"})
    page = verification_page(reports, lang, docs)
    first = page.split("\n## ")[0]
    assert "fixture.speed[paddle-cpu]" in first and "✗" in first
    assert "#c-fixture-speed-paddle" in first and REASON in first
    root, snippets, _docs = site
    write(live_records(snippets), root / "build" / "claims.json", snippets=snippets,
          versions=VERSIONS)  # fmt: skip
    clean = verification_page(shown_reports(site), lang, docs)
    assert clean.startswith("## "), clean[:200]
