"""The search hooks' pieces (verified/search_hooks.py), without a build: the split of the
merged index, the base each language's pages get, which code blocks stay out of the index,
the stop words of the separator, and the two steps the hooks run on a build (the separator
extended, the written index split), on stand-ins for MkDocs' configuration.
tests/test_built_site.py checks the built site."""

from __future__ import annotations

import json
import re
from types import SimpleNamespace

import pytest
from claimkit import ascii_locale

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


# -- the steps the hooks run on a build --------------------------------------------------------


class Options(dict):
    """A configuration as MkDocs hands it to a hook: a mapping whose keys read (and are set) as
    attributes too."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __setattr__(self, name, value):
        self[name] = value


SEPARATOR = "[\\s\\-]+"
STOP_WORDS_SEPARATOR = sh.stop_word_separator(sh.STOP_WORDS)


def search_config(name: str = "material/search", **options):
    """A site configuration whose search plugin, named ``name``, has ``options``."""
    return SimpleNamespace(plugins={name: SimpleNamespace(config=Options(options))})


@pytest.mark.parametrize("name", ["material/search", "search"])
def test_the_stop_words_join_the_search_separator_once(name):
    """Either name of Material's search plugin; on_config runs again for each language, and the
    second pass leaves the separator as the first made it."""
    config = search_config(name, separator=SEPARATOR, lang=["en"])
    assert sh.add_stop_words(config) is config
    extended = f"{SEPARATOR}|{STOP_WORDS_SEPARATOR}"
    assert config.plugins[name].config == {"separator": extended, "lang": ["en"]}
    assert sh.add_stop_words(config) is config
    assert config.plugins[name].config.separator == extended


def test_a_site_without_search_or_its_separator_keeps_its_configuration():
    """No search plugin (another plugin is not taken for it), or one whose separator is unset or
    empty: nothing is added, not even a separator made of the stop words alone."""
    other = SimpleNamespace(plugins={"i18n": SimpleNamespace(config=Options(separator="x"))})
    assert sh.add_stop_words(other) is other
    assert other.plugins["i18n"].config == {"separator": "x"}
    for options in ({}, {"separator": ""}, {"separator": None}):
        config = search_config(**options)
        assert sh.add_stop_words(config) is config
        assert config.plugins["material/search"].config == options


def test_the_config_hook_adds_the_stop_words():
    config = search_config(separator=SEPARATOR)
    assert sh.on_config(config) is config
    assert config.plugins["material/search"].config.separator.endswith(STOP_WORDS_SEPARATOR)


WRITTEN = {
    "config": {"lang": ["en", "zh"], "separator": "[\\s]+"},
    "docs": [
        {"location": "", "title": "Home", "text": "a"},
        {"location": "zh/errors/#leaf", "title": "叶子", "text": "“引号” d"},
    ],
}


def site_config(site_dir, i18n) -> Options:
    return Options(site_dir=str(site_dir), plugins={"i18n": i18n} if i18n else {})


def write_merged(site_dir) -> None:
    merged = site_dir / sh.INDEX
    merged.parent.mkdir(parents=True)
    merged.write_text(json.dumps(WRITTEN, ensure_ascii=False), encoding="utf-8")  # 叶子 as is


def compact(index: dict) -> bytes:
    """An index as the split writes it: UTF-8, no escapes for non-ASCII, no spaces."""
    return json.dumps(index, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


@pytest.mark.parametrize(
    "i18n",
    [
        SimpleNamespace(default_language="en", build_languages=("en", "zh")),  # no ``building``
        SimpleNamespace(default_language="en", build_languages=("en", "zh"), building=False),
    ],
)
def test_the_written_index_splits_into_one_file_per_language(tmp_path, i18n):
    """The default language's index replaces the merged one; each other language's goes below
    its folder, which is made. Compact UTF-8 JSON, read and written as UTF-8 whatever the
    locale."""
    write_merged(tmp_path)
    with ascii_locale():
        assert sh.split_written_index(site_config(tmp_path, i18n)) is None
    english = {
        "config": {"lang": ["en"], "separator": "[\\s]+"},
        "docs": [{"location": "", "title": "Home", "text": "a"}],
    }
    chinese = {
        "config": {"lang": ["zh"], "separator": "[\\s]+"},
        "docs": [{"location": "errors/#leaf", "title": "叶子", "text": "“引号” d"}],
    }
    assert (tmp_path / "search" / "search_index.json").read_bytes() == compact(english)
    written = (tmp_path / "zh" / "search" / "search_index.json").read_bytes()
    assert written == compact(chinese)
    assert '"title":"叶子"' in written.decode("utf-8")
    files = sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file())
    assert files == ["search/search_index.json", "zh/search/search_index.json"]


def test_a_site_in_one_language_keeps_its_merged_index(tmp_path):
    """Without the i18n plugin there is nothing to split."""
    write_merged(tmp_path)
    sh.split_written_index(site_config(tmp_path, None))
    assert json.loads((tmp_path / sh.INDEX).read_text(encoding="utf-8")) == WRITTEN
    assert not (tmp_path / "zh").exists()


def test_a_nested_build_of_one_language_leaves_the_index_to_the_last_pass(tmp_path):
    """mkdocs-static-i18n builds each language inside the outer build (``building``); only the
    outer build's post_build has every language's entries."""
    write_merged(tmp_path)
    i18n = SimpleNamespace(default_language="en", build_languages=["en", "zh"], building=True)
    sh.split_written_index(site_config(tmp_path, i18n))
    assert json.loads((tmp_path / sh.INDEX).read_text(encoding="utf-8")) == WRITTEN
    assert not (tmp_path / "zh").exists()


def test_a_site_without_a_written_index_is_left_as_it_is(tmp_path):
    """Search disabled: no index to split, and none made."""
    i18n = SimpleNamespace(default_language="en", build_languages=["en", "zh"])
    sh.split_written_index(site_config(tmp_path, i18n))
    assert list(tmp_path.iterdir()) == []


def test_the_post_build_hook_splits_the_written_index(tmp_path):
    write_merged(tmp_path)
    i18n = SimpleNamespace(default_language="en", build_languages=["en", "zh"])
    assert sh.on_post_build(site_config(tmp_path, i18n)) is None
    assert (tmp_path / "zh" / sh.INDEX).is_file()
