"""The search hooks' pieces (verified/search_hooks.py), without a build: the split of the
merged index, the base each language's pages get, which code blocks stay out of the index,
and the stop words of the separator. tests/test_built_site.py checks the built site."""

from __future__ import annotations

import json
import re

import pytest

from verified import search_hooks as sh

MERGED = {
    "config": {"lang": ["en", "zh"], "separator": "[\\s]+", "pipeline": ["stopWordFilter"]},
    "docs": [
        {"location": "", "title": "Home", "text": "a"},
        {"location": "errors/#leaf", "title": "Leaf", "text": "b"},
        {"location": "zh/", "title": "首页", "text": "c"},
        {"location": "zh/errors/#leaf", "title": "叶子", "text": "d"},
        {"location": "zhong/", "title": "not Chinese: only the prefix zh/ counts", "text": "e"},
    ],
}


def test_the_merged_index_splits_by_language():
    split = sh.split_index(MERGED, "en", ["en", "zh"])
    assert [d["location"] for d in split["en"]["docs"]] == ["", "errors/#leaf", "zhong/"]
    assert [d["location"] for d in split["zh"]["docs"]] == ["", "errors/#leaf"]
    assert [d["title"] for d in split["zh"]["docs"]] == ["首页", "叶子"]
    assert split["en"]["config"]["lang"] == ["en"] and split["zh"]["config"]["lang"] == ["zh"]
    assert split["zh"]["config"]["separator"] == MERGED["config"]["separator"]
    assert MERGED["docs"][2]["location"] == "zh/", "the merged index was changed"


def test_a_language_lunr_lacks_keeps_the_configured_languages():
    split = sh.split_index(MERGED, "en", ["en", "xx"])
    assert split["xx"]["config"]["lang"] == ["en", "zh"]


@pytest.mark.parametrize(
    ("base", "lang", "moved"),
    [(".", "zh", "zh/"), ("..", "zh", "../zh/"), ("../..", "zh", "../../zh/")],
)
def test_pages_search_from_their_language_root(base, lang, moved):
    """The trailing slash matters: the browser resolves search/search_index.json against it."""
    assert sh.language_base(base, lang) == moved
    page = (
        '<head><script id="__config" type="application/json">'
        + json.dumps({"base": base, "features": ["a"], "search": "w.js"})
        + "</script></head>"
    )
    rebased = sh.with_base(page, lang)
    config = json.loads(sh.CONFIG_SCRIPT.search(rebased)[2])
    assert config == {"base": moved, "features": ["a"], "search": "w.js"}


CODE = (
    '<div class="highlight"><pre><code>import torch</code></pre></div>'
    '<div class="language-python highlight"><pre><code>x</code></pre></div>'
    '<div class="claim-message highlight"><span class="filename">Message</span></div>'
    '<div class="claim-output highlight"><span class="filename">Output</span></div>'
    '<div class="highlight-ipynb"><pre>notebook cell, not a code block of a page</pre></div>'
)


def test_code_blocks_stay_out_of_the_index():
    marked = sh.exclude_code_blocks(CODE)
    assert marked.count('data-search-exclude="code"') == 4
    assert '<div class="highlight-ipynb">' in marked


def test_messages_and_outputs_stay_where_the_page_asks():
    marked = sh.exclude_code_blocks(CODE, keep_printed=True)
    assert marked.count('data-search-exclude="code"') == 2
    assert '<div class="claim-message highlight"><span' in marked
    assert '<div class="claim-output highlight"><span' in marked


def test_stop_words_separate_as_whole_words_in_any_case():
    separator = re.compile(r"[\s]+|" + sh.stop_word_separator(["in", "to", "a"]))
    words = [w for w in separator.split("In a TO to_static in-place inference_mode A.grad") if w]
    assert words == ["to_static", "-place", "inference_mode", ".grad"]
    assert sh.stop_word_separator(["to", "in"]) == r"\b(?:[iI][nN]|[tT][oO])\b"
    assert {"in", "to", "the", "a", "is"} <= set(sh.STOP_WORDS)


@pytest.mark.parametrize(
    ("material", "ours"),
    [
        (
            "assets/javascripts/workers/search.a7633da7.min.js",
            "assets/javascripts/workers/search-as-pasted.js?material=search.a7633da7.min.js",
        ),
        (
            "../../assets/javascripts/workers/search.0f1e.min.js",
            "../../assets/javascripts/workers/search-as-pasted.js?material=search.0f1e.min.js",
        ),
        ("search.ab12.min.js", "search-as-pasted.js?material=search.ab12.min.js"),
    ],
)
def test_queries_go_through_the_paste_worker(material, ours):
    """Every page's search worker reads the query as pasted, then loads Material's, named."""
    assert sh.paste_worker_url(material) == ours
    page = (
        '<script id="__config" type="application/json">'
        + json.dumps({"base": ".", "search": material})
        + "</script>"
    )
    swapped = sh.with_paste_worker(page)
    assert json.loads(sh.CONFIG_SCRIPT.search(swapped)[2]) == {"base": ".", "search": ours}
    assert sh.with_paste_worker(swapped) == swapped, "a second pass changed the worker again"


def test_a_worker_that_is_not_materials_is_refused():
    with pytest.raises(ValueError, match="not Material's search worker"):
        sh.paste_worker_url("assets/javascripts/workers/other.js")
