"""Bilingual parity: every page exists in both languages, with the same section structure and
the same snippets, claims and figures. The i18n plugin silently falls back to English for a
missing page, so the build alone would hide a gap."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
LANGS = ("en", "zh")
GENERATED = ("figures", "notebooks")  # written at build time, for both languages

FENCE = re.compile(r"^\s*(```|~~~)")
HEADING = re.compile(r"^(#{1,6})\s+\S")
SNIPPET = re.compile(r"--8<--\s+\"([^\"]+)\"")
# a value placeholder may end with one wording filter (yesno(...), words(...), each(...), to(...),
# at(...): verified/pages/words.py); the claim, framework and field are what must match
CLAIM = re.compile(
    r"\{\{\s*([a-z0-9][a-z0-9.-]*)\s*\|\s*([a-z@]+)\s*\|\s*([\w.-]+)\s*(?:\|\s*\w+\((?:[^()]|\([^()]*\))*\)\s*)?\}\}"
)
FIGURE = re.compile(r"\]\((figures/[^)\s]+)\)")
TABS = re.compile(r'^\s*=== "([^"]+)"')


def pages(lang: str) -> set[str]:
    root = DOCS / lang
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*.md")
        if p.relative_to(root).parts[0] not in GENERATED
    }


def structure(text: str) -> dict:
    """What must match between the two languages of a page."""
    headings, tabs, in_fence = [], [], False
    for line in text.splitlines():
        if FENCE.match(line):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        if m := HEADING.match(line):
            headings.append(len(m[1]))
        if m := TABS.match(line):
            tabs.append(m[1])
    return {
        "heading levels": headings,
        "framework tabs": tabs,
        "snippets": SNIPPET.findall(text),
        # which claims, for which framework and device, and which field of each the page
        # shows; a statement is the same text for every framework
        "claims": sorted(
            {
                (cid, "*", field) if field == "statement" else (cid, fw, field)
                for cid, fw, field in CLAIM.findall(text)
            }
        ),
        "figures": sorted(FIGURE.findall(text)),
    }


def parity_problems(en: str, zh: str) -> list[str]:
    a, b = structure(en), structure(zh)
    problems = []
    for key in a:
        if a[key] == b[key]:
            continue
        if key in ("claims", "figures"):
            only_en = sorted(set(a[key]) - set(b[key]))
            only_zh = sorted(set(b[key]) - set(a[key]))
            problems.append(f"{key} differ: only in en {only_en}; only in zh {only_zh}")
        else:
            problems.append(f"{key} differ:\n  en: {a[key]}\n  zh: {b[key]}")
    return problems


def test_every_page_exists_in_both_languages():
    en, zh = pages("en"), pages("zh")
    assert en, "no English pages found"
    assert en == zh, f"only in docs/en: {sorted(en - zh)}; only in docs/zh: {sorted(zh - en)}"


@pytest.mark.parametrize("page", sorted(pages("en") & pages("zh")))
def test_page_pair_has_same_structure(page):
    en = (DOCS / "en" / page).read_text(encoding="utf-8")
    zh = (DOCS / "zh" / page).read_text(encoding="utf-8")
    problems = parity_problems(en, zh)
    assert not problems, f"docs/en/{page} vs docs/zh/{page}:\n" + "\n".join(problems)


def test_parity_check_catches_differences():
    en = '# T\n\n## A\n\n=== "PyTorch"\n\n    --8<-- "a/x_torch.py"\n\n{{ a.b | torch | value }}\n'
    assert parity_problems(en, en) == []
    assert parity_problems(en, en.replace("## A", "### A"))  # heading level
    assert parity_problems(en, en.replace("x_torch", "y_torch"))  # snippet
    assert parity_problems(en, en.replace("a.b |", "a.c |"))  # claim
    assert parity_problems(en, en.replace("| torch |", "| paddle |"))  # framework
    assert parity_problems(en, en.replace("| torch |", "| torch@gpu |"))  # device
    assert parity_problems(en, en.replace("| value }}", "| value.x }}"))  # field
    assert parity_problems(en, en + "\n## B\n")  # extra section
    fenced = en + "```\n## not a heading\n```\n"
    assert "## not a heading" in fenced and parity_problems(en, fenced) == []
    by_field = "{{ m | torch | bytes.in_place }}"
    assert parity_problems(by_field, by_field.replace("bytes.in_place", "theoretical.out_of_place"))


def test_chinese_pages_are_written_in_chinese():
    """A page copied from English and not translated would pass the structure check."""
    for page in pages("zh"):
        text = (DOCS / "zh" / page).read_text(encoding="utf-8")
        prose = re.sub(r"```.*?```|`[^`]*`|\{\{.*?\}\}|--8<--.*", "", text, flags=re.S)
        cjk = len(re.findall(r"[\u4e00-\u9fff]", prose))
        latin_words = len(re.findall(r"[A-Za-z]{3,}", prose))
        assert cjk > latin_words, (
            f"docs/zh/{page}: {cjk} CJK characters vs {latin_words} English words"
        )
