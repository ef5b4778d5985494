"""MkDocs hooks: render the verification reports into the pages (see :mod:`verified.render`).

- claim placeholders, ``{{ verified }}``, ``{{ verification-table }}`` and
  ``{{ silent-failures }}`` are rendered from ``build/claims.json`` and ``results/*.json``;
- each ``snippets/<article>/figures.py`` draws its figures from the reports into
  ``docs/<lang>/figures/`` before the build.

A placeholder that names a missing, failed, skipped or stale claim fails the build with the
page and the claim named. Where ``AUTOGRAD_SHOW_FAILED=1`` (``nox -s site`` sets it), a claim
that failed on this machine is shown as failed instead, with a banner on its page, and the
build ends with a summary of them on the terminal.
"""

from __future__ import annotations

import importlib.util
import io
import sys
import warnings
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hooks are loaded by file path; make `verified` importable
    sys.path.insert(0, str(ROOT))

from verified.claims import LANGS, SNIPPETS  # noqa: E402
from verified.notebooks.snippets import translate_page  # noqa: E402
from verified.render import Page, join_cjk_soft_breaks  # noqa: E402
from verified.report import ReportError, Reports, show_failed  # noqa: E402

_reports: Reports | None = None
FAILED: dict[str, dict] = {}  # case name -> {"record": ..., "pages": {...}} shown as failed


def report() -> Reports:
    global _reports
    if _reports is None:
        try:
            _reports = Reports()
        except ReportError as exc:
            raise PluginError(str(exc)) from None
    return _reports


def on_startup(command, dirty):
    global _reports
    _reports = None


def on_pre_build(config):
    global _reports
    _reports = None  # re-read on every build (mkdocs serve rebuilds after a test run)
    FAILED.clear()
    draw_figures(config)


def on_post_build(config):
    summary = failed_summary()
    if summary:
        print(summary, file=sys.stderr)  # not a warning: --strict would turn it into an error


def failed_summary() -> str:
    """The claims shown as failed, on which pages, and the command that reruns them."""
    if not FAILED:
        return ""
    lines = [
        f"{len(FAILED)} claim case(s) failed on this machine and are shown as failed on their "
        "pages (AUTOGRAD_SHOW_FAILED=1; `nox -s tests` refuses them):"
    ]
    for name, found in sorted(FAILED.items()):
        reason = str(found["record"].get("reason") or "").splitlines()[0][:160]
        lines.append(f"  {name} on {', '.join(sorted(found['pages']))}: {reason}")
    lines.append("Rerun them: python -m pytest snippets -k '" + " or ".join(sorted(FAILED)) + "'")
    return "\n".join(lines)


# -- figures ----------------------------------------------------------------------------------


def draw_figures(config) -> None:
    modules = sorted(SNIPPETS.glob("*/figures.py"))
    if not modules:
        return
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"  # keep text as text: the browser renders CJK
    # With text kept as text, matplotlib only measures CJK labels (for layout) with a Latin
    # font when no CJK font is installed; the browser draws them with the reader's fonts.
    warnings.filterwarnings(
        "ignore", message=r"Glyph \d+ .* missing from font", category=UserWarning
    )
    plt.rcParams["svg.hashsalt"] = "autograd-verified"  # stable ids: unchanged figures stay
    plt.rcParams["font.family"] = ["sans-serif"]
    plt.rcParams["font.sans-serif"] = ["DejaVu Sans", "Noto Sans CJK SC", "sans-serif"]
    docs = Path(config["docs_dir"])
    for module_path in modules:
        spec = importlib.util.spec_from_file_location(
            f"figures_{module_path.parent.name}", module_path
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        for lang in LANGS:
            figures = {}
            for name, draw in module.FIGURES.items():
                try:
                    figures[name] = draw(report(), lang)
                except ReportError as exc:
                    raise PluginError(f"{module_path.relative_to(ROOT)}: {exc}") from None
                except (KeyError, TypeError, IndexError) as exc:
                    if not show_failed():
                        raise PluginError(
                            f"{module_path.relative_to(ROOT)}: {name}: {exc!r}"
                        ) from None
                    figures[name] = unavailable(name, lang)  # its claim failed here
            for name, figure in figures.items():
                buffer = io.StringIO()
                figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
                plt.close(figure)
                target = docs / lang / "figures" / f"{name}.svg"
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists() or target.read_text(encoding="utf-8") != buffer.getvalue():
                    target.write_text(buffer.getvalue(), encoding="utf-8")


def unavailable(name: str, lang: str):
    """A figure whose claims failed on this machine: a note in its place."""
    import matplotlib.pyplot as plt

    text = {
        "en": f"Figure {name}: its claims failed on this machine (see the verification report)",
        "zh": f"图 {name}：其断言在本机上未通过（见验证报告）",
    }[lang]
    figure, axes = plt.subplots(figsize=(6, 1))
    axes.axis("off")
    axes.text(0.5, 0.5, text, ha="center", va="center")
    return figure


# -- placeholders -----------------------------------------------------------------------------


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return markdown  # notebooks (mkdocs-jupyter renders them; their prose is rendered already)
    lang = getattr(page.file, "locale", None) or "en"
    where = page_path(page.file.src_uri, lang)
    try:
        rendered = render(markdown, lang, where)
    except ReportError as exc:
        raise PluginError(str(exc)) from None
    rendered = join_cjk_soft_breaks(rendered) if lang == "zh" else rendered
    return translate_page(rendered, lang, where)  # snippet comments in the page's language


def page_path(src_uri: str, lang: str) -> str:
    """``<lang>/<path below the language folder>``: the page's place, which its relative links
    to other pages (the verification report) start from (``en/inplace/leaf-tensors.md``)."""
    first, _, rest = src_uri.partition("/")
    return f"{lang}/{rest}" if first == lang and rest else f"{lang}/{src_uri}"


def render(markdown: str, lang: str, where: str, *, provenance: bool = True) -> str:
    page = Page(report(), lang, where, provenance)
    rendered = page.render(markdown)
    for name, record in page.failures.items():
        FAILED.setdefault(name, {"record": record, "pages": set()})["pages"].add(where)
    return rendered
