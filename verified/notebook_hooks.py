"""MkDocs hooks for the executed notebooks (``docs/<lang>/notebooks/*.ipynb``).

The notebooks are generated and executed by ``python -m verified.notebooks build``; the
mkdocs-jupyter plugin renders them. This hook fixes what breaks under mkdocs-static-i18n and
links the notebooks from their articles:

1. **Notebook pages rendered as raw JSON** (ultrabug/mkdocs-static-i18n#198): the i18n plugin
   rebuilds every File after mkdocs-jupyter wrapped the notebooks, and its plain Files do not
   count ``.ipynb`` as documentation pages, so mkdocs copies the JSON to ``index.html``.
   ``on_files`` (after i18n) makes them documentation pages again.
2. **Chinese headings get empty ids** in notebooks (mkdocs-jupyter's slugify drops non-ASCII):
   notebook headings and their table of contents use the Markdown pages' slugify
   (``pymdownx.slugs.slugify``, lower case), so the same heading gets the same id everywhere.
3. **mkdocs-jupyter's conversion cache never hits under i18n**: each language pass evicted the
   other language's entries. Eviction now happens once, after every language was built, and
   keeps every entry used by any pass.
4. Each page of an article with notebooks (its page, or every page of its section) gets a box
   with "view" and "download" links for both frameworks, in the page's language, where the
   page has ``<!-- notebooks -->``, else at its end (a page opens with its answer); a sub-page's
   "view" link goes to its heading in the notebook. Each notebook page gets a download link,
   loads nothing from a CDN, links the site relatively, and stays out of the search index (the
   article holds the same text). Where the build knows the repository the site is published
   from (``extra.repository`` and ``extra.branch`` of mkdocs.yml, from the variables
   SITE_REPOSITORY and SITE_BRANCH that the publishing workflow sets from GitHub's context),
   the box and the notebook page also offer "Open in Colab" and "Open in SageMaker Studio Lab"
   for the notebook's copy committed under ``notebooks/<lang>/`` (no outputs: the reader's
   runtime executes it); a local build, which knows no repository, offers neither.
5. **One shared stylesheet instead of ~590 KB of inline style on every notebook page.**
   mkdocs-jupyter (0.26.3, no option for it) inlines nbconvert's JupyterLab CSS into each
   page's content as ``<style>`` blocks. They are moved, unchanged and in order, into one
   file under ``assets/notebooks/`` named by its content hash, linked from the same place in
   the page: every notebook page shares it, and the browser downloads it once.
"""

from __future__ import annotations

import hashlib
import html
import os
import re
import sys
from pathlib import Path, PurePosixPath
from types import SimpleNamespace

from mkdocs.plugins import event_priority
from mkdocs.structure.files import File
from mkdocs.utils import get_relative_url

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hooks are loaded by file path; make `verified` importable
    sys.path.insert(0, str(ROOT))

from verified.claims import FRAMEWORK_NAMES  # noqa: E402
from verified.pages.words import NAMES  # noqa: E402

NOTEBOOK_DIR = "notebooks"
CACHE_SALT = "avhooks1"  # change when the conversion patches below change
TEXT = {
    "en": {
        "title": "Run it in Jupyter",
        "body": "One notebook per framework holds the text and code of every page of this "
        "section, executed.",
        "view": "view",
        "download": "download .ipynb",
        "page_download": "Download this notebook (.ipynb)",
        "colab": "Open in Colab",
        "studiolab": "Open in SageMaker Studio Lab",
        "colon": ": ",
        # mkdocs-jupyter's copy buttons say "Copy to Clipboard" and "Copied!" in every language;
        # these are Material's own words for its copy buttons (partials/languages/*.html)
        "copy": "Copy to clipboard",
        "copied": "Copied to clipboard",
    },
    "zh": {
        "title": "在 Jupyter 中运行",
        "body": "每个框架一个笔记本，包含本章各页的正文和代码，且已执行。",
        "view": "在线查看",
        "download": "下载 .ipynb",
        "page_download": "下载此笔记本（.ipynb）",
        "colab": "在 Colab 中打开",
        "studiolab": "在 SageMaker Studio Lab 中打开",
        "colon": "：",
        "copy": "复制",
        "copied": "已复制",
    },
}


def _slugify():
    from pymdownx.slugs import slugify

    return slugify(case="lower")


# -- 2. unicode heading ids in notebooks ------------------------------------------------------


def _patch_mkdocs_jupyter() -> None:
    try:
        import markdown
        from mkdocs_jupyter import convert, plugin
    except ImportError:  # mkdocs-jupyter not installed: nothing to patch
        return
    if getattr(plugin, "_autograd_verified_patched", False):
        return
    slug = _slugify()

    def slugify(value: str) -> str:
        return slug(value, "-")

    convert.slugify = slugify

    def add_anchor_lower_id(html_heading, anchor_link_text="¶"):
        """mkdocs-jupyter's version, minus the percent-encoding of the id (a Chinese heading
        got an id like "%E4%BB..." that no link could reach) and with the pages' slugify."""
        from xml.etree.ElementTree import Element

        from defusedxml import ElementTree
        from nbconvert.filters.strings import html2text

        try:
            h = ElementTree.fromstring(html_heading)
        except Exception:
            return html_heading
        link = slugify(html2text(h))
        h.set("id", link)
        a = Element("a", {"class": "anchor-link", "href": "#" + link})
        a.text = anchor_link_text
        h.append(a)
        return ElementTree.tostring(h).decode("utf-8", "replace")

    convert.add_anchor_lower_id = add_anchor_lower_id  # ids of the headings in the HTML

    def _get_nb_toc_tokens(fpath, toc_depth):
        """The table of contents from the notebook's Markdown headings, with the ids the HTML
        gets (the plugin's own version lost inline code and non-ASCII text)."""
        import nbformat

        nb = nbformat.read(fpath, as_version=4)
        flat = []
        for cell in nb.cells:
            if cell.cell_type != "markdown":
                continue
            fence = None
            for line in cell.source.split("\n"):
                stripped = line.strip()
                if fence is None and re.match(r"^(`{3,}|~{3,})", stripped):
                    fence = stripped[:3]
                    continue
                if fence is not None:
                    if stripped.startswith(fence):
                        fence = None
                    continue
                match = re.match(r"^(#{1,6})\s+(.*?)\s*#*\s*$", line)
                if not match or len(match[1]) > toc_depth:
                    continue
                rendered = markdown.markdown(match[2])
                name = html.unescape(re.sub(r"<[^>]+>", "", rendered)).strip()
                flat.append(
                    {
                        "level": len(match[1]),
                        "id": slugify(name),
                        "name": name,
                        "html": name,
                        "data-toc-label": "",
                        "children": [],
                    }
                )
        tokens: list[dict] = []
        stack: list[dict] = []
        for token in flat:
            while stack and stack[-1]["level"] >= token["level"]:
                stack.pop()
            (stack[-1]["children"] if stack else tokens).append(token)
            stack.append(token)
        title = next((t["name"] for t in flat if t["level"] == 1), None)
        return tokens, title

    plugin._get_nb_toc_tokens = _get_nb_toc_tokens  # ids in the page's table of contents

    original_key = plugin._compute_cache_key

    def _compute_cache_key(nb_path, config, exec_nb):  # entries made before these patches differ
        return original_key(nb_path, config, exec_nb)[:48] + CACHE_SALT

    plugin._compute_cache_key = _compute_cache_key

    plugin._autograd_verified_patched = True


def _i18n_nested(config) -> bool:
    """True while the i18n plugin builds a language other than the first."""
    i18n = config.plugins.get("i18n")
    return bool(i18n is not None and getattr(i18n, "building", False))


_patch_mkdocs_jupyter()


# -- 1. notebooks are pages again -------------------------------------------------------------


class NotebookPageFile(File):
    """A notebook that is a documentation page (rendered by mkdocs-jupyter)."""

    def is_documentation_page(self) -> bool:
        return True


def _is_notebook(file: File) -> bool:
    return file.src_uri.endswith(".ipynb") and f"/{NOTEBOOK_DIR}/" in f"/{file.src_uri}"


@event_priority(-200)  # after mkdocs-static-i18n (-100), which replaced every File
def on_files(files, config):
    for file in list(files):
        if not _is_notebook(file) or file.is_documentation_page():
            continue
        file.__class__ = NotebookPageFile  # keeps the i18n attributes (locale, alternates...)
        dest = PurePosixPath(file.dest_uri)
        if dest.suffix == ".ipynb":
            dest = dest.with_suffix("")
            dest = (
                dest / "index.html" if config["use_directory_urls"] else dest.with_suffix(".html")
            )
        file.dest_uri = dest.as_posix()
        file.abs_dest_path = os.path.normpath(os.path.join(config["site_dir"], file.dest_uri))
        file.url = file._get_url(config["use_directory_urls"])
        _link_languages(file, config)
    i18n = config.plugins.get("i18n")
    if i18n is not None and hasattr(i18n, "i18n_files_per_language"):
        # the sitemap.xml template lists these; the i18n plugin filled them before the
        # notebooks were pages again
        i18n.i18n_files_per_language[i18n.current_language] = files.documentation_pages()
    return files


def _link_languages(file: File, config) -> None:
    """The i18n plugin finds a page's versions in other languages for documentation pages
    only; give the notebooks theirs, so the language switcher stays on the notebook."""
    i18n = config.plugins.get("i18n")
    alternates = getattr(file, "alternates", None)
    if i18n is None or alternates is None:
        return
    parts = PurePosixPath(file.src_uri).parts  # <lang>/notebooks/<name>.ipynb
    docs = Path(config["docs_dir"])
    for lang in i18n.build_languages:
        if lang in alternates:  # its own language, or found by the i18n plugin
            continue
        if not (docs / lang / PurePosixPath(*parts[1:])).is_file():
            continue
        prefix = "" if lang == i18n.default_language else f"{lang}/"
        url = prefix + PurePosixPath(*parts[1:]).with_suffix("").as_posix() + "/"
        if not config["use_directory_urls"]:
            url = url.rstrip("/") + ".html"
        src_uri = f"{lang}/" + PurePosixPath(*parts[1:]).as_posix()
        page = SimpleNamespace(canonical_url=None, abs_url=None)  # for the sitemap template
        alternates[lang] = SimpleNamespace(url=url, locale=lang, src_uri=src_uri, page=page)


# -- 3. eviction, after every language ---------------------------------------------------------


def on_config(config):
    """mkdocs-jupyter forgets the cache entries used so far at each pre_build and evicts the
    others at each post_build; under i18n that is once per language, so every language evicts
    the other's entries. Its registered events are replaced: forget only when a new build
    starts, evict only after the last language (``on_post_build`` below)."""
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is None or getattr(jupyter, "_autograd_verified_events", False):
        return config

    def pre_build(config):
        if not _i18n_nested(config):
            jupyter._used_cache_paths = set()

    events = config.plugins.events
    events["pre_build"] = [
        pre_build if getattr(m, "__self__", None) is jupyter else m for m in events["pre_build"]
    ]
    events["post_build"] = [
        m for m in events["post_build"] if getattr(m, "__self__", None) is not jupyter
    ]
    jupyter._autograd_verified_events = True
    return config


@event_priority(-200)  # after mkdocs-static-i18n's on_post_build, which builds the other languages
def on_post_build(config):
    if _i18n_nested(config):
        return
    jupyter = config.plugins.get("mkdocs-jupyter")
    if jupyter is not None and hasattr(jupyter, "_used_cache_paths"):
        type(jupyter).on_post_build(jupyter, config)  # mkdocs-jupyter's own eviction
    write_stylesheets(config)


# -- 4. links from the articles and on the notebook pages -------------------------------------


def _lang(page) -> str:
    return getattr(page.file, "locale", None) or "en"


def notebooks_of(page, files) -> dict[str, File]:
    """Framework -> notebook file of an article's page (``<lang>/<article>.md``, or any page of
    its section ``<lang>/<article>/``), in the page's language."""
    src = PurePosixPath(page.file.src_uri)
    if src.suffix != ".md" or len(src.parts) not in (2, 3):
        return {}
    lang, article = src.parts[0], (src.stem if len(src.parts) == 2 else src.parts[1])
    found = {}
    for file in files:
        if not isinstance(file, NotebookPageFile):
            continue
        path = PurePosixPath(file.src_uri)
        if path.parts[:2] == (lang, NOTEBOOK_DIR):
            stem_article, _, framework = path.stem.rpartition("-")
            if stem_article == article and framework in FRAMEWORK_NAMES:
                found[framework] = file
    return found


def download_url(notebook: File) -> str:
    """Where mkdocs-jupyter's include_source copies the .ipynb: next to the page's HTML."""
    folder = PurePosixPath(notebook.dest_uri).parent
    return (folder / PurePosixPath(notebook.src_uri).name).as_posix()


# "Open in" services that import a notebook from a public GitHub repository by its path
CLOUD = {
    "colab": "https://colab.research.google.com/github/{repository}/blob/{branch}/{path}",
    "studiolab": "https://studiolab.sagemaker.aws/import/github/{repository}/blob/{branch}/{path}",
}
REPOSITORY_RE = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?/[A-Za-z0-9._-]+$")
BRANCH_RE = re.compile(r"^[A-Za-z0-9._/-]+$")


def published_repository(config) -> tuple[str, str] | None:
    """(owner/name, branch) of the repository the site is published from, as mkdocs.yml's
    ``extra`` has them (SITE_REPOSITORY, SITE_BRANCH; publish.yml sets both), or None when the
    build does not know it (a local build). Half of it, or a malformed value, is an error."""
    extra = config.get("extra") or {}
    repository = str(extra.get("repository") or "").strip()
    branch = str(extra.get("branch") or "").strip()
    if not repository and not branch:
        return None
    from mkdocs.exceptions import PluginError

    if not repository or not branch:
        raise PluginError(
            "mkdocs.yml extra.repository and extra.branch (SITE_REPOSITORY and SITE_BRANCH) "
            f"go together: got repository={repository!r}, branch={branch!r}"
        )
    if not REPOSITORY_RE.match(repository):
        raise PluginError(f"SITE_REPOSITORY must be owner/name, not {repository!r}")
    if not BRANCH_RE.match(branch) or ".." in branch or branch.startswith("/"):
        raise PluginError(f"SITE_BRANCH is not a branch name: {branch!r}")
    return repository, branch


def committed_copy(notebook_src_uri: str) -> str:
    """The repository path of a notebook page's committed copy: ``<lang>/notebooks/<stem>
    .ipynb`` on the site is ``notebooks/<lang>/<stem>.ipynb`` in the repository (which the
    site checks keep in step with the executed notebook). A missing copy is an error."""
    from mkdocs.exceptions import PluginError

    src = PurePosixPath(notebook_src_uri)
    path = f"notebooks/{src.parts[0]}/{src.name}"
    if not (ROOT / path).is_file():
        raise PluginError(
            f"{path} is missing: the Colab and Studio Lab links open the committed copy; "
            "run `python -m verified.notebooks export` and commit it"
        )
    return path


def cloud_urls(repository: str, branch: str, path: str) -> dict[str, str]:
    """Service -> the address that opens ``path`` of the repository's ``branch`` there."""
    return {
        service: form.format(repository=repository, branch=branch, path=path)
        for service, form in CLOUD.items()
    }


def cloud_links(notebook_src_uri: str, config, text: dict) -> list[str]:
    """The "Open in ..." links of a notebook, as HTML; none where the repository is unknown."""
    published = published_repository(config)
    if published is None:
        return []
    urls = cloud_urls(*published, committed_copy(notebook_src_uri))
    return [
        f'<a class="notebook-cloud" href="{html.escape(url)}">{html.escape(text[service])}</a>'
        for service, url in urls.items()
    ]


MARKER = "<!-- notebooks -->"
TITLE_RE = re.compile(r"^#\s+(?P<text>.*?)\s*$", re.MULTILINE)


def title_anchor(markdown: str) -> str:
    """The id a sub-page's title gets as a heading of its section's notebook (the notebooks'
    headings use the pages' slugify, trap 2)."""
    match = TITLE_RE.search(markdown)
    if not match:
        return ""
    return _slugify()(re.sub(r"`([^`]*)`", r"\1", match["text"]), "-")


def on_page_markdown(markdown, page, config, files):
    found = notebooks_of(page, files)
    if not found:
        return markdown
    text = TEXT.get(_lang(page), TEXT["en"])
    names = NAMES.get(_lang(page), NAMES["en"])
    sub_page = PurePosixPath(page.file.src_uri).name != "index.md"
    here = (
        f"#{title_anchor(markdown)}"
        if sub_page and len(PurePosixPath(page.file.src_uri).parts) == 3
        else ""
    )
    links = []
    for framework in FRAMEWORK_NAMES:
        notebook = found.get(framework)
        if notebook is None:
            continue
        view = get_relative_url(notebook.url, page.file.url) + here
        download = get_relative_url(download_url(notebook), page.file.url)
        name = PurePosixPath(notebook.src_uri).name
        cloud = "".join(f" · {link}" for link in cloud_links(notebook.src_uri, config, text))
        links.append(
            f'    - **{names[framework]}**{text["colon"]}<a href="{html.escape(view)}">{text["view"]}</a> · '
            f'<a href="{html.escape(download)}" download="{html.escape(name)}">'
            f"{text['download']}</a>{cloud}"
        )
    box = "\n".join([f'!!! tip "{text["title"]}"', "", f"    {text['body']}", "", *links, ""])
    if MARKER in markdown:
        return markdown.replace(MARKER, box, 1)
    return markdown.rstrip("\n") + "\n\n" + box


EMPTY_SCRIPT = re.compile(r'<script src="">\s*</script>')
COPIED_NOTICE = re.compile(r'(<span class="notice" hidden(?:="")?>)Copied!(</span>)')
MERMAID = re.compile(
    r"<script\b[^>]*>(?:(?!</script>).)*?mermaid(?:(?!</script>).)*</script>", re.DOTALL
)


def on_page_content(html_content, page, config, files):
    if not isinstance(page.file, NotebookPageFile):
        return html_content
    # the search finds the article, whose text this is; indexed notebooks doubled the index
    page.meta["search"] = {**(page.meta.get("search") or {}), "exclude": True}
    # nbconvert's template loads mermaid from a CDN when a notebook has diagrams; ours have none
    # and the site loads nothing from other hosts
    html_content = MERMAID.sub("", html_content)
    html_content = EMPTY_SCRIPT.sub("", html_content)  # MathJax with no URL: an error, no use
    # the notebooks link to the site by absolute URL (they are downloaded); on the site itself
    # those links become relative, so they work on any host and the link checks see them
    site = config["site_url"] or ""
    if site:
        site = site if site.endswith("/") else site + "/"

        html_content = re.sub(
            r'(href=)"' + re.escape(site) + r'([^"]*)"',
            lambda m: f'{m[1]}"{_relative(m[2], page.file.url)}"',
            html_content,
        )
    html_content = shared_stylesheet(html_content, page.file.url)
    text = TEXT.get(_lang(page), TEXT["en"])
    # the page arrives re-serialised (BeautifulSoup): the template's `hidden` is `hidden=""`
    html_content = COPIED_NOTICE.sub(
        lambda m: m[1] + html.escape(text["copied"]) + m[2], html_content
    ).replace('aria-label="Copy to Clipboard"', f'aria-label="{html.escape(text["copy"])}"')
    name = PurePosixPath(page.file.src_uri).name
    cloud = "".join(f" · {link}" for link in cloud_links(page.file.src_uri, config, text))
    link = (
        f'<p class="notebook-download"><a href="{html.escape(name)}" download="{html.escape(name)}">'
        f"{text['page_download']}</a>{cloud}</p>\n"
    )
    return link + html_content


def _relative(target: str, page_url: str) -> str:
    """``target`` (a path below the site root, maybe with #fragment) relative to the page."""
    path, hash_, fragment = target.partition("#")
    rel = get_relative_url(path or ".", page_url or ".")
    if path.endswith("/") and not rel.endswith("/"):
        rel += "/"
    return rel + hash_ + fragment


# raw notebook JSON in a page's HTML: what trap 1 looks like (used by the tests)
RAW_JSON = re.compile(r'"cell_type"\s*:\s*"(?:code|markdown)"|"nbformat"\s*:\s*\d')


def has_raw_notebook_json(text: str) -> bool:
    return bool(RAW_JSON.search(text))


# -- 5. one shared stylesheet -------------------------------------------------------------------

STYLE = re.compile(r"<style\b[^>]*>(.*?)</style>", re.S)
CHARSET = re.compile(r'^\s*@charset\s+"[^"]*"\s*;')
STYLESHEETS = "assets/notebooks"  # below the site root
_stylesheets: dict[str, str] = {}  # file name -> CSS, written once every language is built


def notebook_css(blocks: list[str]) -> str:
    """The style blocks as one stylesheet, in their order; an ``@charset`` (valid only at the
    very start of a stylesheet) moves to the start."""
    charset = ""
    parts = []
    for block in blocks:
        found = CHARSET.match(block)
        if found:
            charset = charset or found[0].strip()
            block = block[found.end() :]
        parts.append(block.strip("\n"))
    return (charset + "\n" if charset else "") + "\n".join(parts) + "\n"


def shared_stylesheet(html_content: str, page_url: str) -> str:
    """The page with its ``<style>`` blocks replaced by a link to one stylesheet, where the
    first block was (the cascade keeps its order)."""
    blocks = [m[1] for m in STYLE.finditer(html_content)]
    if not blocks:
        return html_content
    css = notebook_css(blocks)
    name = hashlib.sha256(css.encode("utf-8")).hexdigest()[:16] + ".css"
    _stylesheets[name] = css
    href = get_relative_url(f"{STYLESHEETS}/{name}", page_url or ".")
    link = f'<link rel="stylesheet" href="{html.escape(href)}">'
    first = iter([link])
    return STYLE.sub(lambda _: next(first, ""), html_content)


def write_stylesheets(config) -> None:
    folder = Path(config["site_dir"]) / STYLESHEETS
    for name, css in _stylesheets.items():
        target = folder / name
        if not target.is_file() or target.read_text(encoding="utf-8") != css:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(css, encoding="utf-8")
