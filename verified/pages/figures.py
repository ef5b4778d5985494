"""The figures each ``snippets/<article>/figures.py`` draws from the reports, into
``docs/<lang>/figures/``. A figure reads records through :class:`FigureReports`, which asks the
standing of each one: a record that did not pass refuses the build, or, where failures are shown,
puts a note in the figure's place and the case in the build's summary."""

from __future__ import annotations

import importlib.util
import io
import warnings
from pathlib import Path

from mkdocs.exceptions import PluginError

from verified.claims import LANGS, ROOT, SNIPPETS
from verified.pages import site
from verified.pages.standing import Action, Use, action, case_name_of, of_case
from verified.report import ReportError, Reports


class NotDrawn(Exception):
    """A record the figure reads did not pass: the figure is not drawn. Its one argument: the
    entries that did not pass (the figure stops at the first record it reads that failed)."""


class FigureReports:
    """The reports as a figure reads them: ``get`` gives a record that passed, and anything
    else is refused (strict) or stops the figure (failures shown), its case noted."""

    def __init__(self, reports: Reports, where: str) -> None:
        self.reports, self.where = reports, where

    def get(self, claim_id: str, framework: str, device: str = "cpu"):
        standing = of_case(self.reports, claim_id, framework, device)
        if action(standing, Use.FIGURE, self.reports.failed_shown, self.where) is Action.MARK:
            raise NotDrawn(standing.failing(Use.FIGURE))
        return standing.entries[0].rec

    def __getattr__(self, name):  # claims, live, all, entries_for ...
        return getattr(self.reports, name)


def draw_figures(config) -> None:
    modules = sorted(SNIPPETS.glob("*/figures.py"))
    if not modules:
        return
    import matplotlib

    matplotlib.use("agg")  # backend names are case-insensitive
    import matplotlib.pyplot as plt

    plt.rcParams["svg.fonttype"] = "none"  # keep text as text: the browser renders CJK
    # With text kept as text, matplotlib only measures CJK labels (for layout) with a Latin
    # font when no CJK font is installed; the browser draws them with the reader's fonts. (The
    # warnings module matches the message without regard to case.)
    warnings.filterwarnings(
        "ignore", message=r"glyph \d+ .* missing from font", category=UserWarning
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
        shown = module_path.relative_to(ROOT).as_posix()
        for lang in LANGS:
            figures = {}
            for name, draw in module.FIGURES.items():
                reports = FigureReports(site.report(), f"figure {name}")
                try:
                    figures[name] = draw(reports, lang)
                except NotDrawn as stopped:
                    figures[name] = unavailable(name, lang)  # its claims did not pass here
                    for entry in stopped.args[0]:
                        site.add_failure(case_name_of(entry), entry, f"figure {name}")
                except ReportError as exc:
                    raise PluginError(f"{shown}: {exc}") from None
            for name, figure in figures.items():
                buffer = io.StringIO()
                figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
                plt.close(figure)
                svg = buffer.getvalue().encode()  # UTF-8, whatever the locale
                target = docs / lang / "figures" / f"{name}.svg"
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists() or target.read_bytes() != svg:
                    target.write_bytes(svg)


def unavailable(name: str, lang: str):
    """A figure whose claims did not pass on this machine: a note in its place."""
    import matplotlib.pyplot as plt

    text = {
        "en": f"Figure {name}: its claims failed on this machine (see the verification report)",
        "zh": f"图 {name}：其断言在本机上未通过（见验证报告）",
    }[lang]
    figure, axes = plt.subplots(figsize=(6, 1))
    axes.axis("off")
    axes.text(0.5, 0.5, text, ha="center", va="center")
    return figure
