"""MkDocs hooks: render the claims report into the pages.

- ``{{ <id> | <framework>[@<device>] | <field> }}`` is replaced with what the test run
  observed (see snippets/README.md for the fields);
- ``{{ verified }}`` with the line that says what the page was verified with;
- ``{{ verification-table }}`` with the table of every claim;
- each ``snippets/<article>/figures.py`` draws its figures from the report into
  ``docs/<lang>/figures/`` before the build.

A placeholder that names a missing, failed, skipped or stale claim fails the build with the
page and the claim named.
"""

from __future__ import annotations

import html
import importlib.util
import io
import re
import sys
import warnings
from pathlib import Path

from mkdocs.exceptions import PluginError

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # hooks are loaded by file path; make `verified` importable
    sys.path.insert(0, str(ROOT))

from verified.claims import FRAMEWORK_NAMES, FRAMEWORKS, LANGS, SNIPPETS, discover  # noqa: E402
from verified.report import (  # noqa: E402
    Report,
    ReportError,
    fmt_bytes,
    fmt_seconds,
    fmt_value,
)

PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<id>[a-z0-9][a-z0-9.-]*)\s*\|\s*(?P<fw>paddle|torch)(?:@(?P<dev>cpu|gpu))?\s*"
    r"\|\s*(?P<field>[a-z_]+)(?:\.(?P<key>[\w-]+))?\s*\}\}"
)
ANY_BRACES = re.compile(r"\{\{.*?\}\}")
BLOCK_FIELDS = {"output"}

TEXT = {
    "en": {
        "output": "Output",
        "verified": "Verified by running the code with {versions}, on {device}, {date}: "
        "see the [verification report](verification.md).",
        "dev": {"cpu": "CPU", "gpu": "GPU"},
        "status": {"passed": "passed", "failed": "failed", "skipped": "not run here"},
        "claim": "Claim",
        "statement": "Statement",
        "env": "Environment of this run",
        "generated": "Report generated",
        "none": "none",
        "not_run": "GPU cases not run here",
    },
    "zh": {
        "output": "输出",
        "verified": "本页的报错信息、数值与内存数据均由实际运行代码得到：{versions}，{device}，"
        "{date}。详见[验证报告](verification.md)。",
        "dev": {"cpu": "CPU", "gpu": "GPU"},
        "status": {"passed": "通过", "failed": "失败", "skipped": "此处未运行"},
        "claim": "断言",
        "statement": "内容",
        "env": "本次运行的环境",
        "generated": "报告生成时间",
        "none": "无",
        "not_run": "此处未运行的 GPU 用例",
    },
}

_report: Report | None = None


def report() -> Report:
    global _report
    if _report is None:
        try:
            _report = Report()
        except ReportError as exc:
            raise PluginError(str(exc)) from None
    return _report


def on_startup(command, dirty):
    global _report
    _report = None


def on_pre_build(config):
    global _report
    _report = None  # re-read on every build (mkdocs serve rebuilds after a test run)
    draw_figures(config)


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
            try:
                figures = module.draw(report(), lang)
            except ReportError as exc:
                raise PluginError(f"{module_path.relative_to(ROOT)}: {exc}") from None
            for name, figure in figures.items():
                buffer = io.StringIO()
                figure.savefig(buffer, format="svg", bbox_inches="tight", metadata={"Date": None})
                plt.close(figure)
                target = docs / lang / "figures" / f"{name}.svg"
                target.parent.mkdir(parents=True, exist_ok=True)
                if not target.exists() or target.read_text(encoding="utf-8") != buffer.getvalue():
                    target.write_text(buffer.getvalue(), encoding="utf-8")


# -- placeholders -----------------------------------------------------------------------------


def on_page_markdown(markdown, page, config, files):
    if not page.file.src_uri.endswith(".md"):
        return markdown  # notebooks (mkdocs-jupyter renders them; their prose is rendered already)
    lang = getattr(page.file, "locale", None) or "en"
    where = page.file.src_uri
    try:
        rendered = render(markdown, lang, where)
    except ReportError as exc:
        raise PluginError(str(exc)) from None
    return join_cjk_soft_breaks(rendered) if lang == "zh" else rendered


def render(markdown: str, lang: str, where: str) -> str:
    rep = report()
    lines = []
    for line in markdown.split("\n"):
        stripped = line.strip()
        indent = line[: len(line) - len(line.lstrip())]
        if stripped == "{{ verification-table }}":
            lines.append(verification_table(rep, lang))
            continue
        if stripped == "{{ verified }}":
            lines.append(indent + verified_line(rep, lang))
            continue
        whole = PLACEHOLDER.fullmatch(stripped)
        if whole and whole["field"] in BLOCK_FIELDS:
            lines.extend(indent + ln for ln in block(rep, whole, lang, where).split("\n"))
            continue

        def inline(match: re.Match) -> str:
            if match["field"] in BLOCK_FIELDS:
                raise ReportError(f"{where}: {match[0]} must stand alone on its line")
            return inline_value(rep, match, lang, where)

        line = PLACEHOLDER.sub(inline, line)
        leftover = ANY_BRACES.search(line)
        if leftover:
            raise ReportError(f"{where}: unrecognised placeholder {leftover[0]!r}")
        lines.append(line)
    return "\n".join(lines)


CJK = "\u3000-\u303f\u4e00-\u9fff\uff00-\uffef"
CJK_END = re.compile(f"[{CJK}]$")
CJK_START = re.compile(f"^[{CJK}]")
BLOCK_START = re.compile(r"^(\s*)([-*+] |\d+\. |#|>|\||=== |!!! |\?\?\? |<|```|~~~|--8<--|\{\{)")


def join_cjk_soft_breaks(markdown: str) -> str:
    """Join paragraph lines broken after a Chinese character or full-width punctuation.

    Markdown turns a soft line break into a space, which is right between English words and
    wrong between Chinese characters ("。 下面"). Code blocks, lists, tables and other block
    syntax are left alone; only continuation lines of the same indentation are joined.
    """
    out: list[str] = []
    in_fence = False
    for line in markdown.split("\n"):
        stripped = line.strip()
        if stripped.startswith(("```", "~~~")):
            in_fence = not in_fence
            out.append(line)
            continue
        previous = out[-1] if out else ""
        indent = line[: len(line) - len(line.lstrip())]
        prev_indent = previous[: len(previous) - len(previous.lstrip())]
        if (
            not in_fence
            and stripped
            and previous.strip()
            and indent == prev_indent
            and not BLOCK_START.match(line)
            and not previous.strip().startswith(("|", "#", "```", "~~~", "=== ", "!!! ", "<"))
            and (CJK_END.search(previous.rstrip()) or CJK_START.match(stripped))
        ):
            out[-1] = previous.rstrip() + stripped
            continue
        out.append(line)
    return "\n".join(out)


def _record(rep: Report, match: re.Match, where: str) -> dict:
    return rep.get(match["id"], match["fw"], match["dev"] or "cpu", where=where)


def block(rep: Report, match: re.Match, lang: str, where: str) -> str:
    rec = _record(rep, match, where)
    observed = rec["observed"]
    text = observed.get("output", "").rstrip("\n")
    exc = observed.get("exception")
    if exc:
        message = exc["message"].strip()
        shown = message.splitlines()
        if len(shown) > 12:
            shown = shown[:12] + ["..."]
        text = (text + "\n" if text else "") + "Traceback (most recent call last):\n  ...\n"
        text += f"{exc['type']}: " + "\n".join(shown)
    fence = "````" if "```" in text else "```"
    return f'{fence}text title="{TEXT[lang]["output"]}"\n{text}\n{fence}'


def inline_value(rep: Report, match: re.Match, lang: str, where: str) -> str:
    rec = _record(rep, match, where)
    observed, field, key = rec["observed"], match["field"], match["key"]
    label = f"{where}: {match[0]}"
    if field == "statement":
        return rec["statement"][lang]
    if field in ("type", "message"):
        exc = observed.get("exception")
        if not exc:
            raise ReportError(f"{label}: the claim observed no exception")
        text = exc["type"] if field == "type" else exc["message"].strip().splitlines()[0]
        return code(text)
    if field in ("bytes", "theoretical"):
        value = observed["bytes" if field == "bytes" else "theoretical_bytes"]
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                raise ReportError(f"{label}: no region {key!r} in {sorted(value)}")
            value = value[key]
        elif isinstance(value, dict):
            raise ReportError(f"{label}: name a region, one of {sorted(value)}")
        return fmt_bytes(value, lang)
    if field == "ratio":
        return f"{observed['ratio']:.2f}×"
    if field in ("median_baseline", "median_candidate"):
        return fmt_seconds(observed[f"{field}_s"])
    if field == "value":
        value = observed.get("value")
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                raise ReportError(f"{label}: no key {key!r} in the observed value")
            value = value[key]
        return code(fmt_value(value))
    raise ReportError(f"{label}: unknown field {field!r}")


def code(text: str) -> str:
    return f"<code>{html.escape(text)}</code>"


def verified_line(rep: Report, lang: str) -> str:
    env = rep.environment
    versions = f"torch {env['torch']}, paddle {env['paddle']}"
    device = f"{TEXT[lang]['dev']['cpu']} ({env['cpu']})"
    if env.get("gpu"):
        device += f", GPU ({env['gpu']})"
    date = rep.data["generated"][:10]
    return "*" + TEXT[lang]["verified"].format(versions=versions, device=device, date=date) + "*"


ARTICLES = {
    "inplace": {"en": "In-place operations", "zh": "原位操作"},
    "accumulation": {"en": "Gradient accumulation", "zh": "梯度累积"},
}


def summary(rec: dict, lang: str) -> str:
    """One table cell: the status and what was observed, shortened."""
    status = rec["status"]
    t = TEXT[lang]["status"]
    if status == "skipped":
        return f"— {t['skipped']}"
    obs = rec.get("observed") or {}
    kind = rec["kind"]
    if status == "failed":
        return f"✗ {t['failed']}: {html.escape(str(rec.get('reason', ''))[:200])}"
    if kind == "error":
        exc = obs["exception"]
        text = exc["type"] + ": " + exc["message"].strip().splitlines()[0]
        return f"✓ {code(shorten(text, 140))}"
    if kind in ("value", "behaviour"):
        return f"✓ {code(shorten(fmt_value(obs.get('value')), 140))}"
    if kind == "memory":
        got, theo = obs["bytes"], obs["theoretical_bytes"]
        unit = " B" if lang == "en" else " 字节"
        if isinstance(got, dict):
            return "✓ " + "<br>".join(f"{k}: {v:,}{unit}" for k, v in got.items())
        return f"✓ {fmt_bytes(got, lang)} / {fmt_bytes(theo, lang)}"
    return (
        f"✓ {obs['ratio']:.2f}× ({fmt_seconds(obs['median_baseline_s'])} / "
        f"{fmt_seconds(obs['median_candidate_s'])})"
    )


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def verification_table(rep: Report, lang: str) -> str:
    t = TEXT[lang]
    env = rep.environment
    out = [f"## {t['env']}", ""]
    for key in ("python", "torch", "paddle", "cpu", "gpu", "platform"):
        out.append(f"- **{key}**: `{env.get(key) or t['none']}`")
    out.append(f"- **{t['generated']}**: `{rep.data['generated']}`")
    reasons = sorted({r["reason"] for r in rep.data["claims"] if r["status"] == "skipped"})
    if reasons:
        out.append(f"- **{t['not_run']}**:")
        out.extend(f"    - {html.escape(reason)}" for reason in reasons)
    out.append("")
    claims = discover()
    for article in sorted({c.article for c in claims}):
        title = ARTICLES.get(article, {}).get(lang, article)
        out += [f"## [{title}]({article}.md)", ""]
        out.append(f"| {t['claim']} | | CPU | GPU |")
        out.append("|---|---|---|---|")
        for claim in (c for c in claims if c.article == article):
            first = f"`{claim.id}`<br>{claim.statement[lang]}".replace("|", "\\|")
            for fw in FRAMEWORKS:
                cells = []
                for dev in ("cpu", "gpu"):
                    rec = rep.records.get((claim.id, fw, dev))
                    if dev not in claim.devices:
                        cells.append("—")
                    elif rec is None:
                        raise ReportError(
                            f"verification page: claim {claim.id} [{fw}-{dev}] is missing from "
                            "the report; run the claims"
                        )
                    else:
                        if rec["status"] != "skipped":  # fails on failed or stale results
                            rep.get(claim.id, fw, dev, where="verification page")
                        cells.append(summary(rec, lang).replace("|", "\\|").replace("\n", " "))
                out.append(f"| {first} | {FRAMEWORK_NAMES[fw]} | " + " | ".join(cells) + " |")
                first = ""
        out.append("")
    return "\n".join(out)
