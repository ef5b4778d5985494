"""Fields of a record one by one, without a page: the conditions table of a timing case in
both languages, and what it refuses. Compared with the whole expected text."""

from __future__ import annotations

import pytest
from claimkit import ascii_locale

from verified.pages.fields import (
    Unworded,
    conditions_table,
    exception_text,
    field_value,
    output_text,
    value_words,
    word_observed,
)
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
    assert output_text({"observed": {"output": "endX\n"}}) == "endX"
    lines = [f"line {i}" for i in range(1, 14)]

    def shown(message_lines):
        exc = {"type": "E", "message": "\n".join(message_lines)}
        return output_text({"observed": {"exception": exc}}).split("\n")

    assert shown(lines[:12]) == ["Traceback (most recent call last):", "  ...", "E: line 1",
                                 *lines[1:12]]  # fmt: skip
    assert shown(lines) == ["Traceback (most recent call last):", "  ...", "E: line 1",
                            *lines[1:12], "..."]  # fmt: skip


def test_the_message_field_is_the_first_line_of_the_message_or_nothing():
    def message(text):
        rec = {"observed": {"exception": {"type": "E", "message": text}}}
        return field_value(rec, "message", None, "en", "page.md: x")

    assert message("\n  first \nsecond\n") == "<code>first </code>"
    assert message(" \n\n") == "<code></code>"  # a blank message shows as an empty code


@pytest.mark.parametrize(("lang", "size"), [("en", "512 bytes"), ("zh", "512 字节")])
def test_the_mib_field_of_less_than_a_kib_is_in_the_languages_bytes(lang, size):
    assert field_value({"observed": {"bytes": 512}}, "mib", None, lang, "page.md: x") == size


@pytest.mark.parametrize("observed", [{}, {"ratio": "2"}, {"ratio": None}])
def test_the_ratio_field_refuses_a_record_without_a_ratio(observed):
    with pytest.raises(ReportError) as err:
        field_value({"observed": observed}, "ratio", None, "en", "page.md: x")
    assert str(err.value) == "page.md: x: no ratio observed"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_the_env_field_shows_every_allocator_setting_or_the_defaults(lang):
    settings = {"MALLOC_ARENA_MAX": "2", "X": "y"}
    assert field_value({"env": {"allocator": settings}}, "env", None, lang, "page.md: x") == (
        "<code>MALLOC&#95;ARENA&#95;MAX=2 X=y</code>"
    )
    assert (
        field_value({"env": {"allocator": {}}}, "env", None, lang, "page.md: x")
        == (TEXT[lang]["allocator_defaults"])
    )


HOST = {"cpu": "Xeon <8480>", "cores": 16, "libc": "glibc 2.35", "kernel": "6.8.0"}


@pytest.mark.parametrize(
    ("lang", "machine"),
    [
        ("en", "Xeon &lt;8480&gt;, 16 cores, glibc 2.35, 6.8.0"),
        ("zh", "Xeon &lt;8480&gt;，16 核，glibc 2.35，6.8.0"),
    ],
)
def test_the_host_field_names_the_machine_out_of_the_search_index(lang, machine):
    rec = {"env": {"cpu": "Xeon", "host": HOST}}
    assert field_value(rec, "host", None, lang, "page.md: x") == (
        f'<span data-search-exclude="host">{machine}</span>'
    )


@pytest.mark.parametrize("rec", [{}, {"env": {"cpu": "Xeon"}}, {"env": {"host": "Xeon"}}])
def test_the_host_field_refuses_a_record_that_does_not_name_its_machine(rec):
    with pytest.raises(ReportError) as err:
        field_value(rec, "host", None, "en", "page.md: x")
    assert str(err.value) == "page.md: x: the record does not name the machine it ran on"


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_an_expectation_is_shown_as_the_number_it_is(lang):
    """Ratios (``ratio_*``, the margin, the control's limit) as ratios, an integer tolerance
    (``tol_*``) as bytes, anything else as the value it is."""
    times = "×" if lang == "en" else " 倍"
    expected = {"ratio_min": 1.5, "margin": 1.25, "max_noise": 1.1, "tol_bytes": 2048,
                "tol_rel": 0.5, "count": 3, "ratio": 2}  # fmt: skip
    shown = {k: field_value({"expected": expected}, "expected", k, lang, "x") for k in expected}
    assert shown == {
        "ratio_min": f"1.50{times}",
        "margin": f"1.25{times}",
        "max_noise": f"1.10{times}",
        "tol_bytes": "2,048 bytes (2.00 KiB)" if lang == "en" else "2,048 字节（2.00 KiB）",
        "tol_rel": "<code>0.5</code>",
        "count": "<code>3</code>",
        "ratio": "<code>2</code>",  # not a ratio_ key: the value as it is
    }


def test_an_unworded_phrase_is_named_by_the_error():
    with pytest.raises(Unworded) as err:
        word_observed({"case": ["wrong gradient, no error"]}, {}, "zh")
    assert err.value.phrase == "wrong gradient, no error"
    assert str(err.value) == "wrong gradient, no error"


def test_value_words_are_read_as_utf8_whatever_the_locale(tmp_path):
    (tmp_path / "values.zh.toml").write_text('"exit code 0" = "退出码 0"\n', encoding="utf-8")
    with ascii_locale():
        assert value_words(tmp_path, "zh") == {"exit code 0": "退出码 0"}


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
