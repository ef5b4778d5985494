"""Formatting primitives: bytes, seconds, ratios, escaping, environments, hosts, lists."""

from __future__ import annotations

import html
import re

from verified.pages.words import TEXT
from verified.versions import release, sort_key


def fmt_size(n: int, lang: str) -> str:
    """A size as Paddle's and PyTorch's docs write one: bytes under 1 KiB, else KiB or MiB."""
    if abs(n) < 2**10:
        return f"{n:,} {TEXT[lang]['bytes']}"
    if abs(n) < 2**20:
        return f"{n / 2**10:.2f} KiB"
    return f"{n / 2**20:.2f} MiB"


def fmt_bytes(n: int, lang: str) -> str:
    """An exact byte count (for tables that compare a measurement with its theory), with the
    size in KiB or MiB beside it when it is 1 KiB or more."""
    exact = f"{n:,} {TEXT[lang]['bytes']}"
    if abs(n) < 2**10:
        return exact
    return exact + TEXT[lang]["paren"].format(fmt_size(n, lang)).replace("(", " (", 1)


def fmt_value(value) -> str:
    if isinstance(value, float):
        return f"{value:.6g}"
    if isinstance(value, list):
        return "[" + ", ".join(fmt_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {fmt_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def fmt_seconds(s: float) -> str:
    if s >= 1:
        return f"{s:.2f} s"
    if s >= 1e-3:
        return f"{s * 1e3:.2f} ms"
    return f"{s * 1e6:.1f} µs"


def fmt_ratio(ratio: float, lang: str) -> str:
    return f"{ratio:.2f} 倍" if lang == "zh" else f"{ratio:.2f}×"


def escape(text: str) -> str:
    """HTML-escape, and keep Markdown from reading the text: brackets, pipes, stars,
    underscores, backticks and braces become character references."""
    out = html.escape(text, quote=True)
    for char in "[]|*_`{}\\":
        out = out.replace(char, f"&#{ord(char)};")
    return out


def cell(markdown: str) -> str:
    """Markdown text for a table cell: pipes escaped, line breaks joined."""
    return markdown.replace("|", "\\|").replace("\n", " ")


def code(text: str) -> str:
    return f"<code>{escape(text)}</code>"


def env_text(env: dict, lang: str) -> str:
    """One line: framework release, device (GPU name, CUDA), Python, date."""
    fw = env.get("framework")
    parts = [f"{fw} {release(env.get('version'))}" if fw else "?"]
    if env.get("device") == "gpu":
        gpu = env.get("gpu") or "GPU"
        sep = ", " if lang == "en" else "，"
        parts.append(f"{gpu}{sep}CUDA {env.get('cuda')}" if env.get("cuda") else gpu)
    else:
        machine = host_text(env, lang) if env.get("host") or env.get("cpu") else ""
        cpu = TEXT[lang]["paren"].format(machine) if machine else ""
        parts.append("CPU" + (" " + cpu if lang == "en" and cpu else cpu))
    if env.get("allocator"):
        parts.append(allocator_text(env, lang))
    parts.append(f"Python {env.get('python')}")
    parts.append((env.get("date") or "?")[:10])
    return ", ".join(parts) if lang == "en" else "，".join(parts)


def anchor(claim_id: str, framework: str | None = None) -> str:
    return "c-" + claim_id.replace(".", "-") + (f"-{framework}" if framework else "")


# -- fields ----------------------------------------------------------------------------------


def root_of(where: str) -> str:
    """``../`` for each folder between a page (``<lang>/<path>.md``) and its language's root."""
    return "../" * max(where.count("/") - 1, 0)


def _join(items: list[str], lang: str) -> str:
    t = TEXT[lang]
    if len(items) <= 1:
        return "".join(items)
    return t["list_sep"].join(items[:-1]) + t["and"] + items[-1]


BETWEEN_CJK = re.compile(r"(?<=[\u4e00-\u9fff]) (?=[\u4e00-\u9fff])")


def spaced(text: str) -> str:
    """A template's space around a name that is Chinese in Chinese text (飞桨) goes: no space
    between two Chinese characters."""
    return BETWEEN_CJK.sub("", text)


def span(versions: list[str]) -> str:
    ordered = sorted({release(v) for v in versions}, key=sort_key)
    if not ordered:
        return "?"
    return ordered[0] if len(ordered) == 1 else f"{ordered[0]}–{ordered[-1]}"


def env_short(env: dict, lang: str) -> str:
    """The environment in a table cell: release and date, the rest in the tooltip."""
    fw = env.get("framework") or "?"
    device = f" · {env.get('gpu')}" if env.get("device") == "gpu" and env.get("gpu") else ""
    shown = f"{fw} {release(env.get('version'))}{device} · {(env.get('date') or '?')[:10]}"
    title = escape(env_text(env, lang)).replace("&quot;", "'")
    return f'<span class="claim-env" title="{title}">{escape(shown)}</span>'


def host_text(env: dict, lang: str) -> str:
    """The machine a record ran on: processor, cores, C library, kernel (records from before
    hosts were recorded name the processor only)."""
    host = env.get("host")
    if not isinstance(host, dict):
        return str(env.get("cpu"))
    return TEXT[lang]["host"].format(
        cpu=host.get("cpu"),
        cores=host.get("cores"),
        libc=host.get("libc"),
        kernel=host.get("kernel"),
    )


def allocator_text(env: dict, lang: str) -> str | None:
    """The C allocator's settings the record's process ran with, or None if not recorded."""
    settings = env.get("allocator")
    if not isinstance(settings, dict):
        return None
    shown = " ".join(f"{k}={v}" for k, v in settings.items()) or TEXT[lang]["defaults"]
    return TEXT[lang]["allocator"].format(settings=shown)


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
