"""Snippet comments in the reader's language (verified/notebooks/comments.py).

The code a zh reader sees (on the page, in the notebook) and the code the claims executed
differ only in comments and docstrings; every comment has a translation; a missing or
malformed one fails with the snippet file and line named. The last test checks the built zh
pages (phase two, marker `site`).
"""

from __future__ import annotations

import html
import re
import textwrap
from pathlib import Path

import pytest
from sitemodel import SITE

from verified.claims import LANGS, ROOT, SNIPPETS
from verified.notebooks import comments as cm
from verified.notebooks import snippets as sn

OTHER_LANGS = [lang for lang in LANGS if lang != cm.SOURCE_LANG]
FILES = [p.relative_to(SNIPPETS).as_posix() for p in cm.snippet_files()]
CASES = [(name, lang) for name in FILES for lang in OTHER_LANGS]


def test_there_are_snippets_and_other_languages():
    assert FILES and OTHER_LANGS


def test_every_comment_has_a_translation_and_every_entry_a_comment():
    problems = cm.table_problems()
    assert not problems, "\n\n".join(problems)


def _prose_columns(source: str) -> dict[int, int | None]:
    """Line -> column where its comment starts (None: the whole line is docstring)."""
    found: dict[int, int | None] = {}
    for item in cm.prose(source):
        if item.kind == "comment":
            found[item.line] = item.start[1]
        else:
            for line in range(item.start[0], item.end[0] + 1):
                found[line] = None
    return found


@pytest.mark.parametrize(("name", "lang"), CASES, ids=[f"{lang}:{n}" for n, lang in CASES])
def test_translated_snippet_differs_only_in_comments(name, lang):
    """Token streams without comments (and docstrings) are equal, and every executable line is
    byte-identical: the code up to a comment, every line without prose."""
    original = (SNIPPETS / name).read_text(encoding="utf-8")
    shown = cm.translated_file(name, lang)
    assert cm.code_tokens(shown) == cm.code_tokens(original), f"{name}: code differs"
    old_lines, new_lines = original.split("\n"), shown.split("\n")
    assert len(old_lines) == len(new_lines), f"{name}: line count differs"
    prose_at = _prose_columns(original)
    for number, (old, new) in enumerate(zip(old_lines, new_lines, strict=True), start=1):
        if number not in prose_at:
            assert old == new, f"snippets/{name}:{number}: {old!r} became {new!r}"
        elif prose_at[number] is not None:
            column = prose_at[number]
            assert old[:column] == new[:column], f"snippets/{name}:{number}: code changed"
    if cm.prose(original):
        assert shown != original, f"{name}: has comments, but nothing was translated"
        assert not any(p.text in shown for p in cm.prose(original) if len(p.text) > 12), (
            f"{name}: an English comment is left in the {lang} version"
        )


# -- the checks can fail ----------------------------------------------------------------------


def test_code_tokens_see_code_changes_and_ignore_comments():
    base = 'def f(x):\n    """Doc."""\n    return x + 1  # add one\n'
    assert cm.code_tokens(base) == cm.code_tokens(base.replace("add one", "加一"))
    assert cm.code_tokens(base) == cm.code_tokens(base.replace("Doc.", "文档。"))
    assert cm.code_tokens(base) != cm.code_tokens(base.replace("x + 1", "x + 2"))
    assert cm.code_tokens(base) != cm.code_tokens(base.replace('"""Doc."""', "pass"))
    assert cm.code_tokens(base) != cm.code_tokens(base.replace("f(x)", "f(y)"))


def _article(tmp_path: Path, snippet: str, table: str | None, name: str = "demo_torch.py"):
    snippets = tmp_path / "snippets"
    (snippets / "demo").mkdir(parents=True)
    (snippets / "demo" / name).write_text(snippet, encoding="utf-8")
    if table is not None:
        (snippets / "demo" / "comments.zh.toml").write_text(table, encoding="utf-8")
    return snippets


SNIPPET = """\
import torch

x = torch.ones(3)  # a leaf
y = x * 2  # a product


def double(t):
    \"\"\"Twice t.\"\"\"
    return t * 2
"""
TABLE = '"a leaf" = "一个叶子张量"\n"a product" = "乘积"\n"Twice t." = "t 的两倍。"\n'


def test_translation_applied(tmp_path):
    snippets = _article(tmp_path, SNIPPET, TABLE)
    shown = cm.translated_file("demo/demo_torch.py", "zh", snippets)
    assert "x = torch.ones(3)  # 一个叶子张量\n" in shown
    assert '"""t 的两倍。"""' in shown
    assert cm.code_tokens(shown) == cm.code_tokens(SNIPPET)


def test_missing_translation_names_file_line_and_what_to_add(tmp_path):
    snippets = _article(tmp_path, SNIPPET, '"a leaf" = "一个叶子张量"\n"Twice t." = ""\n')
    with pytest.raises(cm.TranslationError) as info:
        cm.translated_file("demo/demo_torch.py", "zh", snippets)
    message = str(info.value)
    assert "snippets/demo/demo_torch.py:4: comment without a Chinese translation" in message
    assert "snippets/demo/demo_torch.py:8: docstring without a Chinese translation" in message
    assert "snippets/demo/comments.zh.toml" in message
    assert '"a product" = ""' in message and '"Twice t." = ""' in message
    assert "demo_torch.py:3" not in message  # translated lines are not listed


def test_missing_table_names_the_file_to_create(tmp_path):
    snippets = _article(tmp_path, SNIPPET, None)
    with pytest.raises(cm.TranslationError, match=r"(?s)demo_torch\.py:3: .*create it"):
        cm.translated_file("demo/demo_torch.py", "zh", snippets)
    assert any("demo_torch.py:3" in p for p in cm.table_problems(snippets))


def test_page_with_a_missing_translation_fails_the_build(tmp_path):
    from mkdocs.exceptions import PluginError

    snippets = _article(tmp_path, SNIPPET, '"a leaf" = "一个叶子张量"\n')
    page = '```python\n--8<-- "demo/demo_torch.py"\n```\n'
    with pytest.raises(cm.TranslationError, match=r"demo_torch\.py:4"):
        sn.translate_includes(page, "zh", snippets)
    original = sn.translate_includes
    try:  # the hook's call, with this folder's snippets
        sn.translate_includes = lambda markdown, lang: original(markdown, lang, snippets)
        with pytest.raises(PluginError, match=r"(?s)zh/demo\.md: .*demo_torch\.py:4"):
            sn.translate_page(page, "zh", "zh/demo.md")
    finally:
        sn.translate_includes = original


def test_notebook_with_a_missing_translation_fails(tmp_path):
    from verified.notebooks.cells import generate

    snippets = _article(tmp_path, SNIPPET, '"a leaf" = "一个叶子张量"\n')
    docs = tmp_path / "docs"
    (docs / "zh").mkdir(parents=True)
    (docs / "zh" / "demo.md").write_text(
        '# 演示\n\n=== "PyTorch"\n\n    ```python\n    --8<-- "demo/demo_torch.py"\n    ```\n',
        encoding="utf-8",
    )
    with pytest.raises(cm.TranslationError, match=r"snippets/demo/demo_torch\.py:4"):
        generate(
            "demo",
            "zh",
            "torch",
            docs=docs,
            snippets=snippets,
            render=lambda md, lang, where: md,
            infos={},
        )


@pytest.mark.parametrize(
    ("entry", "complaint"),
    [
        ('"Twice t." = "两倍\\"\\"\\" + \\"\\"\\"。"', "changes the code"),  # no docstring any more
        ('"Twice t." = "两倍\\"\\"\\"。"', "breaks the code"),  # closes the docstring early
        ('"a leaf" = "一个\\n叶子张量"', "keep the number of lines"),
        ('"a leaf" = 3', "must be"),
    ],
    ids=["expression", "quotes", "newline", "not-a-string"],
)
def test_translation_that_would_change_the_code_is_refused(tmp_path, entry, complaint):
    table = "\n".join(
        [entry] + [ln for ln in TABLE.splitlines() if ln.split(" = ")[0] not in entry]
    )
    snippets = _article(tmp_path, SNIPPET, table + "\n")
    with pytest.raises(cm.TranslationError, match=complaint):
        cm.translated_file("demo/demo_torch.py", "zh", snippets)


def test_unused_entry_is_reported(tmp_path):
    snippets = _article(tmp_path, SNIPPET, TABLE + '"gone from the snippet" = "已删除"\n')
    problems = cm.table_problems(snippets)
    assert len(problems) == 1 and "gone from the snippet" in problems[0], problems
    assert "comments.zh.toml" in problems[0] and "remove the entry" in problems[0]


def test_pragmas_and_section_marks_need_no_translation(tmp_path):
    snippet = "import torch  # noqa: F401\n# --8<-- [start:main]\nx = 1  # fmt: skip\n# --8<-- [end:main]\n"
    snippets = _article(tmp_path, snippet, None)
    assert cm.translated_file("demo/demo_torch.py", "zh", snippets) == snippet


# -- the page: fence and indentation as pymdownx.snippets would have them -----------------------


def _html(markdown_text: str, snippets: Path) -> str:
    import markdown

    return markdown.markdown(
        markdown_text,
        extensions=["pymdownx.superfences", "pymdownx.tabbed", "pymdownx.snippets"],
        extension_configs={
            "pymdownx.tabbed": {"alternate_style": True},
            "pymdownx.snippets": {"base_path": [str(snippets)], "check_paths": True},
        },
    )


def test_page_include_inside_tabs_renders_like_the_original(tmp_path):
    """The zh page with the translated source inlined renders to the same HTML as the page
    with pymdownx.snippets including the file, but for the comments."""
    snippets = _article(tmp_path, SNIPPET, TABLE)
    page = textwrap.dedent(
        """\
        Text.

        === "PyTorch"

            ```python
            --8<-- "demo/demo_torch.py"
            ```

            After.

        ```python
        --8<-- "demo/demo_torch.py"
        ```
        """
    )
    inlined = sn.translate_includes(page, "zh", snippets)
    assert "--8<--" not in inlined
    assert "\n    x = torch.ones(3)  # 一个叶子张量\n" in inlined  # indented like the include
    assert "\nx = torch.ones(3)  # 一个叶子张量\n" in inlined
    english = _html(page, snippets)
    chinese = _html(inlined, snippets)
    for text in ("一个叶子张量", "乘积", "t 的两倍。"):
        assert text in chinese
    back = chinese
    for key, value in (
        ("a leaf", "一个叶子张量"),
        ("a product", "乘积"),
        ("Twice t.", "t 的两倍。"),
    ):
        back = back.replace(value, key)
    assert back == english
    assert sn.translate_includes(page, cm.SOURCE_LANG, snippets) == page


def test_real_pages_get_every_include_translated():
    """Every page of every section, at any depth, in each language other than the source's."""
    reached = {lang: 0 for lang in OTHER_LANGS}
    for lang in OTHER_LANGS:
        for page in sorted((ROOT / "docs" / lang).rglob("*.md")):
            reached[lang] += check_includes_translated(page, lang)
    assert all(reached.values()), f"no snippet include found in the pages of {reached}"


def check_includes_translated(page: Path, lang: str) -> int:
    """Check that each snippet ``page`` includes is inlined in ``lang``; return their count."""
    text = page.read_text(encoding="utf-8")
    includes = re.findall(r'--8<--\s+"([^"]+)"', text)  # a file, or a file:section
    out = sn.translate_includes(text, lang)
    assert "--8<--" not in out, f"{page}: an include was left"
    for path in includes:
        name, _, section = path.partition(":")
        shown = sn.snippet_text(path, lang=lang) if section else cm.translated_file(name, lang)
        for line in shown.split("\n"):
            assert line.strip() in out, f"{page}: {path} not inlined ({line!r})"
    return len(includes)


# -- the built site ---------------------------------------------------------------------------

CODE_BLOCK = re.compile(r'<div class="[^"]*\bhighlight"><pre>.*?<code>(.*?)</code>', re.S)


def built_page_problems(html_text: str, includes: list[str], lang: str, where: str) -> list[str]:
    """Snippets included by a page that its built HTML does not show translated."""
    blocks = []
    for raw in CODE_BLOCK.findall(html_text):
        blocks.append(html.unescape(re.sub(r"<[^>]+>", "", raw)).strip("\n"))
    problems = []
    for path in includes:
        name, _, section = path.partition(":")
        shown = sn.snippet_text(path, lang=lang) if section else cm.translated_file(name, lang)
        if shown.strip("\n") not in blocks:
            problems.append(f"{where}: no code block holds the {lang} version of {path}")
        english = (SNIPPETS / name).read_text(encoding="utf-8")
        table = cm.load_table((SNIPPETS / name).parent, lang)
        for item in cm.prose(english):
            if table.get(item.text) == item.text:
                continue  # the same in both languages ("# 64 MiB")
            if item.kind == "comment" and any(f"# {item.text}" in b for b in blocks):
                problems.append(f"{where}: English comment {item.text!r} of {name}")
    return problems


def test_built_page_check_rejects_english_comments():
    name = "inplace/saved_input_torch.py"
    english = html.escape((SNIPPETS / name).read_text(encoding="utf-8"))
    page = f'<div class="highlight"><pre><span></span><code>{english}</code></pre></div>'
    problems = built_page_problems(page, [name], "zh", "fake.html")
    assert any("no code block holds" in p for p in problems), problems
    assert any("English comment 'the value backward needs is overwritten'" in p for p in problems)
    shown = html.escape(cm.translated_file(name, "zh"))
    good = (
        f'<div class="language-python highlight"><pre><span></span><code>{shown}</code></pre></div>'
    )
    assert built_page_problems(good, [name], "zh", "fake.html") == []


@pytest.mark.site
@pytest.mark.parametrize("lang", OTHER_LANGS)
def test_built_pages_show_translated_comments(lang):
    """Every snippet a page includes appears on the built page with its comments translated
    and with the code the claims executed."""
    problems, checked = [], 0
    docs = ROOT / "docs" / lang
    for source in sorted(docs.rglob("*.md")):  # every page of every section
        includes = re.findall(r'--8<--\s+"([^"]+)"', source.read_text(encoding="utf-8"))
        if not includes:
            continue
        page = source.relative_to(docs).with_suffix("")
        built = SITE / lang / (page.parent if page.name == "index" else page) / "index.html"
        assert built.is_file(), f"{built} missing: build the site"
        problems += built_page_problems(
            built.read_text(encoding="utf-8"), includes, lang, str(built.relative_to(SITE))
        )
        checked += len(includes)
    assert checked, f"no {lang} page includes a snippet"
    assert not problems, "\n".join(problems)
