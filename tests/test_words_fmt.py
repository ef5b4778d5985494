"""The formatting primitives and the words of values, each pinned to its exact output
(verified/pages/fmt.py, verified/pages/words.py): a size at the KiB boundary, an environment
with parts missing, a filter's arguments written without spaces, a wording error's message.
Each case here was written against a mutant that the rendering tests let live (issue 30)."""

from __future__ import annotations

import pytest

from verified.pages import fmt
from verified.pages.words import (
    WordingError,
    join_words,
    parse_filter_args,
    word_value,
    words_same,
)

# -- sizes, seconds, cells ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("n", "en", "zh"),
    [
        (1023, "1,023 bytes", "1,023 字节"),
        (1024, "1.00 KiB", "1.00 KiB"),  # 1 KiB exactly is written in KiB
        (1500, "1.46 KiB", "1.46 KiB"),
        (2**20 - 1, "1024.00 KiB", "1024.00 KiB"),
        (2**20, "1.00 MiB", "1.00 MiB"),
        (-2048, "-2.00 KiB", "-2.00 KiB"),
    ],
)
def test_fmt_size_changes_unit_at_one_kib_and_one_mib(n, en, zh):
    assert fmt.fmt_size(n, "en") == en
    assert fmt.fmt_size(n, "zh") == zh


@pytest.mark.parametrize(
    ("n", "en", "zh"),
    [
        (1023, "1,023 bytes", "1,023 字节"),
        (1024, "1,024 bytes (1.00 KiB)", "1,024 字节（1.00 KiB）"),
        (1500, "1,500 bytes (1.46 KiB)", "1,500 字节（1.46 KiB）"),
        (3 * 2**20, "3,145,728 bytes (3.00 MiB)", "3,145,728 字节（3.00 MiB）"),
    ],
)
def test_fmt_bytes_gives_the_size_beside_the_exact_count_from_one_kib(n, en, zh):
    assert fmt.fmt_bytes(n, "en") == en
    assert fmt.fmt_bytes(n, "zh") == zh


@pytest.mark.parametrize(
    ("seconds", "shown"),
    [(2.5, "2.50 s"), (1.0, "1.00 s"), (0.0125, "12.50 ms"), (0.001, "1.00 ms"),
     (0.00012345, "123.4 µs"), (1.25e-6, "1.2 µs")],
)  # fmt: skip
def test_fmt_seconds(seconds, shown):
    assert fmt.fmt_seconds(seconds) == shown


def test_a_table_cell_escapes_pipes_and_joins_lines():
    assert fmt.cell("a|b\nc") == "a\\|b c"


def test_shorten_keeps_a_text_of_exactly_the_width():
    assert fmt.shorten("abc", 3) == "abc"
    assert fmt.shorten("abcd", 3) == "ab…"


# -- environments and hosts --------------------------------------------------------------------

HOST = {"cpu": "Intel(R) Xeon(R)", "cores": 2, "libc": "glibc 2.36", "kernel": "Linux 6.1"}


def test_host_text_names_every_part_of_the_host():
    env = {"host": HOST}
    assert fmt.host_text(env, "en") == "Intel(R) Xeon(R), 2 cores, glibc 2.36, Linux 6.1"
    assert fmt.host_text(env, "zh") == "Intel(R) Xeon(R)，2 核，glibc 2.36，Linux 6.1"
    # records from before hosts were recorded name the processor only
    assert fmt.host_text({"cpu": "AMD EPYC"}, "en") == "AMD EPYC"


def test_env_text_of_a_cpu_record_with_its_host_and_allocator():
    env = {
        "framework": "torch",
        "version": "2.13.0+cpu",
        "device": "cpu",
        "host": HOST,
        "allocator": {"MALLOC_MMAP_THRESHOLD_": "131072"},
        "python": "3.11.7",
        "date": "2026-12-06T06:00:00Z",
    }
    assert fmt.env_text(env, "en") == (
        "torch 2.13.0, CPU (Intel(R) Xeon(R), 2 cores, glibc 2.36, Linux 6.1), "
        "allocator: MALLOC_MMAP_THRESHOLD_=131072, Python 3.11.7, 2026-12-06"
    )
    assert fmt.env_text(env, "zh") == (
        "torch 2.13.0，CPU（Intel(R) Xeon(R)，2 核，glibc 2.36，Linux 6.1），"
        "分配器：MALLOC_MMAP_THRESHOLD_=131072，Python 3.11.7，2026-12-06"
    )


def test_env_text_with_parts_missing_says_so():
    assert fmt.env_text({"python": "3.11.7"}, "en") == "?, CPU, Python 3.11.7, ?"
    assert fmt.env_text({"framework": "paddle", "version": "3.3.1", "cpu": "AMD EPYC"}, "en") == (
        "paddle 3.3.1, CPU (AMD EPYC), Python None, ?"
    )


def test_env_text_of_a_gpu_record():
    gpu = {"framework": "torch", "version": "2.11.0", "device": "gpu", "python": "3.12.3"}
    assert fmt.env_text(gpu, "en") == "torch 2.11.0, GPU, Python 3.12.3, ?"
    named = {**gpu, "gpu": "NVIDIA H200", "cuda": "12.8", "date": "2026-11-30"}
    assert fmt.env_text(named, "en") == (
        "torch 2.11.0, NVIDIA H200, CUDA 12.8, Python 3.12.3, 2026-11-30"
    )
    assert fmt.env_text(named, "zh") == (
        "torch 2.11.0，NVIDIA H200，CUDA 12.8，Python 3.12.3，2026-11-30"
    )
    no_cuda = {**gpu, "gpu": "NVIDIA H200"}
    assert fmt.env_text(no_cuda, "en") == "torch 2.11.0, NVIDIA H200, Python 3.12.3, ?"


# -- words -----------------------------------------------------------------------------------


def test_join_words_in_each_language():
    assert join_words([], "en") == ""
    assert join_words(["a"], "en") == "a"
    assert join_words(["a", "b"], "en") == "a and b"
    assert join_words(["a", "b", "c"], "en") == "a, b and c"
    assert join_words(["a", "b", "c"], "zh") == "a、b 和 c"


def test_words_same_ignores_key_order_and_keeps_types():
    assert words_same({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert words_same({"b": 2, "a": 1}, {"a": 1, "b": 2})
    assert not words_same(True, 1)
    assert not words_same(1, 1.0)


def test_parse_filter_args_reads_values_pairs_and_fields():
    assert parse_filter_args('true = "yes", false = "no", null = "none"') == [
        (True, "yes"),
        (False, "no"),
        (None, "none"),
    ]
    assert parse_filter_args('true="yes",false="no"') == [(True, "yes"), (False, "no")]
    assert parse_filter_args("1,2") == [1, 2]
    assert parse_filter_args('1 = "one", value.high') == [(1, "one"), ("field", "value.high")]
    assert parse_filter_args('"clean window"') == ["clean window"]


def test_parse_filter_args_refuses_what_it_cannot_read():
    with pytest.raises(WordingError, match=r"cannot read '\?\?': Expecting value"):
        parse_filter_args("1, ??")
    with pytest.raises(WordingError, match=r"expected ',' at '2'"):
        parse_filter_args("1 2")
    with pytest.raises(WordingError, match=r"the wording of True must be a non-empty string"):
        parse_filter_args('true = ""')


def test_yesno_words_both_values_and_refuses_anything_else():
    assert word_value("yesno", ["raises", "does not raise"], True) == "raises"
    assert word_value("yesno", ["raises", "does not raise"], False) == "does not raise"
    message = 'yesno takes two phrases: yesno("if true", "if false")'
    for args in (["only one"], [1, "no"], ["yes", " "]):
        with pytest.raises(WordingError) as caught:
            word_value("yesno", args, True)
        assert str(caught.value) == message
    with pytest.raises(WordingError, match="yesno words a boolean; the observed value is 1$"):
        word_value("yesno", ["a", "b"], 1)


def test_words_and_each_match_differently():
    pairs = [(True, "every time"), ([], "never")]
    assert word_value("each", pairs, [True, True]) == "every time"
    assert word_value("words", pairs, []) == "never"
    with pytest.raises(WordingError) as caught:
        word_value("words", pairs, [True, True])  # words: the whole value, not each element
    assert str(caught.value) == (
        "words(…) words True, [], not the observed value [True, True]: word it, or say what changed"
    )


def test_words_refuses_a_bare_field_among_its_pairs():
    message = 'words takes VALUE = "phrase" pairs, e.g. words(true = "…")'
    for args in ([("field", "value.high")], [(True, "yes"), ("field", "value.high")], []):
        with pytest.raises(WordingError) as caught:
            word_value("words", args, True)
        assert str(caught.value) == message
