"""The MkDocs hooks that choose a page and refuse a build, called as MkDocs calls them, on stub
pages (no site build): the casebook hook (which page it renders, in which language, and the
error that names the page), the old-anchor hook (the map it writes into a section's overview,
the page it refuses), the claims hook's page paths and pass-through, the search hooks (the
worker and base each page gets, the blocks left out of the index) and the traceback box's
tags and assets (``write_assets``, with the reports, ``build`` and ``write`` stood in).

The rendering behind them is tested where it lives (tests/test_casebook_page.py,
tests/test_show_failed.py, tests/test_render.py); the built site is checked by the site tests."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from claimkit import ascii_locale
from mkdocs.exceptions import PluginError

import verified.anchor_hooks as anchors
import verified.casebook_hooks as casebook_hooks
import verified.mkdocs_hooks as hooks
import verified.search_hooks as search_hooks
import verified.traceback_hooks as traceback_hooks
from verified import casebook


def stub_page(src_uri: str, locale: str | None, url: str = ""):
    return SimpleNamespace(file=SimpleNamespace(src_uri=src_uri, locale=locale, url=url), url=url)


# -- the casebook hook ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src_uri", "locale", "lang"),
    [("casebook.md", "en", "en"), ("zh/casebook.md", "zh", "zh"), ("casebook.md", None, "en")],
)
def test_the_casebook_page_is_rendered_in_its_language(monkeypatch, src_uri, locale, lang):
    calls = []
    monkeypatch.setattr(casebook, "render", lambda md, lang: calls.append(lang) or f"[{lang}] {md}")
    assert casebook_hooks.on_page_markdown("text", stub_page(src_uri, locale), {}, None) == (
        f"[{lang}] text"
    )
    assert calls == [lang]


def test_a_casebook_page_without_a_locale_is_english(monkeypatch):
    """A build without the i18n plugin: its files have no ``locale`` attribute at all."""
    monkeypatch.setattr(casebook, "render", lambda md, lang: f"[{lang}] {md}")
    page = SimpleNamespace(file=SimpleNamespace(src_uri="casebook.md", url=""), url="")
    assert casebook_hooks.on_page_markdown("text", page, {}, None) == "[en] text"


@pytest.mark.parametrize(
    ("src_uri", "locale"),
    [
        ("inplace/casebook.md", "en"),  # a page of that name elsewhere
        ("zh/inplace/casebook.md", "zh"),
        ("en/casebook.md", "zh"),  # a folder that is not the page's language
        ("casebook.markdown", "en"),
        ("index.md", "en"),
    ],
)
def test_other_pages_are_left_to_the_claims_hook(monkeypatch, src_uri, locale):
    monkeypatch.setattr(casebook, "render", lambda md, lang: pytest.fail("rendered " + src_uri))
    assert casebook_hooks.on_page_markdown(
        "{{ casebook }}", stub_page(src_uri, locale), {}, None
    ) == ("{{ casebook }}")


def test_a_casebook_defect_fails_the_build_naming_the_page(monkeypatch):
    def broken(markdown, lang):
        raise casebook.CasebookError("casebook/reports.toml:\nrow 3: no section #gone")

    monkeypatch.setattr(casebook, "render", broken)
    with pytest.raises(PluginError) as raised:
        casebook_hooks.on_page_markdown("x", stub_page("zh/casebook.md", "zh"), {}, None)
    assert str(raised.value) == (
        "docs/zh/casebook.md: casebook/reports.toml:\nrow 3: no section #gone"
    )


def test_the_casebook_hook_runs_before_the_claims_hook():
    assert casebook_hooks.on_page_markdown.mkdocs_priority == 50
    assert getattr(hooks.on_page_markdown, "mkdocs_priority", 0) == 0


# -- the old-anchor hook ----------------------------------------------------------------------

OLD = """
[demo.en]
rule-1 = "leaf.md#rule-1-leaf"
overview-part = "index.md"
overview-heading = "index.md#short"
whole-page = "views.md"

[demo.zh]
rule-1 = "leaf.md#规则-1"
"""


class Files:
    """What redirect_urls asks of MkDocs' files: the file of a source path, or None."""

    def __init__(self, urls: dict[str, str]) -> None:
        self.urls = urls

    def get_file_from_path(self, src: str):
        url = self.urls.get(src)
        return None if url is None else SimpleNamespace(url=url)


FILES = Files(
    {
        "en/demo/index.md": "demo/",
        "en/demo/leaf.md": "demo/leaf/",
        "en/demo/views.md": "demo/views/",
        "zh/demo/index.md": "zh/demo/",
        "zh/demo/leaf.md": "zh/demo/leaf/",
    }
)


@pytest.fixture
def old_map(tmp_path, monkeypatch):
    path = tmp_path / "old-anchors.toml"
    path.write_text(OLD, encoding="utf-8")
    monkeypatch.setattr(anchors, "MAP", path)
    return path


def test_the_old_map_is_read_from_its_file_or_empty_without_one(tmp_path, old_map):
    assert anchors.old_anchors()["demo"]["zh"] == {"rule-1": "leaf.md#规则-1"}
    assert anchors.old_anchors(tmp_path / "none.toml") == {}
    with ascii_locale():  # its Chinese anchors are read as UTF-8 whatever the locale
        assert anchors.old_anchors()["demo"]["zh"] == {"rule-1": "leaf.md#规则-1"}


@pytest.mark.parametrize(
    ("src_uri", "found"),
    [
        ("en/demo/index.md", ("en", "demo")),
        ("zh/demo/index.md", ("zh", "demo")),
        ("en/demo/leaf.md", None),
        ("en/index.md", None),
        ("en/demo/part/index.md", None),
    ],
)
def test_only_a_sections_overview_gets_the_map(src_uri, found):
    assert anchors._overview(src_uri) == found


def test_old_ids_lead_to_their_sub_page_relative_to_the_overview(old_map):
    assert anchors.redirect_urls("en", "demo", "demo/", FILES) == {
        "rule-1": "leaf/#rule-1-leaf",
        "overview-heading": "./#short",
        "whole-page": "views/",
    }  # "overview-part" is the overview itself: nothing to follow
    assert anchors.redirect_urls("zh", "demo", "zh/demo/", FILES) == {"rule-1": "leaf/#规则-1"}
    zh = anchors.on_page_content("", stub_page("zh/demo/index.md", "zh", "zh/demo/"), {}, FILES)
    assert '{"rule-1": "leaf/#规则-1"}' in zh  # the characters themselves, not \\u escapes
    assert anchors.redirect_urls("en", "other", "other/", FILES) == {}


def test_a_target_page_that_does_not_exist_fails_the_build(old_map):
    missing = Files({k: v for k, v in FILES.urls.items() if k != "en/demo/views.md"})
    with pytest.raises(PluginError) as raised:
        anchors.redirect_urls("en", "demo", "demo/", missing)
    assert str(raised.value) == (
        "old-anchors.toml: [demo.en] 'whole-page' -> 'views.md': no page en/demo/views.md"
    )


def test_the_overview_carries_the_map_and_the_script_that_follows_it(old_map):
    page = stub_page("en/demo/index.md", "en", url="demo/")
    html = anchors.on_page_content("<h1>Demo</h1>", page, {}, FILES)
    head, data, script = html.split("\n", 2)
    assert head == "<h1>Demo</h1>"
    prefix = '<script type="application/json" id="old-anchors">'
    assert data.startswith(prefix) and data.endswith("</script>")
    assert json.loads(data[len(prefix) : -len("</script>")]) == anchors.redirect_urls(
        "en", "demo", "demo/", FILES
    )
    assert script == anchors.SCRIPT + "\n"
    assert 'getElementById("old-anchors")' in anchors.SCRIPT and anchors.SCRIPT_ID == "old-anchors"


def test_no_map_where_nothing_is_to_be_followed(old_map, tmp_path):
    leaf = stub_page("en/demo/leaf.md", "en", url="demo/leaf/")
    assert anchors.on_page_content("<p>x</p>", leaf, {}, FILES) == "<p>x</p>"
    other = stub_page("en/other/index.md", "en", url="other/")
    assert anchors.on_page_content("<p>x</p>", other, {}, FILES) == "<p>x</p>"


def test_the_map_cannot_close_its_script_element(old_map, tmp_path, monkeypatch):
    path = tmp_path / "closing.toml"
    path.write_text('[demo.en]\n"</script><b>" = "leaf.md"\n', encoding="utf-8")
    monkeypatch.setattr(anchors, "MAP", path)
    html = anchors.on_page_content("", stub_page("en/demo/index.md", "en", "demo/"), {}, FILES)
    data = html.split("\n")[1]
    assert "</script><b>" not in data and "\\u003c/script>\\u003cb>" in data
    assert data.count("</script>") == 1


# -- the claims hook --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("src_uri", "lang", "where"),
    [
        ("inplace/leaf-tensors.md", "en", "en/inplace/leaf-tensors.md"),
        ("zh/inplace/leaf-tensors.md", "zh", "zh/inplace/leaf-tensors.md"),
        ("en/index.md", "en", "en/index.md"),
        ("index.md", "zh", "zh/index.md"),
        ("zh", "zh", "zh/zh"),  # a name without a folder stays whole
    ],
)
def test_a_pages_place_below_its_language(src_uri, lang, where):
    assert hooks.page_path(src_uri, lang) == where


def test_a_notebook_page_passes_through_unrendered():
    text = "{{ inplace.leaf-error | torch | output }}"
    page = stub_page("inplace/notebooks/x.ipynb", "en")
    assert hooks.on_page_markdown(text, page, {}, None) is text


def test_the_claims_hook_renders_for_the_pages_place_and_language(monkeypatch):
    from verified.pages import site

    seen = []

    def render(markdown, lang, where):
        seen.append((lang, where))
        return markdown.replace("{{ x }}", "值")

    monkeypatch.setattr(site, "render", render)
    monkeypatch.setattr(hooks, "translate_page", lambda text, lang, where: f"{text}|{lang}|{where}")
    zh = hooks.on_page_markdown("第一行\n{{ x }}", stub_page("zh/a/b.md", "zh"), {}, None)
    assert zh == "第一行值|zh|zh/a/b.md"  # a soft break between Chinese characters is joined
    en = hooks.on_page_markdown("line\n{{ x }}", stub_page("a/b.md", None), {}, None)
    assert en == "line\n值|en|en/a/b.md"  # English keeps its line breaks; no locale is English
    bare = SimpleNamespace(file=SimpleNamespace(src_uri="a/c.md"))  # without the i18n plugin
    assert hooks.on_page_markdown("{{ x }}", bare, {}, None) == "值|en|en/a/c.md"
    assert seen == [("zh", "zh/a/b.md"), ("en", "en/a/b.md"), ("en", "en/a/c.md")]


def test_a_report_error_fails_the_build_as_a_plugin_error(monkeypatch):
    from verified.pages import site
    from verified.report import ReportError

    def render(markdown, lang, where):
        raise ReportError("build/claims.json is missing: run the claims first")

    monkeypatch.setattr(site, "render", render)
    with pytest.raises(PluginError, match=r"^build/claims.json is missing: run the claims first$"):
        hooks.on_page_markdown("x", stub_page("a.md", "en"), {}, None)


def test_the_build_state_is_reset_at_startup_and_before_each_build(monkeypatch):
    from verified.pages import site

    calls = []
    monkeypatch.setattr(site, "reset", lambda: calls.append("reset"))
    monkeypatch.setattr(hooks, "draw_figures", lambda config: calls.append(("figures", config)))
    hooks.on_startup("serve", False)
    hooks.on_pre_build({"site": 1})
    assert calls == ["reset", "reset", ("figures", {"site": 1})]


def test_the_failure_summary_goes_to_stderr_only_when_there_is_one(monkeypatch, capsys):
    from verified.pages import site

    monkeypatch.setattr(site, "failed_summary", lambda: "")
    hooks.on_post_build({})
    assert capsys.readouterr() == ("", "")
    monkeypatch.setattr(site, "failed_summary", lambda: "2 claims failed")
    hooks.on_post_build({})
    assert capsys.readouterr() == ("", "2 claims failed\n")


def test_the_hooks_find_the_project_when_loaded_by_path():
    assert hooks.ROOT == casebook_hooks.ROOT == Path(__file__).resolve().parent.parent


# -- the search hooks -------------------------------------------------------------------------


class I18n:
    """The mkdocs-static-i18n plugin as the hooks read it."""

    def __init__(self, default: str = "en", langs=("en", "zh"), building: bool = False):
        self.default_language, self.build_languages, self.building = default, list(langs), building


def config_with(i18n=None):
    return SimpleNamespace(plugins={"i18n": i18n} if i18n else {})


def page_html(app: dict, extra: str = "") -> str:
    return (
        '<html><head><script id="__config" type="application/json">'
        + json.dumps(app)
        + "</script>"
        + extra
        + "</head><body><p>x</p></body></html>"
    )


def app_of(html: str, index: int = 0) -> dict:
    found = search_hooks.CONFIG_SCRIPT.findall(html)
    return json.loads(found[index][1])


@pytest.mark.parametrize(
    ("config", "languages"),
    [(config_with(), ("", [])), (config_with(I18n("zh", ("zh", "en"))), ("zh", ["zh", "en"]))],
)
def test_the_search_hooks_read_the_languages_from_the_i18n_plugin(config, languages):
    assert search_hooks.languages(config) == languages


WORKER = "assets/javascripts/workers/search.0123abcd.min.js"


def test_each_page_searches_with_the_paste_worker_and_from_its_languages_root():
    app = {"base": "../..", "search": f"../../{WORKER}"}
    ours = "../../assets/javascripts/workers/search-as-pasted.js?material=search.0123abcd.min.js"
    config = config_with(I18n())
    english = search_hooks.on_post_page(page_html(app), stub_page("a/b.md", "en"), config)
    assert app_of(english) == {"base": "../..", "search": ours}
    chinese = search_hooks.on_post_page(page_html(app), stub_page("zh/a/b.md", "zh"), config)
    assert app_of(chinese) == {"base": "../../zh/", "search": ours}
    unnamed = search_hooks.on_post_page(page_html(app), stub_page("a/b.md", None), config)
    assert app_of(unnamed)["base"] == "../.."  # no locale: the default language
    bare = SimpleNamespace(file=SimpleNamespace(src_uri="a/b.md"), url="a/b/")  # no i18n attribute
    assert app_of(search_hooks.on_post_page(page_html(app), bare, config))["base"] == "../.."
    alone = search_hooks.on_post_page(page_html(app), stub_page("zh/a/b.md", "zh"), config_with())
    assert app_of(alone) == {"base": "../..", "search": ours}  # no i18n plugin: one language
    twice = search_hooks.on_post_page(chinese, stub_page("zh/a/b.md", "zh"), config_with())
    assert app_of(twice)["search"] == ours  # a page already on it is left as it is


def test_only_the_first_config_script_is_rewritten():
    app = {"base": ".", "search": WORKER}
    second = '<script id="__config" type="application/json">{"base": "."}</script>'
    html = search_hooks.with_base(page_html(app, second), "zh")
    assert app_of(html, 0)["base"] == "zh/" and app_of(html, 1) == {"base": "."}
    assert html.endswith("</head><body><p>x</p></body></html>")


@pytest.mark.parametrize(
    ("meta", "kept"),
    [({"search_outputs": True}, True), ({"search_outputs": "true"}, False), ({}, False)],
)
def test_what_a_run_printed_is_searchable_only_where_the_page_says_so(meta, kept):
    block = '<div class="claim-output highlight"><pre>ValueError</pre></div>'
    page = SimpleNamespace(meta=meta)
    shown = search_hooks.on_page_content(block, page, {}, None)
    excluded = '<div class="claim-output highlight" data-search-exclude="code"><pre>ValueError'
    assert shown == (block if kept else excluded + "</pre></div>")


@pytest.mark.parametrize(
    ("html", "marked"),
    [
        ('<div class="highlight"><pre>x</pre></div>', True),
        ('<div class="language-python highlight"><pre>x</pre></div>', True),
        ('<div class="highlight hl-lines"><pre>x</pre></div>', True),
        ('<div class="nohighlight"><pre>x</pre></div>', False),
        ('<div class="highlighted"><pre>x</pre></div>', False),
    ],
)
def test_which_blocks_are_code_blocks(html, marked):
    tag_end = html.index(">")
    expected = html[:tag_end] + ' data-search-exclude="code"' + html[tag_end:] if marked else html
    assert search_hooks.exclude_code_blocks(html) == expected


def test_the_stop_word_separator_longest_first_and_escaped():
    assert search_hooks.stop_word_separator(["to", "the", "a-b", "it", "to"]) == (
        r"\b(?:[aA]\-[bB]|[tT][hH][eE]|[iI][tT]|[tT][oO])\b"
    )


# -- the traceback box's hooks ----------------------------------------------------------------


def test_every_page_gets_the_box_once_in_its_language():
    from verified import tracebacks

    config = config_with(I18n())
    html = "<html><body><p>x</p></body></html><!-- </body> -->"
    zh = traceback_hooks.on_post_page(html, stub_page("zh/a/b.md", "zh", "zh/a/b/"), config)
    tags_zh = traceback_hooks.tags("zh/a/b/", "zh", "en")
    assert zh == html.replace("</body>", tags_zh + "</body>", 1)
    assert f'data-traceback-header="{tracebacks.WORDS["zh"]["header"]}"' in tags_zh
    assert 'src="../../../assets/javascripts/traceback.js"' in tags_zh
    default = traceback_hooks.on_post_page(html, stub_page("a.md", None, ""), config_with())
    assert default == html.replace("</body>", traceback_hooks.tags("", "en", "en") + "</body>", 1)
    bare = SimpleNamespace(file=SimpleNamespace(src_uri="a.md"), url="")  # no i18n attribute
    assert traceback_hooks.on_post_page(html, bare, config) == default
    assert 'href="assets/stylesheets/traceback.css"' in traceback_hooks.tags("", "en", "en")


def test_a_language_without_words_gets_the_default_languages():
    from verified import tracebacks

    shown = traceback_hooks.tags("fr/", "fr", "zh")
    assert f'data-traceback-header="{tracebacks.WORDS["zh"]["header"]}"' in shown


def test_the_box_reads_the_languages_from_the_i18n_plugin():
    assert traceback_hooks._languages(config_with()) == ("en", ["en"])
    assert traceback_hooks._languages(config_with(I18n("zh", ("zh", "en")))) == ("zh", ["zh", "en"])


class SiteConfig(dict):
    """MkDocs's config as ``write_assets`` reads it: keys for the folders, ``plugins`` an
    attribute."""

    def __init__(self, tmp_path: Path, i18n=None):
        super().__init__(docs_dir=str(tmp_path / "docs"), site_dir=str(tmp_path / "site"))
        self.plugins = {"i18n": i18n} if i18n is not None else {}


class NoBuildingFlag:
    """An i18n plugin with no ``building`` attribute at all (not mid-build)."""

    default_language, build_languages = "zh", ["zh", "en"]


@pytest.fixture
def box(monkeypatch):
    """``build`` and ``write`` recorded: ``built`` the arguments of each build, ``written`` a
    copy of each asset with the folder it went to."""
    from verified import tracebacks
    from verified.pages import site

    calls = SimpleNamespace(built=[], written=[])
    report = object()
    monkeypatch.setattr(site, "report", lambda: report)

    def build(reports, docs, langs):
        calls.built.append((reports, docs, langs))
        return {lang: {"lang": lang} for lang in langs}

    monkeypatch.setattr(tracebacks, "build", build)
    monkeypatch.setattr(
        tracebacks, "write", lambda asset, root: calls.written.append((asset, root))
    )
    calls.report = report
    return calls


def test_no_assets_during_a_nested_build_of_one_language(tmp_path, box):
    """mkdocs-static-i18n builds each language in a nested build (``building`` true): the last,
    outer pass writes the assets, so a nested pass neither builds nor writes."""
    traceback_hooks.write_assets(SiteConfig(tmp_path, I18n("en", ("en", "zh"), building=True)))
    assert box.built == box.written == []


@pytest.mark.parametrize(
    ("i18n", "default", "langs"),
    [
        (None, "en", ("en",)),  # a build without the i18n plugin
        (I18n("zh", ("zh", "en", "fr")), "zh", ("zh", "en", "fr")),  # the outer pass
        (NoBuildingFlag(), "zh", ("zh", "en")),
    ],
)
def test_each_language_gets_its_asset_in_its_root(tmp_path, box, i18n, default, langs):
    """One build from the report, the docs folder and the languages (a tuple); each asset goes
    to the site's root for the default language and to ``site/<lang>`` for the others."""
    traceback_hooks.write_assets(SiteConfig(tmp_path, i18n))
    assert len(box.built) == 1
    reports, docs, built_langs = box.built[0]
    assert reports is box.report
    assert docs == tmp_path / "docs" and isinstance(docs, Path)
    assert built_langs == langs and type(built_langs) is tuple
    site_dir = tmp_path / "site"
    assert box.written == [
        ({"lang": lang, "casebook": None}, site_dir if lang == default else site_dir / lang)
        for lang in langs
    ]
    assert all(isinstance(root, Path) for _, root in box.written)


def test_the_casebook_link_only_where_its_page_exists(tmp_path, box):
    """``casebook/`` where ``docs/<lang>/casebook.md`` is a file; None where it is missing or a
    folder, or where only another language has it."""
    docs = tmp_path / "docs"
    (docs / "zh").mkdir(parents=True)
    (docs / "zh" / traceback_hooks.CASEBOOK).write_text("{{ casebook }}", "utf-8")
    (docs / "fr" / traceback_hooks.CASEBOOK).mkdir(parents=True)  # a folder, not the page
    (docs / "casebook.md").write_text("not below a language", "utf-8")
    traceback_hooks.write_assets(SiteConfig(tmp_path, I18n("en", ("en", "zh", "fr", "de"))))
    assert {asset["lang"]: asset["casebook"] for asset, _ in box.written} == {
        "en": None,
        "zh": "casebook/",
        "fr": None,
        "de": None,
    }
    assert traceback_hooks.CASEBOOK == "casebook.md"


def test_the_assets_are_written_as_files_below_each_root(tmp_path, monkeypatch):
    """With the real ``write``: ``assets/tracebacks.json`` below the site's root and
    ``site/zh``, each holding its language's asset."""
    from verified import tracebacks
    from verified.pages import site

    monkeypatch.setattr(site, "report", lambda: None)
    monkeypatch.setattr(tracebacks, "build", lambda reports, docs, langs: {"en": {}, "zh": {}})
    (tmp_path / "docs" / "en").mkdir(parents=True)
    (tmp_path / "docs" / "en" / "casebook.md").write_text("x", "utf-8")
    traceback_hooks.write_assets(SiteConfig(tmp_path, I18n("en", ("en", "zh"))))
    site_dir = tmp_path / "site"
    assert json.loads((site_dir / tracebacks.ASSET).read_text("utf-8")) == {"casebook": "casebook/"}
    assert json.loads((site_dir / "zh" / tracebacks.ASSET).read_text("utf-8")) == {"casebook": None}
    assert sorted(p.relative_to(site_dir).as_posix() for p in site_dir.rglob("*.json")) == [
        "assets/tracebacks.json",
        "zh/assets/tracebacks.json",
    ]


@pytest.mark.parametrize("where", ["report", "build"])
@pytest.mark.parametrize("kind", ["TracebackError", "ReportError"])
def test_a_box_defect_fails_the_build_with_its_message(tmp_path, monkeypatch, box, where, kind):
    """A TracebackError or ReportError, from reading the reports or building the assets, is a
    PluginError "traceback box: <error>", without the original chained; nothing is written."""
    from verified import tracebacks
    from verified.pages import site
    from verified.report import ReportError

    error = {"TracebackError": tracebacks.TracebackError, "ReportError": ReportError}[kind]

    def broken(*args):
        raise error("docs/zh/errors.md: no entry #gone")

    monkeypatch.setattr(site if where == "report" else tracebacks, where, broken)
    with pytest.raises(PluginError) as raised:
        traceback_hooks.write_assets(SiteConfig(tmp_path, I18n()))
    assert str(raised.value) == "traceback box: docs/zh/errors.md: no entry #gone"
    assert raised.value.__cause__ is None
    assert raised.value.__suppress_context__ is True
    assert box.written == []


def test_other_errors_are_not_turned_into_plugin_errors(tmp_path, monkeypatch, box):
    from verified import tracebacks

    def broken(*args):
        raise ValueError("a bug")

    monkeypatch.setattr(tracebacks, "build", broken)
    with pytest.raises(ValueError, match="^a bug$"):
        traceback_hooks.write_assets(SiteConfig(tmp_path, I18n()))


def test_the_post_build_hook_writes_the_assets(monkeypatch):
    """The decorated hook runs after mkdocs-static-i18n (priority -200) and hands its config to
    ``write_assets``."""
    calls = []
    monkeypatch.setattr(traceback_hooks, "write_assets", calls.append)
    config = SiteConfig(Path("unused"))
    assert traceback_hooks.on_post_build(config) is None
    assert calls == [config]
    assert traceback_hooks.on_post_build.mkdocs_priority == -200
