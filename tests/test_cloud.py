"""Notebooks that run in the cloud: the install cell every notebook starts with
(verified/notebooks/text.py) and the "Open in Colab" / "Open in SageMaker Studio Lab" links
(verified/notebook_hooks.py), offline. The install cell in a fresh virtualenv without the
framework: tests/e2e/test_install_cell.py; the links on the built pages: the site test below.
"""

from __future__ import annotations

import contextlib
import importlib.metadata
import importlib.util
import io
import re
import subprocess
import tomllib
from types import SimpleNamespace
from urllib.parse import urlsplit

import pytest
import yaml

from verified import notebook_hooks as hooks
from verified import notebooks as nbs
from verified.claims import FRAMEWORKS, LANGS, ROOT
from verified.notebooks.text import TEXT, install_code

PINS = {"paddle": "paddlepaddle==3.3.1", "torch": "torch==2.13.0"}


def run_cell(code: str, module: str, installed: str | None, monkeypatch) -> tuple[str, list]:
    """Execute the install cell's code with ``module`` installed at release ``installed`` (None:
    missing; the pip call then "installs" ``PINS``' release). Returns (stdout, pip calls)."""
    calls: list[list[str]] = []
    state = {"version": installed}
    real_find_spec = importlib.util.find_spec

    def find_spec(name, *args):
        if name == module:
            return None if state["version"] is None else SimpleNamespace(name=name)
        return real_find_spec(name, *args)

    def check_call(command):
        calls.append(command)
        state["version"] = command[-1].partition("==")[2]
        return 0

    def version(distribution):
        assert distribution == nbs.base.DISTRIBUTIONS[module], distribution
        return state["version"]

    monkeypatch.setattr(importlib.util, "find_spec", find_spec)
    monkeypatch.setattr(subprocess, "check_call", check_call)
    monkeypatch.setattr(importlib.metadata, "version", version)
    monkeypatch.setattr(
        importlib.metadata,
        "packages_distributions",
        lambda: {module: [nbs.base.DISTRIBUTIONS[module]]},
    )
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "<install cell>", "exec"), {"__name__": "__main__"})
    return out.getvalue(), calls


def matrix_releases(framework: str) -> list[str]:
    matrix = tomllib.loads((ROOT / "results" / "matrix.toml").read_text(encoding="utf-8"))
    return [
        e["version"]
        for e in matrix["environment"]
        if e["framework"] == framework and (ROOT / "results" / f"{e['name']}.json").is_file()
    ]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_install_cell_installs_the_pinned_release_only_when_missing(framework, lang, monkeypatch):
    code = install_code(framework, lang)
    name = TEXT[lang]["frameworks"][framework]
    release = PINS[framework].partition("==")[2]
    # missing: one plain `pip install <pin>` into the kernel's Python, then the verified line
    out, calls = run_cell(code, framework, None, monkeypatch)
    assert calls == [[__import__("sys").executable, "-m", "pip", "install", PINS[framework]]]
    assert out.strip().startswith(f"{name} {release}"), out
    # installed at the verified release (with a local label): nothing installed
    out, calls = run_cell(code, framework, release + "+cpu", monkeypatch)
    assert calls == [] and out.count("\n") == 1 and f"{name} {release}+cpu" in out, out


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_install_cell_says_what_to_expect_on_another_release(framework, lang, monkeypatch):
    """Another release stays installed; the cell names the verified release, the releases the
    matrix checked and the verification report's section for them, and says whether the
    installed release is one of them."""
    code = install_code(framework, lang)
    checked = matrix_releases(framework)
    assert checked, f"results/ has no report of a {framework} release"
    from verified.pages.words import TEXT as PAGE_TEXT

    section = PAGE_TEXT[lang]["matrix"]
    pinned = PINS[framework].partition("==")[2]
    for installed, known in ((checked[0], True), ("1.0.0+cu999", False)):
        out, calls = run_cell(code, framework, installed, monkeypatch)
        assert calls == [], f"{installed} was replaced: {calls}"
        assert installed in out and pinned in out and section in out, out
        assert all(release in out for release in checked), out
        unchecked = ("1.0.0 不在其中" if lang == "zh" else "1.0.0 was not checked") in out
        assert unchecked is not known, out


def test_install_cell_reads_the_pins_of_pyproject(tmp_path, monkeypatch):
    """The release installed is the `frameworks` group's pin: a pin missing there is an error
    naming pyproject.toml."""
    from verified.notebooks import text

    fake = tmp_path / "root"
    (fake / "results").mkdir(parents=True)
    (fake / "results" / "matrix.toml").write_text("environment = []\n", encoding="utf-8")
    (fake / "pyproject.toml").write_text(
        '[dependency-groups]\nframeworks = ["torch==9.9.9"]\n', encoding="utf-8"
    )
    monkeypatch.setattr("verified.claims.ROOT", fake)
    code = text.install_code("torch", "en")
    assert 'VERIFIED = "9.9.9"' in code and '"torch==9.9.9"' in code and "CHECKED = []" in code
    with pytest.raises(ValueError, match=r"pyproject.toml: .*paddlepaddle"):
        text.install_code("paddle", "en")


# -- "Open in Colab" and "Open in SageMaker Studio Lab" ---------------------------------------


def config(repository: str = "", branch: str = "") -> dict:
    return {"extra": {"repository": repository, "branch": branch}}


def test_cloud_links_have_the_services_forms():
    urls = hooks.cloud_urls("someone/autograd", "main", "notebooks/zh/inplace-paddle.ipynb")
    assert urls == {
        "colab": "https://colab.research.google.com/github/someone/autograd/blob/main/"
        "notebooks/zh/inplace-paddle.ipynb",
        "studiolab": "https://studiolab.sagemaker.aws/import/github/someone/autograd/blob/main/"
        "notebooks/zh/inplace-paddle.ipynb",
    }
    for url in urls.values():
        parts = urlsplit(url)
        assert parts.scheme == "https" and not parts.query and not parts.fragment
        assert re.fullmatch(
            r"/(?:import/)?github/someone/autograd/blob/main/notebooks/zh/inplace-paddle\.ipynb",
            parts.path,
        ), parts.path


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("framework", FRAMEWORKS)
@pytest.mark.parametrize("article", nbs.articles())
def test_every_notebook_page_links_its_committed_copy(article, lang, framework):
    src = f"{lang}/notebooks/{article}-{framework}.ipynb"  # the page's file on the site
    path = hooks.committed_copy(src)
    assert path == f"notebooks/{lang}/{article}-{framework}.ipynb"
    assert (ROOT / path) == nbs.repository_path(lang, article, framework)
    links = hooks.cloud_links(src, config("someone/autograd", "main"), hooks.TEXT[lang])
    assert len(links) == 2
    for link, service in zip(links, hooks.CLOUD, strict=True):
        assert f">{hooks.TEXT[lang][service]}</a>" in link
        assert f'/someone/autograd/blob/main/{path}"' in link


def test_a_missing_committed_copy_is_an_error_with_the_command():
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match="verified.notebooks export"):
        hooks.committed_copy("en/notebooks/no-such-article-torch.ipynb")


def test_a_local_build_offers_no_cloud_link():
    assert hooks.published_repository(config()) is None
    assert hooks.published_repository({}) is None
    assert hooks.cloud_links("en/notebooks/inplace-torch.ipynb", config(), hooks.TEXT["en"]) == []


@pytest.mark.parametrize(
    ("repository", "branch", "message"),
    [
        ("someone/autograd", "", "go together"),
        ("", "main", "go together"),
        ("someone", "main", "owner/name"),
        ("https://github.com/someone/autograd", "main", "owner/name"),
        ("someone/autograd", "a branch", "not a branch"),
        ("someone/autograd", "../main", "not a branch"),
    ],
)
def test_a_half_or_malformed_repository_is_an_error(repository, branch, message):
    from mkdocs.exceptions import PluginError

    with pytest.raises(PluginError, match=message):
        hooks.published_repository(config(repository, branch))


def test_zh_labels_are_chinese():
    for service in hooks.CLOUD:
        label = hooks.TEXT["zh"][service]
        assert label.startswith("在 ") and label.endswith(" 中打开"), label


def test_the_publishing_workflow_passes_repository_and_branch(monkeypatch):
    """publish.yml sets SITE_REPOSITORY and SITE_BRANCH from GitHub's context (no owner kept by
    hand), and mkdocs.yml reads them into extra.repository and extra.branch."""
    workflow = yaml.safe_load((ROOT / ".github/workflows/publish.yml").read_text("utf-8"))
    env = workflow["jobs"]["test"]["env"]
    assert env["SITE_REPOSITORY"] == "${{ github.repository }}"
    assert env["SITE_BRANCH"] == "${{ github.head_ref || github.ref_name }}"
    assert "github.repository_owner" in env["SITE_URL"]  # the same context as the site's address
    from mkdocs.config import load_config

    monkeypatch.chdir(ROOT)
    monkeypatch.setenv("SITE_REPOSITORY", "someone/autograd")
    monkeypatch.setenv("SITE_BRANCH", "main")
    loaded = load_config(str(ROOT / "mkdocs.yml"))
    assert hooks.published_repository(loaded) == ("someone/autograd", "main")
    monkeypatch.delenv("SITE_REPOSITORY")
    monkeypatch.delenv("SITE_BRANCH")
    assert hooks.published_repository(load_config(str(ROOT / "mkdocs.yml"))) is None


# -- on the built site --------------------------------------------------------------------------

SITE = ROOT / "site"


@pytest.mark.site
@pytest.mark.parametrize("lang", LANGS)
def test_built_pages_offer_the_cloud_links_the_build_knows(lang, monkeypatch):
    """Built for publication (SITE_REPOSITORY and SITE_BRANCH set, as in CI): every notebook
    page and every article's notebook box offers both services for each notebook, in the page's
    language; built locally: neither, and the download links are there all the same."""
    from mkdocs.config import load_config

    monkeypatch.chdir(ROOT)
    published = hooks.published_repository(load_config(str(ROOT / "mkdocs.yml")))
    site = SITE if lang == LANGS[0] else SITE / lang
    problems = []
    for article in nbs.articles():
        for framework in FRAMEWORKS:
            stem = f"{article}-{framework}"
            page = (site / "notebooks" / stem / "index.html").read_text(encoding="utf-8")
            box = (site / article / "index.html").read_text(encoding="utf-8")
            path = f"notebooks/{lang}/{stem}.ipynb"
            for where, text in ((f"notebooks/{stem}", page), (f"{article}/", box)):
                found = re.findall(r'class="notebook-cloud" href="([^"]+)">([^<]+)<', text)
                found = [(url, label) for url, label in found if url.endswith(f"/{stem}.ipynb")]
                if published is None:
                    expected = []
                else:
                    urls = hooks.cloud_urls(*published, path)
                    expected = [(urls[s], hooks.TEXT[lang][s]) for s in hooks.CLOUD]
                if found != expected:
                    problems.append(f"{lang} {where}: {found} != {expected}")
            if "download=" not in page:
                problems.append(f"{lang} notebooks/{stem}: no download link")
    assert not problems, "\n".join(problems)
