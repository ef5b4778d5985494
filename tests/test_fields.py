"""Fields of a record one by one, without a page: the conditions table of a timing case in
both languages, and what it refuses. Compared with the whole expected text."""

from __future__ import annotations

import pytest

from verified.pages.fields import conditions_table, exception_text, field_value, output_text
from verified.pages.fmt import escape
from verified.pages.words import TEXT
from verified.report import ReportError

CONDITIONS = {
    "clean": {"ratio": 2.0, "noise": 1.01, "allocator": {}},
    "perturbed": {"ratio": 1.5, "noise": 1.125, "allocator": {"MALLOC_ARENA_MAX": "2", "X": "y"}},
    "shell MALLOC_TOP_PAD_=1 A=<b>": {"ratio": 3, "noise": 1, "allocator": None},
    "odd|name": {"ratio": 0.5, "noise": 1.0},
}


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_conditions_table_shows_every_condition_its_ratio_control_and_allocator(lang):
    t = TEXT[lang]
    times = "×" if lang == "en" else " 倍"
    shell = t["condition"]["shell"].format(
        variables="<code>MALLOC&#95;TOP&#95;PAD&#95;=1 A=&lt;b&gt;</code>"
    )
    assert conditions_table(
        {"observed": {"conditions": CONDITIONS}}, lang, "page.md: x"
    ) == "\n".join(
        [
            t["conditions_head"],
            "|---|---|---|---|",
            f"| {t['condition']['clean']} | 2.00{times} | 1.01{times} | {t['defaults']} |",
            f"| {t['condition']['perturbed']} | 1.50{times} | 1.12{times} | "
            "<code>MALLOC&#95;ARENA&#95;MAX=2 X=y</code> |",
            f"| {shell} | 3.00{times} | 1.00{times} | ? |",
            f"| odd&#124;name | 0.50{times} | 1.00{times} | ? |",
        ]
    )


@pytest.mark.parametrize("observed", [None, {}, {"conditions": {}}, {"conditions": [1]}])
def test_conditions_table_refuses_a_record_without_conditions(observed):
    with pytest.raises(ReportError) as err:
        conditions_table({"observed": observed}, "en", "page.md: {{ x | torch | conditions }}")
    assert str(err.value) == (
        "page.md: {{ x | torch | conditions }}: the record has no conditions (not a timing claim?)"
    )


@pytest.mark.parametrize(
    "measured",
    [{"noise": 1.0}, {"ratio": 2.0}, {"ratio": "2", "noise": 1.0}, {"ratio": 2.0, "noise": None}],
)
def test_conditions_table_refuses_a_condition_without_ratio_and_control(measured):
    rec = {"observed": {"conditions": {"clean": CONDITIONS["clean"], "perturbed": measured}}}
    with pytest.raises(ReportError) as err:
        conditions_table(rec, "zh", "page.md: x")
    assert str(err.value) == "page.md: x: condition 'perturbed' observed no ratio and control"


def test_bytes_of_a_region_not_observed_name_the_regions_there_are():
    with pytest.raises(ReportError) as err:
        field_value({"observed": {"bytes": 4096}}, "bytes", "peak", "en", "page.md: x")
    assert str(err.value) == "page.md: x: no region 'peak' in []"
    with pytest.raises(ReportError) as err:
        field_value({"observed": {"bytes": {"b": 1, "a": 2}}}, "mib", "peak", "en", "page.md: x")
    assert str(err.value) == "page.md: x: no region 'peak' in ['a', 'b']"


def test_exception_text_keeps_the_message_as_printed():
    """Blank lines around the message go; its own indentation and characters stay, and every
    line loses its trailing spaces."""
    rec = {
        "observed": {"exception": {"type": "RuntimeError", "message": "\n  Xfirst  \nlastX\n\n"}}
    }
    assert exception_text(rec, "page.md: x") == "RuntimeError:   Xfirst\nlastX"


def test_output_text_keeps_what_was_printed_and_cuts_a_long_message_at_twelve_lines():
    """Only the final line breaks of the output go (its spaces and characters stay); an
    exception's message shows at most 12 lines, then "..."."""
    assert output_text({"observed": {"output": "a  \nbX  \n\n"}}) == "a  \nbX  "
    lines = [f"line {i}" for i in range(1, 14)]

    def shown(message_lines):
        exc = {"type": "E", "message": "\n".join(message_lines)}
        return output_text({"observed": {"exception": exc}}).split("\n")

    assert shown(lines[:12]) == ["Traceback (most recent call last):", "  ...", "E: line 1",
                                 *lines[1:12]]  # fmt: skip
    assert shown(lines) == ["Traceback (most recent call last):", "  ...", "E: line 1",
                            *lines[1:12], "..."]  # fmt: skip


# -- formatting primitives ---------------------------------------------------------------------


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_lists_join_with_the_languages_separator_and_its_and(lang):
    from verified.pages.fmt import _join

    t = TEXT[lang]
    assert _join(["a", "b", "c"], lang) == f"a{t['list_sep']}b{t['and']}c"
    assert _join(["a", "b"], lang) == f"a{t['and']}b"
    assert _join(["a"], lang) == "a"


def test_allocator_settings_in_words():
    from verified.pages.fmt import allocator_text

    both = {"MALLOC_ARENA_MAX": "2", "MALLOC_TOP_PAD_": "0"}
    shown = "MALLOC_ARENA_MAX=2 MALLOC_TOP_PAD_=0"
    assert allocator_text({"allocator": both}, "en") == TEXT["en"]["allocator"].format(
        settings=shown
    )
    assert allocator_text({"allocator": {}}, "zh") == TEXT["zh"]["allocator"].format(
        settings=TEXT["zh"]["defaults"]
    )
    assert allocator_text({"allocator": None}, "en") is None


def test_the_short_environment_of_a_table_cell():
    """Framework, release, the GPU of a GPU record only, and the date; '?' for what the record
    lacks; the tooltip's double quotes become single ones (it sits in a title attribute)."""
    from verified.pages.fmt import env_short, env_text

    env = {"framework": "torch", "version": "2.13.0+cpu", "device": "cpu", "gpu": "H200",
           "date": "2026-12-01T10:00:00+00:00", "cpu": 'A "quoted" CPU'}  # fmt: skip
    title = escape(env_text(env, "en")).replace("&quot;", "'")
    assert "&quot;" not in title and "'quoted'" in title
    assert env_short(env, "en") == (
        f'<span class="claim-env" title="{title}">torch 2.13.0 · 2026-12-01</span>'
    )
    gpu = {**env, "device": "gpu"}
    assert ">torch 2.13.0 · H200 · 2026-12-01</span>" in env_short(gpu, "en")
    bare = {"version": "3.3.1"}
    assert env_short(bare, "en").endswith(">? 3.3.1 · ?</span>")
