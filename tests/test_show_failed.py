"""A reader always gets a site: on a machine where a claim fails, `nox -s site`
(``AUTOGRAD_SHOW_FAILED=1``) shows the failure where the claim appears, in both languages, with
a banner, and ends with a summary on the terminal that also names the failed records no page
renders; the strict build of `nox -s tests` (and CI, and the publishing workflow) refuses it,
naming the claim.

Tested at the hooks MkDocs calls (``on_page_markdown``, ``on_post_build``), on stub pages of
both languages and a fixture report with one record failed, instead of two full builds of a
copy of the tree."""

from __future__ import annotations

import os
import re
from pathlib import Path
from types import SimpleNamespace

import pytest
from claimkit import VERSIONS, env_for, make_docs, make_snippets, observed_for
from mkdocs.exceptions import PluginError

import verified.mkdocs_hooks as hooks
from verified.claims import all_cases
from verified.pages import site
from verified.report import Reports, record, write

REASON = "facts: agree expected true, observed false"
PAGE = (
    "# Title\n\n{{ fixture.launch | torch | statement }}\n\n"
    "Value {{ fixture.grad | torch | value }}.\n"
)


def failed_report(tmp_path, failed: set) -> Path:
    snippets = make_snippets(tmp_path)
    make_docs(tmp_path)
    records = []
    for key, case in all_cases(snippets, VERSIONS).items():
        env = env_for(case.framework, case.device)
        if case.device == "gpu":
            records.append(record(case, status="skipped", env=env, reason="no GPU here"))
        elif key in failed:
            records.append(record(case, status="failed", env=env, observed=observed_for(case),
                                  reason=REASON))  # fmt: skip
        else:
            records.append(record(case, status="passed", env=env, observed=observed_for(case)))
    write(records, tmp_path / "build" / "claims.json", snippets=snippets, versions=VERSIONS)
    (tmp_path / "results").mkdir()
    return snippets


def use_report(monkeypatch, tmp_path, snippets, shown: bool) -> None:
    """The hooks' build state with this report, as ``AUTOGRAD_SHOW_FAILED`` would set it."""
    monkeypatch.setenv("AUTOGRAD_SHOW_FAILED", "1" if shown else "0")
    reports = Reports(tmp_path / "build" / "claims.json", tmp_path / "results", snippets,
                      VERSIONS)  # fmt: skip
    assert reports.failed_shown is shown
    hooks.on_startup("build", False)
    monkeypatch.setattr(site, "_reports", reports)
    monkeypatch.setattr(site, "FAILED", {})


def stub_page(lang: str, path: str = "fixture.md"):
    src = path if lang == "en" else f"{lang}/{path}"
    return SimpleNamespace(file=SimpleNamespace(src_uri=src, locale=lang))


def test_the_site_shows_a_failed_claim_and_the_strict_build_refuses_it(
    tmp_path, monkeypatch, capsys
):
    failed = ("fixture.launch", "paddle", "cpu")  # the page names torch: the statement covers both
    snippets = failed_report(tmp_path, {failed})
    use_report(monkeypatch, tmp_path, snippets, shown=True)
    statement = {"en": "Both workers agree.", "zh": "两个进程一致。"}
    banner = {"en": "Some results on this page", "zh": "本页有部分结果"}
    for lang in ("en", "zh"):
        text = hooks.on_page_markdown(PAGE, stub_page(lang), {}, None)
        line = next(ln for ln in text.split("\n") if ln.startswith(statement[lang]))
        assert "✗" in line and REASON in line and "c-fixture-launch-paddle" in line, line
        assert banner[lang] in text
        assert "fixture.launch[paddle-cpu]" in text.split(statement[lang])[0]  # in the banner
    hooks.on_post_build({})
    summary = capsys.readouterr().err
    assert "fixture.launch[paddle-cpu]" in summary
    assert "fixture.launch[paddle-cpu] on en/fixture.md, zh/fixture.md" in summary
    assert "Rerun them: python -m pytest snippets -k 'fixture.launch[paddle-cpu]'" in summary

    use_report(monkeypatch, tmp_path, snippets, shown=False)
    for lang in ("en", "zh"):
        with pytest.raises(PluginError, match=r"fixture\.launch\[paddle-cpu\] failed"):
            hooks.on_page_markdown(PAGE, stub_page(lang), {}, None)


def test_a_failed_record_no_page_renders_is_in_the_summary(tmp_path, monkeypatch, capsys):
    snippets = failed_report(tmp_path, {("fixture.speed", "paddle", "cpu")})
    use_report(monkeypatch, tmp_path, snippets, shown=True)
    for lang in ("en", "zh"):
        hooks.on_page_markdown(PAGE, stub_page(lang), {}, None)
    hooks.on_post_build({})
    summary = capsys.readouterr().err
    assert "fixture.speed[paddle-cpu]" in summary and REASON in summary
    assert "fixture.launch" not in summary  # nothing else failed


def test_a_build_without_failures_prints_nothing(tmp_path, monkeypatch, capsys):
    snippets = failed_report(tmp_path, set())
    use_report(monkeypatch, tmp_path, snippets, shown=True)
    for lang in ("en", "zh"):
        text = hooks.on_page_markdown(PAGE, stub_page(lang), {}, None)
        assert "✗" not in text
    hooks.on_post_build({})
    assert capsys.readouterr().err == ""


FIGURE = """
import matplotlib.pyplot as plt


def launch(report, lang):
    agree = report.get("fixture.launch", "paddle")["observed"]["value"]["agree"]
    figure, axes = plt.subplots()
    axes.set_title(f"agree: {agree}")
    return figure


FIGURES = {"fixture-launch": launch}
"""


def test_a_figure_asks_the_standing_of_its_records(tmp_path, monkeypatch, capsys):
    """A figure whose record failed is replaced by a note and listed in the summary where
    failures are shown, and refused by the strict build; a passed one is drawn."""
    import verified.pages.figures as figures

    snippets = failed_report(tmp_path, {("fixture.launch", "paddle", "cpu")})
    (snippets / "fixture" / "figures.py").write_text(FIGURE, encoding="utf-8")
    monkeypatch.setattr(figures, "SNIPPETS", snippets)
    monkeypatch.setattr(figures, "ROOT", tmp_path)
    config = {"docs_dir": str(tmp_path / "docs")}
    use_report(monkeypatch, tmp_path, snippets, shown=True)
    figures.draw_figures(config)
    for lang, note in (
        ("en", "Figure fixture-launch: its claims failed on this machine (see the verification"),
        ("zh", "图 fixture-launch：其断言在本机上未通过（见验证报告）"),
    ):
        svg = (tmp_path / "docs" / lang / "figures" / "fixture-launch.svg").read_text("utf-8")
        assert note in svg and "agree:" not in svg
        # one line of text, centred in a strip at most 6 inches wide and less than one high (the
        # baseline below the middle: the text's middle is), no axes drawn
        size = re.search(r'<svg [^>]*width="([\d.]+)pt" height="([\d.]+)pt"', svg)
        text = re.findall(r'<text style="[^"]*text-anchor: middle" x="([\d.]+)" y="([\d.]+)"', svg)
        assert size and len(text) == 1, svg[:600]
        (width, height), (x, y) = map(float, size.groups()), map(float, text[0])
        assert width <= 6 * 72 and height < 72 and abs(x - width / 2) < 0.01, (width, height, x)
        assert y > height / 2 + 1 and "xtick" not in svg, (y, height)
    assert site.FAILED["fixture.launch[paddle-cpu]"]["pages"] == {"figure fixture-launch"}
    hooks.on_post_build({})
    assert "fixture.launch[paddle-cpu] on figure fixture-launch" in capsys.readouterr().err

    use_report(monkeypatch, tmp_path, snippets, shown=False)
    with pytest.raises(PluginError) as refused:
        figures.draw_figures(config)
    assert str(refused.value) == (
        "snippets/fixture/figures.py: figure fixture-launch: claim fixture.launch[paddle-cpu] "
        f"failed in {tmp_path / 'build' / 'claims.json'}: facts: agree expected true, observed "
        "false"
    )

    failed_report(tmp_path / "ok", set())
    use_report(monkeypatch, tmp_path / "ok", tmp_path / "ok" / "snippets", shown=False)
    figures.draw_figures(config)
    svg = (tmp_path / "docs" / "en" / "figures" / "fixture-launch.svg").read_text("utf-8")
    assert "agree: True" in svg


# A figure with text in both scripts: its title in the default fonts, and a label forced into a
# font with no CJK glyph (as every label is on a machine without a CJK font), which matplotlib
# warns about while it lays the text out.
TEXT_FIGURE = """
import matplotlib.pyplot as plt
from verified.report import ReportError


def labels(report, lang):
    report.get("fixture.launch", "paddle")
    figure, axes = plt.subplots()
    axes.set_title("梯度 gradient")
    axes.set_xlabel("累加 accumulation", fontfamily="DejaVu Sans")
    axes.set_ylabel({"en": "memory", "zh": "内存"}[lang])
    return figure


def two_records(report, lang):
    for framework in ("paddle", "torch"):
        report.get("fixture.launch", framework)
    return plt.subplots()[0]


def gpu_record(report, lang):
    report.get("fixture.grad", "torch", "gpu")  # no report has it: no GPU run
    return plt.subplots()[0]


def attributes(report, lang):
    figure, axes = plt.subplots()
    axes.set_title(f"failed shown: {report.failed_shown}")  # the reports' own attribute
    return figure


def other_warning(report, lang):
    import warnings

    warnings.warn(report.where, UserWarning if lang == "en" else RuntimeWarning)


def broken(report, lang):
    raise ReportError("fixture.chain: no byte count observed")


FIGURES = {"fixture-labels": labels}
"""


def text_figure(tmp_path, monkeypatch, module: str = TEXT_FIGURE):
    """``draw()``: the figures of ``module`` drawn from a report where every claim passed, into
    ``tmp_path / "docs" / "nested"`` (returned; made with its parents)."""
    import verified.pages.figures as figures

    snippets = failed_report(tmp_path, set())
    (snippets / "fixture" / "figures.py").write_text(module, encoding="utf-8")

    def draw(shown: bool = False) -> Path:
        monkeypatch.setattr(figures, "SNIPPETS", snippets)
        monkeypatch.setattr(figures, "ROOT", tmp_path)
        use_report(monkeypatch, tmp_path, snippets, shown=shown)
        figures.draw_figures({"docs_dir": str(tmp_path / "docs" / "nested")})
        return tmp_path / "docs" / "nested"

    return draw


def test_a_figure_keeps_its_text_as_text_and_draws_the_same_bytes_twice(tmp_path, monkeypatch):
    """Text stays text in the site's fonts (the browser draws CJK with the reader's fonts), a
    glyph missing from a font is no warning (pytest turns warnings into errors here), the SVG
    has no date and the same ids in every build, and a figure that did not change is not
    written again (its file keeps its time)."""
    import matplotlib.pyplot as plt

    docs = text_figure(tmp_path, monkeypatch)()
    assert plt.get_fignums() == []  # every figure closed once saved
    for lang, label in (("en", ">memory</text>"), ("zh", ">内存</text>")):
        svg = (docs / lang / "figures" / "fixture-labels.svg").read_text(encoding="utf-8")
        assert ">梯度 gradient</text>" in svg and ">累加 accumulation</text>" in svg
        assert label in svg  # drawn in its language
        assert "font-family: 'DejaVu Sans', 'Noto Sans CJK SC', sans-serif" in svg
        assert "<dc:date>" not in svg and "<path" in svg
    first = (docs / "en" / "figures" / "fixture-labels.svg").read_bytes()
    draw = text_figure(tmp_path / "again", monkeypatch)
    again = draw() / "en" / "figures" / "fixture-labels.svg"
    assert again.read_bytes() == first  # ids from the fixed salt, no date
    old = 1_000_000_000_000_000_000
    os.utime(again, ns=(old, old))
    draw()
    assert again.stat().st_mtime_ns == old  # unchanged: not written


def test_a_figure_that_cannot_read_its_records_stops_the_build_naming_the_file(
    tmp_path, monkeypatch
):
    module = TEXT_FIGURE.replace('{"fixture-labels": labels}', '{"fixture-broken": broken}')
    with pytest.raises(PluginError) as raised:
        text_figure(tmp_path, monkeypatch, module)()
    assert str(raised.value) == (
        "snippets/fixture/figures.py: fixture.chain: no byte count observed"
    )


def test_a_figure_stops_at_its_first_failed_record_and_reads_the_reports(tmp_path, monkeypatch):
    """Where failures are shown, a figure stops at the first failed record it reads, which goes
    into the build's summary; anything else a figure asks of its reports is the reports' own."""
    module = TEXT_FIGURE.replace(
        '{"fixture-labels": labels}',
        '{"fixture-two": two_records, "fixture-attr": attributes}',
    )
    draw = text_figure(tmp_path, monkeypatch, module)
    failed_report(tmp_path / "failed", {("fixture.launch", "paddle", "cpu"), ("fixture.launch", "torch", "cpu")})  # fmt: skip
    (tmp_path / "build" / "claims.json").write_bytes(
        (tmp_path / "failed" / "build" / "claims.json").read_bytes()
    )
    docs = draw(shown=True)
    assert "Figure fixture-two:" in (docs / "en" / "figures" / "fixture-two.svg").read_text("utf-8")
    assert ">failed shown: True</text>" in (docs / "zh" / "figures" / "fixture-attr.svg").read_text("utf-8")  # fmt: skip
    assert sorted(site.FAILED) == ["fixture.launch[paddle-cpu]"]  # torch's was never read


def test_a_figure_that_reads_a_gpu_record_no_report_has_stops_the_build(tmp_path, monkeypatch):
    module = TEXT_FIGURE.replace('{"fixture-labels": labels}', '{"fixture-gpu": gpu_record}')
    with pytest.raises(PluginError) as refused:
        text_figure(tmp_path, monkeypatch, module)(shown=True)
    assert str(refused.value).startswith(
        "snippets/fixture/figures.py: figure fixture-gpu: claim fixture.grad[torch-gpu] is not in "
    )


def test_only_the_missing_glyph_warning_is_silenced(tmp_path, monkeypatch):
    """Another warning from a figure is an error here (pytest's filter), as is a missing-glyph
    message of another category."""
    module = TEXT_FIGURE.replace('{"fixture-labels": labels}', '{"fixture-warn": other_warning}')
    module = module.replace(
        "warnings.warn(report.where,", 'warnings.warn("Glyph 1 (x) missing from font(s) X.",'
    )
    draw = text_figure(
        tmp_path, monkeypatch, module.replace("UserWarning if", "UserWarning if False and")
    )
    with pytest.raises(RuntimeWarning, match="Glyph 1"):
        draw()
    other = module.replace('"Glyph 1 (x) missing from font(s) X."', '"a figure\'s own warning"')
    with pytest.raises(UserWarning, match="a figure's own warning"):
        text_figure(tmp_path / "other", monkeypatch, other)()


def test_without_figure_modules_nothing_is_drawn(tmp_path, monkeypatch):
    import verified.pages.figures as figures

    monkeypatch.setattr(figures, "SNIPPETS", tmp_path / "snippets")
    figures.draw_figures({"docs_dir": str(tmp_path / "docs")})
    assert not (tmp_path / "docs").exists()


def test_the_summary_word_for_word(tmp_path, monkeypatch, capsys):
    """Two failed cases, one on both pages, one on none: the summary names each with its
    pages or its report, its status and the first line of its reason, then the command."""
    snippets = failed_report(
        tmp_path, {("fixture.launch", "paddle", "cpu"), ("fixture.speed", "torch", "cpu")}
    )
    use_report(monkeypatch, tmp_path, snippets, shown=True)
    for lang in ("en", "zh"):
        hooks.on_page_markdown(PAGE, stub_page(lang), {}, None)
    assert site.failed_summary() == "\n".join(
        [
            "2 claim case(s) failed on this machine, are stale or did not run "
            "(AUTOGRAD_SHOW_FAILED=1 marks them ✗ on their pages; `nox -s tests` refuses them):",
            f"  fixture.launch[paddle-cpu] on en/fixture.md, zh/fixture.md: failed: {REASON}",
            "  fixture.speed[torch-cpu] (this build) on no page, listed on the verification "
            f"page: failed: {REASON}",
            "Rerun them: python -m pytest snippets -k "
            "'fixture.launch[paddle-cpu] or fixture.speed[torch-cpu]'",
        ]
    )


@pytest.mark.parametrize(
    ("stale", "reason", "said"),
    [
        ("the snippet changed", "ignored", "stale: the snippet changed"),
        (None, "first line " + "x" * 200 + "\nsecond line", "failed: first line " + "x" * 149),
        (None, None, "failed: "),
        (None, "  \n", "failed: "),
    ],
)
def test_why_a_case_is_listed(stale, reason, said):
    entry = SimpleNamespace(stale=stale, rec={"reason": reason}, status="failed")
    assert site._reason(entry) == said


def test_the_reports_are_read_once_per_build_and_a_missing_one_is_a_plugin_error(monkeypatch):
    from verified.report import ReportError

    made = []

    class Counted:
        def __init__(self):
            made.append(self)

    monkeypatch.setattr(site, "Reports", Counted)
    monkeypatch.setattr(site, "_reports", None)
    first = site.report()
    assert site.report() is first and len(made) == 1
    site.FAILED["x"] = {}
    site.reset()
    assert site.FAILED == {} and site.report() is not first and len(made) == 2

    def missing():
        raise ReportError("build/claims.json: no such report; run the claims first")

    monkeypatch.setattr(site, "Reports", missing)
    site.reset()
    with pytest.raises(PluginError) as raised:
        site.report()
    assert str(raised.value) == "build/claims.json: no such report; run the claims first"
    site.reset()


def test_a_notebooks_values_carry_no_link_to_the_report(tmp_path, monkeypatch):
    snippets = failed_report(tmp_path, set())
    use_report(monkeypatch, tmp_path, snippets, shown=True)
    page = "Value {{ fixture.grad | torch | value }}."
    linked = site.render(page, "en", "en/fixture.md")
    plain = site.render(page, "en", "en/fixture.md", provenance=False)
    assert "verification" in linked and plain != linked and "verification" not in plain


def test_a_case_marked_before_any_report_was_read_is_still_summed_up(monkeypatch):
    """A figure can mark a case before a page read the reports (then no record is unshown)."""
    monkeypatch.setattr(site, "_reports", None)
    monkeypatch.setattr(site, "FAILED", {})
    entry = SimpleNamespace(stale=None, rec={"reason": "why"}, status="failed")
    site.add_failure("a.b[torch-cpu]", entry, "figure f")
    site.add_failure("a.b[torch-cpu]", entry, "en/x.md")
    assert site.failed_summary().splitlines()[1:] == [
        "  a.b[torch-cpu] on en/x.md, figure f: failed: why",
        "Rerun them: python -m pytest snippets -k 'a.b[torch-cpu]'",
    ]


def test_the_note_in_a_figures_place_is_drawn_6_by_1_inches():
    """Whatever its text: under an inch high, and a short note (the Chinese one) takes the
    width of a 6-inch figure's axes, not more (the strip's width above is at most 6 inches)."""
    import matplotlib.pyplot as plt

    import verified.pages.figures as figures

    for lang in ("en", "zh"):
        figure = figures.unavailable("x", lang)
        try:
            assert tuple(figure.get_size_inches()) == (6.0, 1.0), lang
        finally:
            plt.close(figure)
