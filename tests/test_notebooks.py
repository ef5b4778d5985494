"""The downloadable notebooks (verified/notebooks/, verified/notebook_hooks.py).

Phase two (after `python -m verified.notebooks build` and `properdocs build --strict -f mkdocs.yml`):
`pytest -m site tests`. Every notebook is executed on the CPU with nbclient, one kernel per
notebook, by the build; the checks trust that execution through build/notebooks.json, which
ties each notebook on disk to the inputs executed and to the run that executed them (set
AUTOGRAD_NOTEBOOKS_FRESH=1 to execute them all again here). Execution times are printed at the
end of the module.
"""

from __future__ import annotations

import copy
import getpass
import json
import os
import re
import shutil
import socket
import sys
from pathlib import Path

import nbformat
import pytest

from verified import notebooks as nbs
from verified.claims import FRAMEWORKS, ROOT, SNIPPETS, all_cases
from verified.notebook_hooks import has_raw_notebook_json
from verified.notebooks import comments
from verified.notebooks.execute import execute_many
from verified.notebooks.text import GPU_SKIPPED, install_code, setup_code

pytestmark = pytest.mark.site

SITE = ROOT / "site"
FRESH = os.environ.get("AUTOGRAD_NOTEBOOKS_FRESH") == "1"
NOTEBOOKS = [
    (article, lang, fw) for article in nbs.articles() for lang in nbs.LANGS for fw in FRAMEWORKS
]
IDS = [f"{lang}/{article}-{fw}" for article, lang, fw in NOTEBOOKS]
CJK = re.compile(r"[\u3400-\u9fff]")


def site_dir(lang: str) -> Path:
    return SITE if lang == nbs.LANGS[0] else SITE / lang


def on_disk(article: str, lang: str, fw: str):
    path = nbs.notebook_path(lang, article, fw)
    if not path.is_file():
        pytest.fail(
            f"{path.relative_to(ROOT)} is missing: run `python -m verified.notebooks build`"
        )
    return nbformat.read(path, as_version=4)


@pytest.fixture(scope="module")
def infos():
    return nbs.snippet_infos()


@pytest.fixture(scope="module")
def timings(request):
    """Execution time per notebook, printed when the module's tests are done."""
    times: dict[str, tuple[float, str]] = {}
    yield times
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None or capture is None or not times:
        return
    with capture.global_and_fixture_disabled():  # teardown output is captured otherwise
        reporter.write_line("")
        reporter.write_line("notebook execution times (CPU, one kernel per notebook):")
        for name, (seconds, how) in sorted(times.items()):
            reporter.write_line(f"  {name:<28} {seconds:7.2f} s  ({how})")
        total = sum(s for s, _ in times.values())
        reporter.write_line(f"  {'total':<28} {total:7.2f} s")


# -- generation and staleness -----------------------------------------------------------------


def test_one_notebook_per_article_language_and_framework():
    assert nbs.articles(), "no article with snippets found"
    expected = {nbs.notebook_path(lang, a, fw) for a, lang, fw in NOTEBOOKS}
    present = {p for lang in nbs.LANGS for p in (nbs.DOCS / lang / "notebooks").glob("*.ipynb")}
    missing = sorted(str(p.relative_to(ROOT)) for p in expected - present)
    extra = sorted(str(p.relative_to(ROOT)) for p in present - expected)
    assert not missing, f"missing notebooks (run `python -m verified.notebooks build`): {missing}"
    assert not extra, f"notebooks of no article: {extra}"


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_notebook_matches_page_and_snippets(article, lang, fw, infos):
    """A stale notebook cannot pass: every code cell is its snippet file's current text, and the
    whole notebook is what the current page and snippets generate."""
    nb = on_disk(article, lang, fw)
    name = f"{lang}/{article}-{fw}"
    problems = nbs.snippet_problems(nb, where=f"{name}: ")
    if not problems:  # (generating needs a report that is fresh for the current snippets)
        fresh = nbs.generate(article, lang, fw, infos=infos)
        problems += [f"{name}: {p}" for p in nbs.stale(nb, fresh)]
    assert not problems, "stale notebook (run `python -m verified.notebooks build`):\n" + "\n".join(
        problems
    )
    included = [
        c.metadata[nbs.SIGNATURE]["snippet"]
        for c in nb.cells
        if c.cell_type == "code"
        if "snippet" in c.metadata.get(nbs.SIGNATURE, {})
    ]
    page = "\n".join(
        (nbs.DOCS / lang / p).read_text(encoding="utf-8") for p in nbs.section_pages(article, lang)
    )
    for path in re.findall(r'--8<--\s+"([^"]+)"', page):
        if path.endswith(f"_{fw}.py"):
            assert path in included, f"{name}: the page includes {path}, the notebook does not"


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_error_cells_are_exactly_the_error_claims(article, lang, fw):
    """raises-exception is on the cells of snippets with an `error` claim, and only there."""
    errors = {
        case.snippet_path.relative_to(SNIPPETS).as_posix(): case.spec["type"]
        for case in all_cases().values()
        if case.claim.kind == "error" and case.device == "cpu"
    }
    nb = on_disk(article, lang, fw)
    wrong = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get(nbs.SIGNATURE, {})
        snippet = meta.get("snippet")
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        should = snippet in errors and not cell.source.startswith("%%writefile")
        if tagged != should:
            wrong.append(f"cell {index} ({snippet}): tagged={tagged}, error claim={should}")
        if should and meta.get("expected_exception") != errors[snippet]:
            wrong.append(f"cell {index} ({snippet}): expects {meta.get('expected_exception')}")
    assert not wrong, f"{lang}/{article}-{fw}:\n" + "\n".join(wrong)


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_code_cells_are_the_code_the_claims_ran(article, lang, fw):
    """In every language the code cells run exactly the snippet files the claims executed: the
    Python tokens without comments and docstrings are the same; in a translated notebook no
    English comment is left (verified/notebooks/comments.py)."""
    nb = on_disk(article, lang, fw)
    problems = []
    first = next(c for c in nb.cells if c.cell_type == "code")
    if not first.metadata.get(nbs.SIGNATURE, {}).get("install"):
        problems.append("the first code cell is not the install cell (install_code())")
    for index, cell in enumerate(nb.cells):
        meta = cell.metadata.get(nbs.SIGNATURE, {})
        if cell.cell_type != "code":
            continue
        source = cell.source.split("\n", 1)[1] if cell.source.startswith("%%") else cell.source
        if meta.get("install"):
            if source != install_code(fw, lang):
                problems.append(f"cell {index} (install): differs from install_code()")
            continue
        if meta.get("setup"):
            shim = re.search(r'^__file__ = "(.+)\.ipynb"$', source, re.MULTILINE)
            english = setup_code(
                fw,
                comments.SOURCE_LANG,
                gpu_only="def gpu_only" in source,
                file_name=shim[1] if shim else None,
            ).replace(GPU_SKIPPED[comments.SOURCE_LANG], GPU_SKIPPED[lang])  # its words only
            if comments.code_tokens(source) != comments.code_tokens(english):
                problems.append(f"cell {index} (setup): code differs from the English setup")
            continue
        executed = nbs.snippet_text(meta["snippet"])
        if comments.code_tokens(source) != comments.code_tokens(executed):
            problems.append(f"cell {index} ({meta['snippet']}): code differs from the snippet")
        if lang != comments.SOURCE_LANG:
            for item in comments.prose(executed):
                if len(item.text) > 12 and item.text in source:
                    problems.append(f"cell {index} ({meta['snippet']}): {item.text!r} in English")
    assert not problems, f"{lang}/{article}-{fw}:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_gpu_only_cell_says_it_was_skipped_in_the_notebooks_language(lang):
    """On the CPU a %%gpu_only cell prints why it did not run, in the notebook's language."""
    code = setup_code("torch", lang, gpu_only=True, file_name=None)
    assert f'print("{GPU_SKIPPED[lang]}")' in code
    others = [text for other, text in GPU_SKIPPED.items() if other != lang]
    assert others and not any(text in code for text in others)
    if lang == "zh":
        assert re.search(r"[\u4e00-\u9fff]", GPU_SKIPPED[lang])


# -- execution --------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def record() -> dict:
    """build/notebooks.json: per notebook, the build's execution (see verified.notebooks.build)."""
    if not nbs.RECORD.is_file():
        pytest.fail(f"{nbs.RECORD} is missing: run `python -m verified.notebooks build`")
    return json.loads(nbs.RECORD.read_text(encoding="utf-8"))["notebooks"]


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_notebook_ran_cleanly_on_cpu(article, lang, fw, infos, timings, record):
    """One kernel per notebook, a timeout per cell; exactly the tagged cells raise, with their
    claim's exception type; any other exception fails, naming notebook, cell and error.

    The execution checked is the build's (`python -m verified.notebooks build` executes every
    notebook whose code cells, framework versions or device changed, and fails on any of the
    errors above). build/notebooks.json records, per notebook, the digest of the inputs it
    executed, the run that executed them and the digest of the outputs it wrote: the inputs
    must be today's and the notebook on disk must carry those outputs; with AUTOGRAD_RUN_ID set
    (CI sets one per run), the run must be this one, so a notebook executed by an earlier run
    fails. AUTOGRAD_NOTEBOOKS_FRESH=1 executes every notebook again here as well."""
    name = f"{lang}/{article}-{fw}"
    rebuild = "(run `python -m verified.notebooks build`)"
    fresh = nbs.generate(article, lang, fw, infos=infos)
    disk = on_disk(article, lang, fw)
    entry = record.get(name)
    assert entry is not None, f"{name}: not in {nbs.RECORD.name} {rebuild}"
    assert entry["device"] == "cpu", f"{name}: executed on {entry['device']}, not on the CPU"
    assert entry["key"] == nbs.cache_key(fresh, fw, "cpu"), (
        f"{name}: the build executed other inputs than today's {rebuild}"
    )
    assert entry["outputs"] == nbs.outputs_digest(disk), (
        f"{name}: the notebook on disk does not carry the outputs of the recorded execution "
        f"{rebuild}"
    )
    run = os.environ.get("AUTOGRAD_RUN_ID")
    if run:
        assert entry["run"] == run, (
            f"{name}: executed by run {entry['run']!r}, not by this run ({run}) {rebuild}"
        )
    if FRESH:
        executed = copy.deepcopy(fresh)
        try:
            seconds = nbs.execute(executed, name, "cpu")
        except nbs.NotebookFailed as exc:
            pytest.fail(str(exc))
        timings[name] = (seconds, "executed now")
    else:
        executed = disk
        timings[name] = (entry["execution_s"], f"executed by the build, run {entry['run']}")
    problems = nbs.execution_problems(executed, name)
    assert not problems, "\n".join(problems)
    codes = [c for c in executed.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in codes), f"{name}: not every cell ran"
    # the install cell first: the framework is there, at the verified release; then the setup
    installed = "".join(o.get("text", "") for o in codes[0].outputs)
    assert codes[0].metadata[nbs.SIGNATURE] == {"install": True}, f"{name}: no install cell"
    assert installed.count("\n") == 1 and nbs.TEXT[lang]["frameworks"][fw] in installed, installed
    assert "default device: cpu" in "".join(o.get("text", "") for o in codes[1].outputs)

    assert disk.metadata[nbs.SIGNATURE].get("executed_on") == "cpu", f"{name}: not run on CPU"
    assert nbs.code_signature(disk) == nbs.code_signature(fresh), f"{name}: stale {rebuild}"
    assert not nbs.execution_problems(disk, name), f"{name}: {rebuild}"


# -- on the site ------------------------------------------------------------------------------


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_download_is_a_valid_notebook_with_outputs(article, lang, fw):
    stem = f"{article}-{fw}"
    download = site_dir(lang) / "notebooks" / stem / f"{stem}.ipynb"
    assert download.is_file(), f"{download.relative_to(ROOT)} missing: build the site"
    nb = nbformat.read(download, as_version=4)
    nbformat.validate(nb)
    codes = [c for c in nb.cells if c.cell_type == "code"]
    assert codes and all(c.execution_count is not None for c in codes), "unexecuted cells"
    # a cell that prints or is expected to raise shows it; a silent one may have no output
    silent = [
        i
        for i, c in enumerate(codes)
        if not c.outputs
        and ("print(" in c.source or "raises-exception" in c.metadata.get("tags", []))
    ]
    assert not silent, f"code cells {silent} print or raise but have no output"
    assert download.read_bytes() == nbs.notebook_path(lang, article, fw).read_bytes(), (
        "the published notebook differs from docs/: rebuild the site"
    )


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_notebook_page_is_rendered_not_raw_json(article, lang, fw):
    """TOOLCHAIN traps 1 and 2: under mkdocs-static-i18n the page was the notebook's JSON, and
    Chinese headings had empty (or percent-encoded) ids."""
    stem = f"{article}-{fw}"
    page = site_dir(lang) / "notebooks" / stem / "index.html"
    assert page.is_file(), f"{page.relative_to(ROOT)} missing: build the site"
    text = page.read_text(encoding="utf-8")
    assert not has_raw_notebook_json(text), f"{page.relative_to(ROOT)} contains raw notebook JSON"
    assert "jp-CodeCell" in text and "jp-OutputArea" in text, "no rendered cells"
    ids = re.findall(r'<h[1-3] id="([^"]*)"', text)
    assert ids and all(ids), f"headings without ids: {ids}"
    assert not any("%" in i for i in ids), f"percent-encoded heading ids: {ids[:3]}"
    if lang == "zh":
        assert any(CJK.search(i) for i in ids), f"no Chinese heading id: {ids[:5]}"
    for fragment in re.findall(r'class="md-nav__link" href="#([^"]+)"', text):
        assert f'id="{fragment}"' in text, f"TOC link #{fragment} has no heading"
    assert "cdnjs.cloudflare.com" not in text, "the page loads a script from a CDN"
    assert '<script src="">' not in text, "an empty script (MathJax without a URL)"
    for other in nbs.LANGS:  # the language switcher stays on the notebook
        switch = re.search(rf'<a href="([^"]*)" hreflang="{other}"', text)
        assert switch, f"no language switcher entry for {other}"
        target = (page.parent / switch[1]).resolve()
        assert target == (site_dir(other) / "notebooks" / stem).resolve(), (
            f"the {other} entry of the language switcher goes to {switch[1]}"
        )


@pytest.mark.parametrize(
    ("article", "lang"),
    [(a, lang) for a in nbs.articles() for lang in nbs.LANGS],
    ids=[f"{lang}/{a}" for a in nbs.articles() for lang in nbs.LANGS],
)
def test_article_links_its_notebooks_in_its_language(article, lang):
    page = site_dir(lang) / article / "index.html"
    assert page.is_file(), f"{page.relative_to(ROOT)} missing: build the site"
    text = page.read_text(encoding="utf-8")
    for fw in FRAMEWORKS:
        stem = f"{article}-{fw}"
        href = f"../notebooks/{stem}/{stem}.ipynb"
        assert f'href="{href}" download' in text, f"{lang}/{article}: no download link for {fw}"
        assert (page.parent / href).resolve().is_file()
        assert f'href="../notebooks/{stem}/"' in text, f"{lang}/{article}: no view link for {fw}"
    label = "下载" if lang == "zh" else "download"
    assert label in text


@pytest.mark.parametrize(
    ("article", "lang"),
    [(a, lang) for a in nbs.articles() for lang in nbs.LANGS],
    ids=[f"{lang}/{a}" for a in nbs.articles() for lang in nbs.LANGS],
)
def test_sub_pages_link_their_heading_in_the_notebook(article, lang):
    """Every sub-page of a section offers the section's notebooks; "view" opens the notebook at
    the heading the sub-page's title became, and that heading exists on the notebook page."""
    pages = nbs.section_pages(article, lang)[1:]
    if not pages:
        pytest.fail(f"{lang}/{article} is not a section (no sub-pages)")
    problems = []
    for page in pages:
        html = site_dir(lang) / page.removesuffix(".md") / "index.html"
        text = html.read_text(encoding="utf-8")
        for fw in FRAMEWORKS:
            stem = f"{article}-{fw}"
            if f'href="../../notebooks/{stem}/{stem}.ipynb" download' not in text:
                problems.append(f"{page}: no download link for {fw}")
            views = re.findall(rf'href="\.\./\.\./notebooks/{stem}/#([^"]+)"', text)
            if not views:
                problems.append(f"{page}: no view link to a heading of {stem}")
                continue
            target = (site_dir(lang) / "notebooks" / stem / "index.html").read_text("utf-8")
            anchor = html_unescape(views[0])
            if f'id="{anchor}"' not in target:
                problems.append(f"{page}: the notebook page {stem} has no heading #{anchor}")
    assert not problems, "\n".join(problems)


def html_unescape(text: str) -> str:
    import html

    return html.unescape(text)


# -- reproducibility --------------------------------------------------------------------------


def _private_strings() -> list[str]:
    found = {str(ROOT), str(Path.home()), sys.prefix, sys.base_prefix, "/work/", "/tmp/"}
    return sorted(s for s in found if s and s not in ("/", "/usr", "/usr/local"))


@pytest.mark.parametrize(("article", "lang", "fw"), NOTEBOOKS, ids=IDS)
def test_no_paths_user_or_host_names(article, lang, fw):
    nb = on_disk(article, lang, fw)
    metadata = json.dumps([nb.metadata] + [c.metadata for c in nb.cells], ensure_ascii=False)
    outputs = json.dumps([c.get("outputs", []) for c in nb.cells], ensure_ascii=False)
    problems = [f"metadata contains {s!r}" for s in _private_strings() if s in metadata]
    problems += [f"outputs contain {s!r}" for s in _private_strings() if s in outputs]
    user, host = getpass.getuser(), socket.gethostname()
    for what, text in (("metadata", metadata), ("outputs", outputs)):
        if host and len(host) > 3 and host in text:
            problems.append(f"{what} contain the host name {host!r}")
        if re.search(rf"/{re.escape(user)}/|\\b{re.escape(user)}@", text):
            problems.append(f"{what} contain the user name {user!r} in a path")
    assert not re.search(r'"/[^"]*\.(py|ipynb)"', metadata), "absolute path in metadata"
    assert not problems, f"{lang}/{article}-{fw}: " + "; ".join(problems)


# -- the generator itself ---------------------------------------------------------------------


def _same_as_text(markdown: str, lang: str, where: str) -> str:
    return markdown  # placeholders left as they are: this test is about code cells


def test_snippet_edit_changes_the_notebook(tmp_path):
    """Edit a snippet in a copy of the sources: the generated notebook changes, and the
    staleness checks reject the notebook generated before the edit."""
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    shutil.copytree(nbs.DOCS, docs, ignore=shutil.ignore_patterns("notebooks", "figures"))
    shutil.copytree(SNIPPETS, snippets)
    article, lang, fw = NOTEBOOKS[0]

    def generate():
        return nbs.generate(
            article,
            lang,
            fw,
            docs=docs,
            snippets=snippets,
            render=_same_as_text,
            infos=nbs.snippet_infos(snippets),
        )

    before = generate()
    cell = next(
        c
        for c in before.cells
        if c.cell_type == "code"
        and "snippet" in c.metadata.get(nbs.SIGNATURE, {})
        and not c.source.startswith("%%")
    )
    path = cell.metadata[nbs.SIGNATURE]["snippet"]
    assert nbs.snippet_problems(before, snippets) == []
    with (snippets / path).open("a", encoding="utf-8") as f:
        f.write('print("edited in a test")\n')
    after = generate()
    assert nbs.code_signature(after) != nbs.code_signature(before)
    edited = [c for c in after.cells if c.metadata.get(nbs.SIGNATURE, {}).get("snippet") == path]
    assert edited and edited[0].source.endswith('print("edited in a test")')
    assert nbs.cache_key(after, fw, "cpu") != nbs.cache_key(before, fw, "cpu")
    stale = nbs.snippet_problems(before, snippets)
    assert stale and path in stale[0], stale
    assert nbs.stale(before, after), "a notebook generated before the edit must count as stale"


DEMO_PAGE = """\
# Demo

Prose for both frameworks, with an [internal link](glossary.md#leaf) and a
[section link](#the-part).

<span class="site-only">Pick a framework in any tab: every tab follows.</span> Kept in both.

!!! note
    An admonition.

## The part

=== "PaddlePaddle"

    ```python
    --8<-- "demo/ok_paddle.py"
    ```

    {{ demo.ok | paddle | output }}

    Paddle-only prose.

=== "PyTorch"

    ```python
    --8<-- "demo/ok_torch.py"
    ```

    {{ demo.ok | torch | output }}

    Torch-only prose.

=== "PaddlePaddle"

    ```python
    --8<-- "demo/boom_paddle.py"
    ```

=== "PyTorch"

    ```python
    --8<-- "demo/boom_torch.py"
    ```

=== "PaddlePaddle"

    ```python
    --8<-- "demo/cuda_paddle.py"
    ```

=== "PyTorch"

    ```python
    --8<-- "demo/cuda_torch.py"
    ```
"""

DEMO_CLAIMS = """\
[[claim]]
id = "demo.ok"
kind = "value"
snippet = "ok"
observe = "total"
statement.en = "ok"
statement.zh = "好"
[claim.expect.paddle]
value = 6.0
[claim.expect.torch]
value = 6.0

[[claim]]
id = "demo.boom"
kind = "error"
snippet = "boom"
statement.en = "boom"
statement.zh = "炸"
[claim.expect.paddle]
type = "ValueError"
match = "inplace"
[claim.expect.torch]
type = "RuntimeError"
match = "in-place"

[[claim]]
id = "demo.cuda"
kind = "value"
snippet = "cuda"
devices = ["gpu"]
observe = "on_gpu"
statement.en = "gpu"
statement.zh = "gpu"
[claim.expect.paddle]
value = true
[claim.expect.torch]
value = true
"""

DEMO_SNIPPETS = {
    "ok_torch.py": "import torch\n\ntotal = torch.ones(3).mul(2).sum().item()\nprint(total)\n",
    "ok_paddle.py": "import paddle\n\ntotal = paddle.ones([3]).scale(2).sum().item()\nprint(total)\n",
    "boom_torch.py": "import torch\n\nleaf = torch.ones(3, requires_grad=True)\nleaf.add_(1)\n",
    "boom_paddle.py": "import paddle\n\nleaf = paddle.ones([3])\nleaf.stop_gradient = False\nleaf.add_(paddle.ones([3]))\n",
    "cuda_torch.py": 'import torch\n\non_gpu = torch.ones(1).is_cuda\nprint("on the GPU:", on_gpu)\n',
    "cuda_paddle.py": 'import paddle\n\non_gpu = "gpu" in str(paddle.ones([1]).place).lower()\nprint("on the GPU:", on_gpu)\n',
}


def test_generated_cells_on_a_demo_page(tmp_path, timings, monkeypatch):
    """Tabs, placeholders, admonitions, links, error and GPU-only cells, on a small page; the
    torch notebook is executed on the CPU: the error cell raises, the GPU cell skips."""
    monkeypatch.delenv("SITE_URL", raising=False)  # relative links (see test_site_url_...)
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    (docs / "en").mkdir(parents=True)
    (docs / "en" / "demo.md").write_text(DEMO_PAGE, encoding="utf-8")
    (snippets / "demo").mkdir(parents=True)
    (snippets / "demo" / "claims.toml").write_text(DEMO_CLAIMS, encoding="utf-8")
    for name, text in DEMO_SNIPPETS.items():
        (snippets / "demo" / name).write_text(text, encoding="utf-8")
    infos = nbs.snippet_infos(snippets)
    nb = nbs.generate(
        "demo", "en", "torch", docs=docs, snippets=snippets, render=_same_as_text, infos=infos
    )
    md = "\n".join(c.source for c in nb.cells if c.cell_type == "markdown")
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata[nbs.SIGNATURE] == {"install": True}  # (tests/test_cloud.py)
    code = code[1:]  # the setup cell, then the snippets
    assert "Torch-only prose" in md and "Paddle-only prose" not in md
    assert "| output }}" not in md and "demo.ok" not in md
    assert "> **Note**" in md and "!!!" not in md and '=== "' not in md
    assert "](../../glossary/#leaf)" in md and "](../../demo/#the-part)" in md
    assert "Kept in both." in md and "tab" not in md and "site-only" not in md
    assert [c.metadata.get(nbs.SIGNATURE, {}).get("snippet") for c in code] == [
        None,
        "demo/ok_torch.py",
        "demo/boom_torch.py",
        "demo/cuda_torch.py",
    ]
    assert "set_default_device" in code[0].source and "AUTOGRAD_DEVICE" in code[0].source
    assert code[1].source == DEMO_SNIPPETS["ok_torch.py"].rstrip("\n")
    assert code[2].metadata["tags"] == ["raises-exception"]
    assert code[3].source.startswith("%%gpu_only\n")
    assert "def gpu_only" in code[0].source
    other = nbs.generate(
        "demo", "en", "paddle", docs=docs, snippets=snippets, render=_same_as_text, infos=infos
    )
    assert "Paddle-only prose" in "\n".join(c.source for c in other.cells)

    # an unexpected exception fails the notebook, naming the notebook, the cell and the error;
    # both notebooks run side by side, their results come back in the order given
    broken = nbs.generate(
        "demo", "en", "torch", docs=docs, snippets=snippets, render=_same_as_text, infos=infos
    )
    index = next(
        i
        for i, c in enumerate(broken.cells)
        if c.metadata.get(nbs.SIGNATURE, {}).get("snippet") == "demo/ok_torch.py"
    )
    broken.cells[index].source = "raise KeyError('unexpected')"
    seconds, failed = execute_many(
        [(nb, "demo/en-torch", "cpu"), (broken, "demo/broken", "cpu")], workers=2
    )
    assert isinstance(failed, nbs.NotebookFailed), failed
    assert re.search(rf"demo/broken: cell {index} .*KeyError", str(failed)), str(failed)
    timings["(demo page) en/demo-torch"] = (seconds, "executed now")
    assert nbs.execution_problems(nb, "demo") == []
    assert code[2].outputs[-1]["ename"] == "RuntimeError"
    assert "Skipped: this cell needs a GPU" in code[3].outputs[0]["text"]
    assert code[1].outputs[0]["text"].strip() == "6.0"


def _code_notebook(*sources: str):
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in sources]
    return nb


def test_a_kernel_that_dies_fails_its_notebook_alone_with_the_end_of_its_log():
    """A segfault in one kernel (a framework's C++ can crash) fails that notebook, named, with the
    crash's Python stack from its kernel's log; the notebook beside it runs to its end."""
    crashing = _code_notebook(
        "print('before the crash', flush=True)",
        "import faulthandler\nfaulthandler._sigsegv()",
        "print('never')",
    )
    fine = _code_notebook("import time\ntime.sleep(1)\nprint(6 * 7)")
    died, seconds = execute_many(
        [(crashing, "demo/crashing", "cpu"), (fine, "demo/fine", "cpu")], workers=2
    )
    assert isinstance(died, nbs.NotebookFailed), died
    message = str(died)
    assert message.startswith(
        "demo/crashing: the kernel died (Kernel died; signal 11 (Segmentation fault)) while "
        "running cell 1; "
    ), message
    assert "Fatal Python error: Segmentation fault\n" in message, message
    assert re.search(r"Current thread .*\n +File .*, line 2 in <module>\n", message), message
    assert "build/notebooks/logs/demo-crashing.log" in message, message
    assert isinstance(seconds, float) and fine.cells[0].outputs[0]["text"] == "42\n"


def test_a_kernel_that_fails_to_start_fails_its_notebook_alone(monkeypatch):
    """Whatever stops one notebook's kernel (here: nbclient's own startup timeout, as when its
    kernel dies before replying) comes back as that notebook's failure, naming it and the error,
    and does not escape while the kernel beside it still runs (it used to: the atexit cleanup
    of the other kernel then failed with InvalidStateError and hid the cause)."""
    execute_module = sys.modules["verified.notebooks.execute"]
    real = execute_module.execute_async

    async def start_fails_for_one(nb, name, device, *, timeout=None):
        if name == "demo/no-start":
            raise RuntimeError("Kernel didn't respond in 60 seconds")
        return await real(nb, name, device, timeout=timeout)

    monkeypatch.setattr(execute_module, "execute_async", start_fails_for_one)
    fine = _code_notebook("import time\ntime.sleep(1)\nprint('done')")
    failed, seconds = execute_many(
        [(_code_notebook("1"), "demo/no-start", "cpu"), (fine, "demo/fine-2", "cpu")], workers=2
    )
    assert isinstance(failed, nbs.NotebookFailed), failed
    assert str(failed).startswith(
        "demo/no-start: RuntimeError: Kernel didn't respond in 60 seconds"
    ), failed
    assert isinstance(seconds, float) and fine.cells[0].outputs[0]["text"] == "done\n"


def test_kernels_talk_over_unix_sockets_in_a_directory_of_their_own():
    """No TCP port for a kernel: with TCP, jupyter_client frees the ports it picked before the
    kernel binds them, and a connection opened meanwhile (a DDP cell beside it) can take one."""
    probe = (
        "import json, os\n"
        "from ipykernel import get_connection_info\n"
        "info = json.loads(get_connection_info())\n"
        "print(info['transport'], os.path.isabs(info['ip']), len(info['ip']) < 100)\n"
        "print(info['ip'])"
    )
    nbs_ = [_code_notebook(probe), _code_notebook(probe)]
    outcomes = execute_many([(nbs_[0], "demo/ipc-1", "cpu"), (nbs_[1], "demo/ipc-2", "cpu")])
    assert all(isinstance(o, float) for o in outcomes), outcomes
    first, second = (nb.cells[0].outputs[0]["text"].splitlines() for nb in nbs_)
    assert first[0] == second[0] == "ipc True True", (first, second)
    assert first[1] != second[1]  # one directory per kernel
    assert not Path(first[1]).parent.exists()  # removed with the kernel's sockets


SECTION_INDEX = """\
# Demo

!!! abstract "Short answer"

    === "PaddlePaddle"

        ```python
        --8<-- "demo/ok_paddle.py:3:3"
        ```

    === "PyTorch"

        ```python
        --8<-- "demo/ok_torch.py:3:3"
        ```

The [part](part.md), its [section](part.md#more), the [glossary](../glossary.md#leaf).

<!-- notebooks -->
"""

SECTION_PART = """\
# The part

```python
# not a heading
```

## More

=== "PaddlePaddle"

    ```python
    --8<-- "demo/launch_ok_paddle.py"
    ```

=== "PyTorch"

    ```python
    --8<-- "demo/launch_ok_torch.py"
    ```

Back to [the overview](index.md) and [this section](#more).
"""


def test_a_section_makes_one_notebook(tmp_path, monkeypatch):
    """An article made of a section (``demo/index.md`` and its sub-pages): one notebook per
    framework, the overview first, each sub-page's headings one level down; links resolved from
    the page they are written in; a part of a snippet that the notebook also runs whole is shown,
    not run; a module a snippet imports is written (%%writefile) before it runs."""
    monkeypatch.delenv("SITE_URL", raising=False)
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    (docs / "en" / "demo").mkdir(parents=True)
    (docs / "en" / "demo" / "index.md").write_text(SECTION_INDEX, encoding="utf-8")
    (docs / "en" / "demo" / "part.md").write_text(SECTION_PART, encoding="utf-8")
    (snippets / "demo").mkdir(parents=True)
    (snippets / "demo" / "claims.toml").write_text(DEMO_CLAIMS, encoding="utf-8")
    for name, text in DEMO_SNIPPETS.items():
        (snippets / "demo" / name).write_text(text, encoding="utf-8")
    for fw in FRAMEWORKS:
        (snippets / "demo" / f"helper_{fw}.py").write_text("VALUE = 2\n", encoding="utf-8")
        (snippets / "demo" / f"launch_ok_{fw}.py").write_text(
            f"from helper_{fw} import VALUE\n\nprint(VALUE)\n", encoding="utf-8"
        )
    part = (docs / "en" / "demo" / "part.md").read_text(encoding="utf-8")
    (docs / "en" / "demo" / "part.md").write_text(
        part + '\n```python\n--8<-- "demo/ok_torch.py"\n```\n', encoding="utf-8"
    )
    assert nbs.articles(docs, snippets) == ["demo"]
    assert nbs.section_pages("demo", "en", docs) == ["demo/index.md", "demo/part.md"]
    nb = nbs.generate(
        "demo", "en", "torch", docs=docs, snippets=snippets, render=_same_as_text,
        infos=nbs.snippet_infos(snippets),
    )  # fmt: skip
    md = [c.source for c in nb.cells if c.cell_type == "markdown"]
    code = [c for c in nb.cells if c.cell_type == "code"]
    assert code[0].metadata[nbs.SIGNATURE] == {"install": True}  # (tests/test_cloud.py)
    code = code[1:]  # the setup cell, then the snippets
    assert md[0].startswith("# Demo · PyTorch")
    assert any(m.startswith("## The part") for m in md) and any(
        m.startswith("### More") for m in md
    )
    text = "\n".join(md)
    assert "```python\ntotal = torch.ones(3).mul(2).sum().item()\n```" in text  # shown only
    assert "](../../demo/part/)" in text and "](../../demo/part/#more)" in text
    assert "](../../glossary/#leaf)" in text and "](../../demo/)" in text
    assert "<!-- notebooks -->" not in text
    sources = [c.source for c in code]
    assert sources[1].startswith("%%writefile helper_torch.py\n")
    assert sources[2].startswith("from helper_torch import VALUE")
    assert sources[3] == DEMO_SNIPPETS["ok_torch.py"].rstrip("\n")  # the whole file runs once
    assert "# not a heading" in text and "## # not a heading" not in text
    assert nb.metadata[nbs.SIGNATURE]["pages"] == ["docs/en/demo/index.md", "docs/en/demo/part.md"]


# -- what a notebook says and where its links go ----------------------------------------------


def _demo(tmp_path, page: str = DEMO_PAGE):
    docs, snippets = tmp_path / "docs", tmp_path / "snippets"
    (docs / "en").mkdir(parents=True, exist_ok=True)
    (docs / "en" / "demo.md").write_text(page, encoding="utf-8")
    (snippets / "demo").mkdir(parents=True, exist_ok=True)
    (snippets / "demo" / "claims.toml").write_text(DEMO_CLAIMS, encoding="utf-8")
    for name, text in DEMO_SNIPPETS.items():
        (snippets / "demo" / name).write_text(text, encoding="utf-8")

    def generate(**kwargs):
        return nbs.generate(
            "demo",
            "en",
            "torch",
            docs=docs,
            snippets=snippets,
            render=_same_as_text,
            infos=nbs.snippet_infos(snippets),
            **kwargs,
        )

    return generate


@pytest.mark.parametrize(
    ("prose", "lang"),
    [
        ("Choose your framework in any tab.", "en"),
        ("The tabs above show both.", "en"),
        ("This page shows the code.", "en"),
        ("在任意代码标签页中选择框架。", "zh"),
        ("见上面的选项卡。", "zh"),
        ("本页的数值来自实际运行。", "zh"),
    ],
)
def test_site_prose_is_caught(prose, lang):
    nb = nbformat.v4.new_notebook()
    nb.metadata[nbs.SIGNATURE] = {"lang": lang, "article": "demo"}
    nb.cells = [nbformat.v4.new_markdown_cell("Fine.\n\n" + prose)]
    problems = nbs.site_prose_problems(nb, "demo: ")
    assert len(problems) == 1 and "cell 0" in problems[0], problems
    assert '<span class="site-only">' in problems[0] and f"docs/{lang}/demo.md" in problems[0]
    nb.cells[0].source = nbs.drop_site_only(f'Fine.\n\n<span class="site-only">{prose}</span>')
    assert nbs.site_prose_problems(nb) == [] and nb.cells[0].source.strip() == "Fine."


def test_unmarked_tab_prose_fails_the_notebook_build(tmp_path):
    generate = _demo(tmp_path, DEMO_PAGE.replace("Kept in both.", "Choose in any tab."))
    nb = generate()
    problems = nbs.site_prose_problems(nb)
    assert problems and "'tab'" in problems[0], problems


def test_site_only_closes_up_the_line():
    text = (
        "Intro.\n\n"
        '<span class="site-only">Choose a tab; all tabs follow.</span> The\n'
        "[glossary](g.md) explains.\n\n"
        '- how far depends on the framework<span class="site-only"> (see the tabs above)</span>. The\n'
        "  answer is right.\n\n"
        '取决于临时梯度有多大<span class="site-only">（见上面的标签页）</span>。原回答说\n'
    )
    out = nbs.drop_site_only(text)
    assert "The\n[glossary](g.md) explains." in out
    assert "- how far depends on the framework. The\n  answer is right." in out
    assert "取决于临时梯度有多大。原回答说" in out
    assert "tab" not in out and "标签页" not in out


@pytest.mark.parametrize(
    ("url", "local"),
    [
        ("http://127.0.0.1:8000/", True),
        ("http://127.1.2.3/x/", True),
        ("http://localhost:8000/", True),
        ("http://[::1]:8000/", True),
        ("http://0.0.0.0/", True),
        ("https://autograd.example.org/", False),
        ("https://127.example.org/", False),
    ],
)
def test_local_addresses(url, local):
    assert nbs.is_local(url) is local
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_markdown_cell(f"See [the glossary]({url}glossary/)."),
        nbformat.v4.new_code_cell('MASTER_ADDR = "127.0.0.1"'),  # code, not a link
    ]
    problems = nbs.local_link_problems(nb, "demo: ")
    assert bool(problems) is local, problems
    if local:
        assert "demo: cell 0 links to" in problems[0] and "SITE_URL" in problems[0]


def test_link_policy():
    published = nbs.Links("zh", "inplace", "torch", base="https://example.org/av/")
    assert published.page("glossary.md", "leaf") == "https://example.org/av/zh/glossary/#leaf"
    assert published.page("", "rule-1") == "https://example.org/av/zh/inplace/#rule-1"
    assert published.page("index.md") == "https://example.org/av/zh/"
    relative = nbs.Links("en", "inplace", "torch")
    assert relative.page("glossary.md", "leaf") == "../../glossary/#leaf"
    assert relative.page("", "rule-1") == "../../inplace/#rule-1"
    assert relative.asset("figures/x.png") == "../../figures/x.png"
    repo = nbs.Links(
        "zh", "inplace", "torch", repository=True, articles=("inplace", "accumulation")
    )
    assert repo.page("accumulation.md", "windows") == "accumulation-torch.ipynb#windows"
    assert repo.page("", "rule-1") == "#rule-1"
    assert repo.page("glossary.md", "leaf") == "../../docs/zh/glossary.md#leaf"
    assert repo.article_url() == "../../docs/zh/inplace.md"
    # an article made of a section: its overview, and its sub-pages as headings of the notebook
    section = nbs.Links(
        "zh", "inplace", "torch", repository=True, articles=("inplace", "accumulation"),
        index="inplace/index.md",
        titles={"inplace/rule.md": "规则一", "accumulation/recipe.md": "通用写法"},
    )  # fmt: skip
    assert section.article_url() == "../../docs/zh/inplace/index.md"
    assert section.page("inplace/rule.md") == "#规则一"
    assert section.page("inplace/rule.md", "x") == "#x"
    assert section.page("inplace/index.md") == "inplace-torch.ipynb"
    assert section.page("accumulation/recipe.md") == "accumulation-torch.ipynb#通用写法"
    assert section.page("accumulation/index.md", "y") == "accumulation-torch.ipynb#y"
    assert section.page("glossary.md", "leaf") == "../../docs/zh/glossary.md#leaf"
    on_site = nbs.Links("zh", "inplace", "torch", index="inplace/index.md")
    assert on_site.page("") == "../../inplace/" and on_site.article_url() == "../../inplace/"
    assert on_site.page("inplace/rule.md", "x") == "../../inplace/rule/#x"


def test_site_url_decides_the_links(tmp_path, monkeypatch):
    """SITE_URL (read through mkdocs.yml's !ENV) gives absolute links; unset, or a local
    address, gives relative ones. Never a link to this machine."""
    generate = _demo(tmp_path)
    monkeypatch.setenv("SITE_URL", "https://autograd.example.org/")
    assert nbs.published_url() == "https://autograd.example.org/"
    md = "\n".join(c.source for c in generate().cells if c.cell_type == "markdown")
    assert "](https://autograd.example.org/glossary/#leaf)" in md
    for value in ("http://127.0.0.1:8000/", "http://localhost:8000/"):
        monkeypatch.setenv("SITE_URL", value)
        assert nbs.published_url() is None
        nb = generate()
        assert nbs.local_link_problems(nb) == []
        assert "](../../glossary/#leaf)" in "\n".join(c.source for c in nb.cells)
    monkeypatch.delenv("SITE_URL")
    assert nbs.published_url() is None


def _built_notebooks():
    found = []
    for article, lang, fw in NOTEBOOKS:
        stem = f"{article}-{fw}"
        found.append(nbs.notebook_path(lang, article, fw))
        found.append(site_dir(lang) / "notebooks" / stem / f"{stem}.ipynb")
        found.append(nbs.repository_path(lang, article, fw))
    return found


@pytest.mark.parametrize(
    "path", _built_notebooks(), ids=[p.relative_to(ROOT).as_posix() for p in _built_notebooks()]
)
def test_built_notebook_says_nothing_of_tabs_and_links_nowhere_local(path):
    """Every notebook: in docs/, downloaded from the site, committed under notebooks/."""
    assert path.is_file(), f"{path.relative_to(ROOT)} missing: build the notebooks and the site"
    nb = nbformat.read(path, as_version=4)
    where = f"{path.relative_to(ROOT)}: "
    problems = nbs.site_prose_problems(nb, where) + nbs.local_link_problems(nb, where)
    assert not problems, "\n".join(problems)


# -- the copies committed under notebooks/ ----------------------------------------------------


def test_committed_notebooks_match_a_fresh_generation(infos):
    problems = nbs.repository_problems(infos=infos)
    assert not problems, "\n".join(problems)
    for path in sorted(nbs.REPOSITORY.glob("*/*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        codes = [c for c in nb.cells if c.cell_type == "code"]
        assert codes and not any(c.outputs or c.execution_count for c in codes), (
            f"{path.relative_to(ROOT)} carries outputs"
        )


def test_stale_committed_notebook_is_named_with_the_command(tmp_path, infos):
    root = tmp_path / "notebooks"
    shutil.copytree(nbs.REPOSITORY, root, ignore=shutil.ignore_patterns("*.md"))
    first = sorted(root.glob("*/*.ipynb"))[0]
    nb = nbformat.read(first, as_version=4)
    # observed values and figures may come from another run: not a difference
    for cell in nb.cells:
        if cell.cell_type == "markdown":
            cell.source = re.sub(
                r'(<span class="claim-value" data-claim="[^"]*">).*?(</span>)',
                r"\g<1>42\g<2>",
                cell.source,
            )
    first.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    assert nbs.repository_problems(root, infos=infos) == []
    code = next(
        c
        for c in nb.cells
        if c.cell_type == "code" and "snippet" in c.metadata.get(nbs.SIGNATURE, {})
    )
    code.source += "\nprint('edited')"
    first.write_text(nbformat.writes(nb) + "\n", encoding="utf-8")
    second = sorted(root.glob("*/*.ipynb"))[1]
    second.unlink()
    (root / "en" / "gone-torch.ipynb").write_text(first.read_text(encoding="utf-8"))
    problems = nbs.repository_problems(root, infos=infos)
    text = "\n".join(problems)
    assert len(problems) == 3, text
    assert f"{first.relative_to(tmp_path).as_posix()} differs from a fresh generation" in text
    assert "python -m verified.notebooks export" in text
    assert "is missing" in text and "gone-torch.ipynb is the notebook of no article" in text
