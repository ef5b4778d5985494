"""Checks over the built Chinese site: what a zh reader sees is Chinese.

- no English UI string (mkdocs-jupyter's copy buttons: "Copied!", "Copy to Clipboard"; Material's
  own words), in text or in an attribute a reader meets (title, aria-label, placeholder);
- a Chinese meta description (the search engines' snippet of every page);
- no English phrase in the hover title of a value (the observed value of a worded value is shown
  there in the page's language);
- no measured value that stays raw in a sentence: a boolean shown as 是/否 must answer a
  stated yes/no question ("是否报错：否"), never stand alone ("飞桨的回答是 否", "（是）");
  no True/False in prose outside code; no dict literal and no list other than a tensor's
  numbers. The shared rendering (verified/pages/words.py) says such a value in the words its
  placeholder declares (yesno, words, each) and joins a list of names in words.

Each check is a function over parsed HTML; the tests without the `site` mark run each one on a
page made to break it, so that every check is shown to fail.

Run after the build: `pytest -m site tests/test_built_zh.py`.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest
from sitemodel import CJK, NO_SITE, Node, _TreeBuilder, content, pages_of, parse, site_exists

from verified.pages.markdown import CJK as CJK_RANGES

# What mkdocs-jupyter's template and Material's English partials say; none of it may reach a zh
# page (matched case-insensitively, as whole text or attribute values containing it).
ENGLISH_UI = (
    "Copied!",
    "Copy to clipboard",
    "Copied to clipboard",
    "Skip to content",
    "Back to top",
    "Type to start searching",
    "Table of contents",
    "Initializing search",
    "Last update",
)
READER_ATTRS = ("title", "aria-label", "placeholder", "alt")
UI_LOWER = {s.lower() for s in ENGLISH_UI}
# An English phrase in a hover title: two lowercase English words in a row ("no error",
# "killed by"); names, versions and machine words (torch 2.13.0, AMD EPYC, CPU) are not.
ENGLISH_WORDS = re.compile(r"\b[a-z]{2,}[ ,]+[a-z]{2,}\b")
# three English words in a row, for the meta description
ENGLISH_RUN = re.compile(r"[A-Za-z]{2,}(?:[ ,]+[A-Za-z]{2,}){2,}")
BOOLEAN_WORDS = {"是", "否", "True", "False"}
# the text before a boolean, since the last bracket or sentence stop, asks a yes/no question
QUESTION = re.compile(r"(?:是否|吗)[^（(。；;]*[：:][^（(）)。；;：:]*$")
NUMBER = r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?"
NUMBER_LIST = re.compile(rf"^\[\s*(?:{NUMBER}\s*(?:,\s*{NUMBER}\s*)*)\]$")


def parse_text(text: str) -> Node:
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root


def _in(node: Node, tags: set[str]) -> bool:
    return node.tag in tags or any(a.tag in tags for a in node.ancestors())


def _block(node: Node) -> Node:
    """The paragraph, list item or table cell a node is part of."""
    for a in node.ancestors():
        if a.tag in ("p", "li", "td", "th", "dd", "h1", "h2", "h3", "h4", "h5", "h6"):
            return a
    return node.parent or node


def _text_before(block: Node, target: Node) -> str:
    """The text of ``block`` before ``target`` (in document order)."""
    out: list[str] = []

    def walk(node: Node) -> bool:
        for child in node.children:
            if child is target:
                return True
            if isinstance(child, str):
                out.append(child)
            elif walk(child):
                return True
        return False

    walk(block)
    return "".join(out)


# -- the checks ---------------------------------------------------------------------------------


class _Raw(HTMLParser):
    """Every text and reader-facing attribute of a page, hidden ones included; code and program
    output (pre, code, kbd, samp) quote the frameworks verbatim and are left out."""

    VERBATIM = ("script", "style", "pre", "code", "kbd", "samp")

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.problems: list[str] = []
        self.verbatim = 0

    def handle_starttag(self, tag, attrs):
        if tag in self.VERBATIM:
            self.verbatim += 1
        for name, value in attrs:
            if name in READER_ATTRS and value:
                self._check(value, f"<{tag} {name}>")

    def handle_endtag(self, tag):
        if tag in self.VERBATIM and self.verbatim:
            self.verbatim -= 1

    def handle_data(self, data):
        if not self.verbatim:
            self._check(data, "text")

    def _check(self, text: str, where: str):
        # a UI string is the whole text of its element or attribute
        if text.strip().lower() in UI_LOWER:
            self.problems.append(f"{where}: {text.strip()!r}")

    def run(self, html: str) -> list[str]:
        self.feed(html)
        self.close()
        return self.problems


def english_ui(html: str) -> list[str]:
    return _Raw().run(html)


def meta_description(doc: Node) -> list[str]:
    metas = [m for m in doc.iter("meta") if m.attrs.get("name") == "description"]
    if not metas:
        return ["no <meta name=description>"]
    text = metas[0].attrs.get("content", "")
    if not CJK.search(text) or ENGLISH_RUN.search(text):
        return [f"meta description not in Chinese: {text[:100]!r}"]
    return []


def value_titles(doc: Node) -> list[str]:
    problems = []
    for a in content(doc).iter("a"):
        if not a.has_class("claim-value"):
            continue
        title = a.attrs.get("title", "")
        if m := ENGLISH_WORDS.search(title):
            problems.append(
                f"{a.attrs.get('data-claim')} {a.attrs.get('data-framework')} "
                f"{a.attrs.get('data-field')}: English in the hover title ({m[0]!r}): {title!r}"
            )
    return problems


def raw_values(doc: Node) -> list[str]:
    """Every value of a page shown raw in its sentence."""
    problems = []
    body = content(doc)
    for a in body.iter("a"):
        if not a.has_class("claim-value") or _in(a, {"pre"}):
            continue
        shown = a.text().strip()
        where = " ".join(
            a.attrs.get(k, "?") for k in ("data-claim", "data-framework", "data-field")
        )
        if shown in BOOLEAN_WORDS:
            before = _text_before(_block(a), a)
            if not QUESTION.search(before):
                problems.append(
                    f"{where}: {shown!r} stands alone, after {before[-30:]!r} "
                    "(say it in words, or let it answer a 是否…： question)"
                )
        # a literal is bracketed at both ends: a message quoted as code may start with one
        # ("[Recompute]: None of the inputs … !")
        elif (shown[:1], shown[-1:]) == ("{", "}") or (
            (shown[:1], shown[-1:]) == ("[", "]") and not NUMBER_LIST.match(shown)
        ):
            problems.append(f"{where}: a raw {'dict' if shown[0] == '{' else 'list'} "
                            f"in a sentence: {shown[:60]!r}")  # fmt: skip
    return problems


VALUE_HTML = re.compile(r'<a class="claim-value"[^>]*>(?P<shown>.*?)</a>', re.S)
CJK_OR_FULL_WIDTH = re.compile(f"[{CJK_RANGES}]")  # the rendering's own range


def _visible(html: str, start: int, step: int, count: int) -> str:
    """``count`` characters of text from ``start`` going ``step`` (+1 or -1), tags skipped."""
    out, i = [], start
    while 0 <= i < len(html) and len(out) < count:
        if html[i] == ("<" if step > 0 else ">"):
            i = html.find(">", i) + 1 if step > 0 else html.rfind("<", 0, i) - 1
            continue
        out.append(html[i])
        i += step
    return "".join(out if step > 0 else reversed(out))


def spaced_values(html: str) -> list[str]:
    """Every half-width space between a value that starts or ends with a Chinese character (or
    full-width punctuation) and the Chinese character beside it ("1.70 倍 和")."""
    cjk = CJK_OR_FULL_WIDTH.fullmatch
    body = html.split("<article", 1)[-1]
    problems = []
    for m in VALUE_HTML.finditer(body):
        shown = re.sub(r"<[^>]+>", "", m["shown"]).strip()
        if not shown:
            continue
        before, after = _visible(body, m.start() - 1, -1, 2), _visible(body, m.end(), 1, 2)
        if before[1:] == " " and cjk(before[:1]) and cjk(shown[0]):
            problems.append(f"a space before {shown[:20]!r}: {before!r}")
        if after[:1] == " " and cjk(after[1:]) and cjk(shown[-1]):
            problems.append(f"a space after {shown[-20:]!r}: {after!r}")
    return problems


# -- over the built site ------------------------------------------------------------------------


NESTED = re.compile(r"（[^（）\n]*（[^（）\n]*）[^（）\n]*）")


def nested_brackets(text: str) -> list[str]:
    """Full-width brackets inside full-width brackets in a page's visible text (Chinese
    typesetting rewrites the inner ones into the sentence, or uses a comma)."""
    return [m[0][:120] for m in NESTED.finditer(text)]


def zh_pages():
    return pages_of(lang="zh") or [None]


def _ids(pages):
    return [p.name if p else "no-site" for p in pages]


@pytest.fixture(scope="module")
def site():
    if not site_exists():
        pytest.fail(NO_SITE)


@pytest.mark.site
@pytest.mark.parametrize("page", zh_pages(), ids=_ids(zh_pages()))
def test_no_english_ui_string(site, page):
    problems = english_ui(page.file.read_text(encoding="utf-8"))
    assert not problems, f"{page.path}:\n  " + "\n  ".join(problems[:10])


@pytest.mark.site
@pytest.mark.parametrize("page", zh_pages(), ids=_ids(zh_pages()))
def test_meta_description_is_chinese(site, page):
    assert not meta_description(parse(page.file)), page.path


@pytest.mark.site
def test_value_titles_are_chinese(site):
    problems = [f"{p.path}: {x}" for p in pages_of(lang="zh") for x in value_titles(parse(p.file))]
    assert not problems, "\n".join(problems[:20]) + f"\n({len(problems)} in all)"


@pytest.mark.site
def test_no_raw_value_in_a_sentence(site):
    problems = [f"{p.path}: {x}" for p in pages_of(lang="zh") for x in raw_values(parse(p.file))]
    assert not problems, "\n".join(problems)


@pytest.mark.site
def test_no_space_between_a_value_and_chinese_text(site):
    problems = [f"{p.path}: {x}" for p in pages_of(lang="zh")
                for x in spaced_values(p.file.read_text(encoding="utf-8"))]  # fmt: skip
    assert not problems, "\n".join(problems[:20]) + f"\n({len(problems)} in all)"


@pytest.mark.site
def test_no_brackets_within_brackets(site):
    """In the prose of the zh articles and pages (the notebooks quote program output, and the
    verification page shows observed values verbatim)."""
    problems = []
    for page in pages_of(lang="zh"):
        if page.kind == "notebook" or page.key == "verification/":
            continue
        text = re.sub(r"<[^>]+>", "", page.file.read_text(encoding="utf-8"))
        problems += [f"{page.path}: {x}" for x in nested_brackets(text)]
    assert not problems, "\n".join(problems)


def test_nested_bracket_check_fails():
    assert nested_brackets("见下文（4 MiB（每个张量））。")
    assert nested_brackets("（对不需要梯度的张量（如输入数据）调用）")
    assert nested_brackets("（一）和（二）") == [] and nested_brackets("f(x（y）)") == []


# -- each check fails on a page made to break it -----------------------------------------------

PAGE = """<html><head>{head}</head><body><article class="md-content__inner">{body}</article>
</body></html>"""


def value(shown: str, field: str = "value.x", title: str = "观测值") -> str:
    return (f'<a class="claim-value" title="{title}" data-claim="c.x" data-framework="paddle" '
            f'data-field="{field}">{shown}</a>')  # fmt: skip


def test_english_ui_check_fails_on_copied():
    ok = '<span class="notice" hidden>已复制</span><button aria-label="复制"></button>'
    assert english_ui(PAGE.format(head="", body=ok)) == []
    assert english_ui(PAGE.format(head="", body='<span class="notice" hidden>Copied!</span>'))
    assert english_ui(PAGE.format(head="", body='<clipboard-copy aria-label="Copy to Clipboard">'))
    assert english_ui(PAGE.format(head="", body='<a title="Back to top">'))
    # a script's text is not shown to a reader; program output is quoted verbatim
    assert english_ui(PAGE.format(head="<script>var s='Copied!'</script>", body="")) == []
    assert (
        english_ui(PAGE.format(head="", body="<pre><code>since the last update()</code></pre>"))
        == []
    )


def test_meta_description_check_fails_on_english():
    zh = '<meta name="description" content="飞桨与 PyTorch 中的原位（Inplace）操作">'
    en = '<meta name="description" content="In-place operations and gradient accumulation">'
    assert meta_description(parse_text(PAGE.format(head=zh, body=""))) == []
    assert meta_description(parse_text(PAGE.format(head=en, body="")))
    assert meta_description(parse_text(PAGE.format(head="", body="")))


def test_value_title_check_fails_on_an_english_phrase():
    ok = value("不报错", title="断言 c.x · 飞桨 · CPU · paddle 3.3.1, AMD EPYC, glibc 2.36")
    bad = value("不报错", title="断言 c.x · 观测值：wrong gradient, no error")
    assert value_titles(parse_text(PAGE.format(head="", body=f"<p>{ok}</p>"))) == []
    assert value_titles(parse_text(PAGE.format(head="", body=f"<p>{bad}</p>")))


@pytest.mark.parametrize(
    "body",
    [
        f"<p>飞桨的回答是 {value('否')}，</p>",
        f"<p>窗口错位，且不报错（{value('是')}）</p>",
        f"<p>是否报错：飞桨 {value('否')}。结果（{value('是')}）</p>",  # the question is closed
        f"<p>（`is_inference()`：<code>{value('{no_grad: 否}')}</code>）</p>",
        f"<p>原位执行的语句：{value('<code>[x[0] = 5]</code>')}</p>",
        f"<p>没有警告（{value('<code>[]</code>')}）</p>",
        f"<p>窗口：{value('<code>[[4, 4, 2], [4, 4, 1]]</code>')}</p>",
    ],
)
def test_raw_value_check_fails(body):
    assert raw_values(parse_text(PAGE.format(head="", body=body))), body


@pytest.mark.parametrize(
    "body",
    [
        f"<p>（是否报错：{value('否')}）</p>",
        f"<p>（`d` 是否被记录：飞桨中为{value('否')}，PyTorch 中为{value('否')}）</p>",
        f"<table><tr><td>是否同一张量：{value('是')}</td></tr></table>",
        f"<p>梯度：{value('<code>[2.0, 4.0, 6.0]</code>')}，比值 {value('<code>[-0.5, 1e-06]</code>')}</p>",
        f"<p>日志写出一行：{value('<code>[Recompute]: None of the inputs need grad !</code>')}</p>",
        "<p>切片的 <code>is_leaf</code> 为 <code>False</code></p>",
        "<pre><code>print(True)</code></pre>",
    ],
)
def test_raw_value_check_accepts(body):
    assert raw_values(parse_text(PAGE.format(head="", body=body))) == []


def test_spaced_value_check_fails():
    tight = f"<p>分别是 {value('1.70 倍')}和 {value('2.96 倍')}（对照 {value('<code>1.01</code>')} 倍）</p>"
    assert spaced_values(PAGE.format(head="", body=tight)) == []
    assert spaced_values(PAGE.format(head="", body=f"<p>分别是 {value('1.70 倍')} 和</p>"))
    assert spaced_values(PAGE.format(head="", body=f"<p>调用 {value('报错')}</p>"))
    assert spaced_values(PAGE.format(head="", body=f"<p>（{value('10.02 MiB）')} 完全相同</p>"))
    # Latin or code on either side keeps its space (Paddle's guides space them)
    assert spaced_values(PAGE.format(head="", body=f"<p>为 {value('<code>3</code>')} 和</p>")) == []
    assert spaced_values(PAGE.format(head="", body=f"<p>a {value('报错')} b</p>")) == []
