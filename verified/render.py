"""Rendering the reports into pages, in the page's language.

- ``{{ <id> | <framework>[@<device>] | <field> }}`` becomes what the run observed (see
  ``snippets/README.md`` for the fields). Every value links to its row on the verification
  page, with a tooltip naming the claim, framework, device and the environment it ran in;
- ``{{ verified }}`` becomes the line that says what the page was verified with;
- ``{{ verification-table }}`` the verification page: every claim with each result in its own
  environment, and the matrix of claims across framework releases;
- ``{{ silent-failures }}`` the table of every claim marked ``[[claim.silent]]``.

A placeholder that names a missing, failed, skipped or stale claim raises ReportError naming
the page and the claim (the MkDocs hook turns it into a build error).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass, field
from pathlib import Path

from verified.claims import FRAMEWORK_NAMES, FRAMEWORKS, ROOT, Claim
from verified.report import Entry, ReportError, Reports
from verified.versions import release, sort_key

PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<id>[a-z0-9][a-z0-9.-]*)\s*\|\s*(?P<fw>paddle|torch)(?:@(?P<dev>cpu|gpu))?\s*"
    r"\|\s*(?P<field>[a-z_]+)(?:\.(?P<key>[\w-]+))?\s*\}\}"
)
ANY_BRACES = re.compile(r"\{\{.*?\}\}")
BLOCK_FIELDS = {"output", "exception", "conditions"}
VALUE_FIELDS = {
    "type",
    "message",
    "value",
    "bytes",
    "theoretical",
    "mib",
    "ratio",
    "median_baseline",
    "median_candidate",
    "min_baseline",
    "min_candidate",
    "repeat",
    "expected",
    "noise",
    "env",
    "host",
}
TEXT_FIELDS = {"statement", "releases", "status"}
DIRECTIVES = ("verified", "verification-table", "silent-failures")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*(?:\{[^}]*\})?\s*$")
HEADING_ID = re.compile(r"\{[^}]*?#([^\s}]+)[^}]*\}\s*$")  # `## Title { #id }` (attr_list)
FENCE = re.compile(r"^\s*(```|~~~)")

TEXT = {
    "en": {
        "output": "Output",
        "message": "Message",
        "bytes": "bytes",
        "verified": "Verified by running the code: {live}{releases}. GPU: {gpu}. "
        "See the [verification report](verification.md).",
        "live": "{versions} on {device}, {date}",
        "releases": "; the same claims were also run on {ranges}",
        "gpu_none": "not run for this page",
        "gpu_some": "{runs}",
        "and": " and ",
        "list_sep": ", ",
        "colon": ": ",
        "paren": "({})",
        "fastest": "fastest runs",
        "medians": "medians",
        "allocator_defaults": "glibc's defaults (no allocator variable set)",
        "ran": "verified ({env})",
        "observed": " · observed: {value}",
        "not_run_because": "declared but not run here ({reason})",
        "dev": {"cpu": "CPU", "gpu": "GPU"},
        "status": {
            "passed": "passed",
            "failed": "failed",
            "skipped": "not run",
            "not-runnable": "not runnable",
            "stale": "stale",
        },
        "claim": "Claim",
        "framework": "Framework",
        "snippet": "Snippet and claims file",
        "shown_in": "Shown in",
        "statement": "Statement",
        "not_shown": "not shown on a page",
        "not_run": "GPU cases marked “— not run” were declared but not run, because:",
        "cpu_col": "CPU",
        "gpu_col": "GPU",
        "env": "ran with {env}",
        "tooltip": "Claim {id} · {framework} · {device} · {env} — click for the verification "
        "report",
        "source": "Claim {id} · {framework} · {device} · {env}",
        "environments": "Environments",
        "env_table": "| Report | Frameworks | Device | Python | Host | Generated |",
        "host": "{cpu}, {cores} cores, {libc}, {kernel}",
        "allocator": "allocator: {settings}",
        "defaults": "glibc defaults",
        "control": "control",
        "failed_value": "✗ failed on this machine: observed {observed}; expected {expected}",
        "failed_block": "This claim failed on this machine: {statement} Observed: {observed}. "
        "Expected: {expected}.",
        "banner_title": "Some results on this page failed on this machine",
        "banner": "The values marked ✗ did not come out as the page says when the claims ran "
        "here ({env}). The page shows what was observed. Rerun them with `{command}`; the "
        "[verification report]({root}verification.md) has the details.",
        "nothing_observed": "nothing (the snippet did not run to the end)",
        "conditions_head": "| Condition | Ratio | Control | Allocator settings of the process |",
        "condition": {
            "clean": "as declared",
            "perturbed": "after 16 MiB and 40 MiB tensors were allocated and freed",
            "shell": "started from a shell that sets {variables}",
        },
        "this_build": "this build",
        "matrix": "Across framework releases",
        "matrix_intro": "Each CPU claim of {framework}, run on each release. ✓ passed with the "
        "expectation of the pinned release; ≠ behaves differently, as the note says (the "
        "claim declares the difference for that range, and the run confirmed it); ⊘ cannot "
        "run on that release (the reason is noted); ✗ failed; ⟳ stale (the snippet, the claim "
        "or the engine changed since that run: it is not counted); · not run.",
        "notes": "Notes",
        "releases_field": "{framework} {holds}",
        "holds_all": "{ranges}",
        "differs": "; differs on {versions}: {note}",
        "unrunnable": "; cannot run on {versions}: {note}",
        "none": "none",
        "silent_symptom": "Symptom",
        "silent_affected": "Affected",
        "silent_section": "Shown in",
        "silent_fix": "Fix",
        "no_silent": "no silent failure in {framework} on this run",
    },
    "zh": {
        "output": "输出",
        "message": "报错信息",
        "bytes": "字节",
        "verified": "经实际运行代码验证：{live}{releases}。GPU 用例：{gpu}。详见[验证报告](verification.md)。",
        "live": "{versions}，{device}，{date}",
        "releases": "；同样的断言还在 {ranges} 上运行过",
        "gpu_none": "本次构建未运行",
        "gpu_some": "{runs}",
        "and": " 与 ",
        "list_sep": "、",
        "colon": "：",
        "paren": "（{}）",
        "fastest": "各自最快一次",
        "medians": "中位数",
        "allocator_defaults": "glibc 的默认设置（未设置任何分配器变量）",
        "ran": "已验证，运行环境为 {env}",
        "observed": " · 观测值：{value}",
        "not_run_because": "已声明，但本次构建没有运行（{reason}）",
        "dev": {"cpu": "CPU", "gpu": "GPU"},
        "status": {
            "passed": "通过",
            "failed": "失败",
            "skipped": "未运行",
            "not-runnable": "无法运行",
            "stale": "已过期",
        },
        "claim": "断言",
        "framework": "框架",
        "snippet": "代码片段与断言文件",
        "shown_in": "出现于",
        "statement": "结论",
        "not_shown": "未在页面中引用",
        "not_run": "标为“— 未运行”的 GPU 用例已声明，但没有运行，原因如下：",
        "cpu_col": "CPU",
        "gpu_col": "GPU",
        "env": "运行环境：{env}",
        "tooltip": "断言 {id} · {framework} · {device} · {env}（点击查看验证报告）",
        "source": "断言 {id} · {framework} · {device} · {env}",
        "environments": "运行环境",
        "env_table": "| 报告 | 框架 | 设备 | Python | 主机 | 生成时间 |",
        "host": "{cpu}，{cores} 核，{libc}，{kernel}",
        "allocator": "分配器：{settings}",
        "defaults": "glibc 默认设置",
        "control": "对照",
        "failed_value": "✗ 本机未通过：观测值 {observed}；预期 {expected}",
        "failed_block": "这条断言在本机上未通过：{statement}观测值：{observed}。预期：{expected}。",
        "banner_title": "本页有部分结果在本机上未通过",
        "banner": "标有 ✗ 的值在本机运行断言时与正文所说不符（{env}），页面显示的是实际观测值。"
        "可以用 `{command}` 重新运行；详见[验证报告]({root}verification.md)。",
        "nothing_observed": "无（代码片段没有运行到最后）",
        "conditions_head": "| 条件 | 比值 | 对照 | 进程实际使用的分配器设置 |",
        "condition": {
            "clean": "按声明运行",
            "perturbed": "先分配并释放 16 MiB 和 40 MiB 的张量之后",
            "shell": "从设置了 {variables} 的 shell 启动",
        },
        "this_build": "本次构建",
        "matrix": "各框架版本上的结果",
        "matrix_intro": "{framework} 的每条 CPU 断言在各个版本上的运行结果。✓ 通过，与锁定版本的预期一致；"
        "≠ 行为不同，见注释：断言为该版本范围声明了这一差异，运行结果证实了它；⊘ 在该版本上无法运行，"
        "注释说明原因；✗ 失败；⟳ 已过期：那次运行之后，代码片段、断言或引擎有改动，结果不计；· 未运行。",
        "notes": "注释",
        "releases_field": "{framework} {holds}",
        "holds_all": "{ranges}",
        "differs": "；在 {versions} 上不同：{note}",
        "unrunnable": "；在 {versions} 上无法运行：{note}",
        "none": "无",
        "silent_symptom": "症状",
        "silent_affected": "受影响的框架",
        "silent_section": "演示章节",
        "silent_fix": "修正方法",
        "no_silent": "本次运行中，{framework} 没有出现静默错误",
    },
}

# The frameworks as each language's prose names them (tabs keep FRAMEWORK_NAMES, their titles).
NAMES = {"en": FRAMEWORK_NAMES, "zh": {"paddle": "飞桨", "torch": "PyTorch"}}

ARTICLES = {
    "inplace": {"en": "In-place operations", "zh": "原位（Inplace）操作"},
    "accumulation": {"en": "Gradient accumulation", "zh": "梯度累积（又称梯度累加）"},
}


# -- formatting ---------------------------------------------------------------------------------


def fmt_bytes(n: int, lang: str) -> str:
    mib = n / 2**20
    unit = TEXT[lang]["bytes"]
    if lang == "zh":
        return f"{n:,} {unit}（{mib:.2f} MiB）"
    return f"{n:,} {unit} ({mib:.2f} MiB)"


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


def field_value(rec: dict, field_name: str, key: str | None, lang: str, label: str) -> str:
    """The HTML of one value field of a record (no provenance)."""
    observed = rec.get("observed") or {}
    if field_name in ("type", "message"):
        exc = observed.get("exception")
        if not exc:
            raise ReportError(f"{label}: the claim observed no exception")
        if field_name == "type":
            return code(exc["type"])
        lines = exc["message"].strip().splitlines()
        return code(lines[0] if lines else "")
    if field_name in ("bytes", "theoretical", "mib"):
        value = observed.get("theoretical_bytes" if field_name == "theoretical" else "bytes")
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                raise ReportError(f"{label}: no region {key!r} in {_keys(value)}")
            value = value[key]
        elif isinstance(value, dict):
            raise ReportError(f"{label}: name a region, one of {sorted(value)}")
        if not isinstance(value, int):
            raise ReportError(f"{label}: no byte count observed")
        if field_name == "mib":  # the articles' figure; the exact bytes are in the report
            return f"{value / 2**20:.2f} MiB"
        return fmt_bytes(value, lang)
    if field_name == "ratio":
        return fmt_ratio(observed["ratio"], lang)
    if field_name in ("median_baseline", "median_candidate", "min_baseline", "min_candidate"):
        if f"{field_name}_s" not in observed:
            raise ReportError(f"{label}: no {field_name} time observed")
        return fmt_seconds(observed[f"{field_name}_s"])
    if field_name == "noise":
        if not isinstance(observed.get("noise"), (int, float)):
            raise ReportError(f"{label}: no control observed")
        return fmt_ratio(observed["noise"], lang)
    if field_name == "env":
        settings = (rec.get("env") or {}).get("allocator")
        if not isinstance(settings, dict):
            raise ReportError(
                f"{label}: the record does not say which allocator settings it ran with"
            )
        if not settings:
            return TEXT[lang]["allocator_defaults"]
        return code(" ".join(f"{k}={v}" for k, v in settings.items()))
    if field_name == "host":  # the machine a figure shown only was measured on
        if not isinstance((rec.get("env") or {}).get("host"), dict):
            raise ReportError(f"{label}: the record does not name the machine it ran on")
        return escape(host_text(rec["env"], lang))
    if field_name == "repeat":
        if not isinstance(observed.get("repeat"), int):
            raise ReportError(f"{label}: no number of timed runs observed")
        return str(observed["repeat"])
    if field_name == "expected":
        expected = rec.get("expected") or {}
        if key is None or key not in expected:
            raise ReportError(f"{label}: name an expectation key, one of {sorted(expected)}")
        value = expected[key]
        if key.startswith("ratio_") or key in ("margin", "max_noise"):
            return fmt_ratio(value, lang)
        if key.startswith("tol_") and isinstance(value, int):
            return fmt_bytes(value, lang)
        return code(fmt_value(value))
    if field_name == "value":
        value = observed.get("value")
        if key is not None:
            if not isinstance(value, dict) or key not in value:
                raise ReportError(f"{label}: no key {key!r} in the observed value")
            value = value[key]
        return code(fmt_value(value))
    raise ReportError(f"{label}: unknown field {field_name!r}")


ENGLISH_PHRASE = re.compile(r"\b[A-Za-z]{2,} [A-Za-z]{2,}\b")
# True and False are Python in a Chinese sentence: a zh page says 是 and 否 (the raw value stays
# in the tooltip)
BOOLEANS = {"zh": {True: "是", False: "否"}}


def observed_value(rec: dict, key: str | None):
    value = (rec.get("observed") or {}).get("value")
    return value.get(key) if key is not None and isinstance(value, dict) else value


def value_words(folder: Path, lang: str) -> dict[str, str]:
    """English phrase -> its wording in ``lang``, for observed values shown on pages."""
    import tomllib

    path = folder / f"values.{lang}.toml"
    if not path.is_file():
        return {}
    try:
        table = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ReportError(f"{path}: {exc}") from None
    bad = [k for k, v in table.items() if not isinstance(v, str) or not v.strip()]
    if bad:
        raise ReportError(f"{path}: entries without a wording: {bad}")
    return table


def _keys(value) -> list:
    return sorted(value) if isinstance(value, dict) else []


def output_text(rec: dict) -> str:
    """What the snippet printed and, for an error, the exception's last traceback line."""
    observed = rec.get("observed") or {}
    text = observed.get("output", "").rstrip("\n")
    exc = observed.get("exception")
    if exc:
        shown = exc["message"].strip().splitlines()
        if len(shown) > 12:
            shown = shown[:12] + ["..."]
        text = (text + "\n" if text else "") + "Traceback (most recent call last):\n  ...\n"
        text += f"{exc['type']}: " + "\n".join(shown)
    return text


def exception_text(rec: dict, label: str) -> str:
    """The exception as the last lines of its traceback show it: ``Type: message``, with every
    line of the message (the ``message`` field shows the first line only)."""
    exc = (rec.get("observed") or {}).get("exception")
    if not exc:
        raise ReportError(f"{label}: the claim observed no exception")
    message = "\n".join(line.rstrip() for line in exc["message"].strip("\n").split("\n"))
    return f"{exc['type']}: {message}"


# -- one page ----------------------------------------------------------------------------------


@dataclass
class Page:
    """Renders the placeholders of one page (``where`` is its docs path, e.g. ``en/inplace.md``)."""

    reports: Reports
    lang: str
    where: str
    provenance: bool = True  # notebooks get the values without links to the site's report
    docs: Path = ROOT / "docs"
    claims_used: set = field(default_factory=set)
    failures: dict = field(default_factory=dict)  # case name -> the failed record it shows

    @property
    def t(self) -> dict:
        return TEXT[self.lang]

    @property
    def root(self) -> str:
        """The way up from the page to its language's root: links to the verification page
        are relative (``en/inplace/leaf-tensors.md`` -> ``../``)."""
        return root_of(self.where)

    def entry(self, match: re.Match) -> Entry:
        return self.reports.entry(match["id"], match["fw"], match["dev"] or "cpu", where=self.where)

    def render(self, markdown: str) -> str:
        self.claims_used = {m["id"] for m in PLACEHOLDER.finditer(markdown)}
        lines = []
        fence = None
        for line in markdown.split("\n"):
            stripped = line.strip()
            indent = line[: len(line) - len(line.lstrip())]
            opening = FENCE.match(line)
            if fence is None and opening and "{{" not in stripped:
                fence = opening[1]
            elif fence is not None and stripped.startswith(fence):
                fence = None
            if stripped == "{{ verification-table }}":
                lines.append(verification_page(self.reports, self.lang, self.docs))
                continue
            if stripped == "{{ silent-failures }}":
                lines.append(silent_table(self.reports, self.lang, self.docs))
                continue
            if stripped == "{{ verified }}":
                # the same words on every page, and the host and date of this build: out of
                # the search index (Material's attribute), so that no ranking depends on them
                lines.append(indent + self.verified_line())
                if self.provenance:
                    lines.append(indent + SEARCH_EXCLUDE)
                continue
            whole = PLACEHOLDER.fullmatch(stripped)
            if whole and whole["field"] in BLOCK_FIELDS:
                lines.extend(indent + ln for ln in self.block(whole).split("\n"))
                continue
            line = PLACEHOLDER.sub(self.inline, line)
            leftover = ANY_BRACES.search(line)
            if leftover and fence is None:
                raise ReportError(f"{self.where}: unrecognised placeholder {leftover[0]!r}")
            lines.append(line)
        if self.failures and self.provenance:  # a page of the site; a notebook has its own banner
            lines = self.with_banner(lines)
        return "\n".join(lines)

    def with_banner(self, lines: list[str]) -> list[str]:
        """The page with a warning under its title: which results failed on this machine."""
        env = next(iter(self.failures.values())).get("env") or {}
        names = sorted(self.failures)
        command = "python -m pytest snippets -k '" + " or ".join(names) + "'"
        banner = [
            f'!!! failure "{self.t["banner_title"]}"',
            "",
            "    "
            + self.t["banner"].format(
                env=env_text(env, self.lang), command=command, root=self.root
            ),
            "",
            *[f"    - `{name}`" for name in names],
            "",
        ]
        at = next((i + 1 for i, line in enumerate(lines) if line.startswith("# ")), 0)
        return [*lines[:at], "", *banner, *lines[at:]]

    def failed(self, entry: Entry, name: str, key: str | None, label: str) -> str:
        """A value of a claim that failed on this machine: what was observed, what was
        expected, marked, and linked to the verification report like any value."""
        rec = entry.rec
        self.failures[case_name_of(rec)] = rec
        try:
            observed = field_value(rec, name, key, self.lang, label)
        except (ReportError, KeyError, TypeError, IndexError):
            observed = escape(self.t["nothing_observed"])
        expected = code(fmt_value(rec.get("expected") or {}))
        shown = self.t["failed_value"].format(observed=observed, expected=expected)
        if not self.provenance:
            return shown
        return self.link(f'<span class="claim-failed">{shown}</span>', entry, name)

    def inline(self, match: re.Match) -> str:
        label = f"{self.where}: {match[0]}"
        name = match["field"]
        if name in BLOCK_FIELDS:
            raise ReportError(f"{self.where}: {match[0]} must stand alone on its line")
        if name == "statement":
            return claim_by_id(self.reports, match["id"], label).statement[self.lang]
        if name == "releases":
            return releases_text(self.reports, match["id"], match["fw"], self.lang, label)
        if name == "status":
            return status_text(self.reports, match, self.lang, label)
        if name not in VALUE_FIELDS:
            raise ReportError(f"{label}: unknown field {name!r}")
        entry = self.entry(match)
        if entry.status == "failed":
            return self.failed(entry, name, match["key"], label)
        shown = field_value(entry.rec, name, match["key"], self.lang, label)
        observed = None
        if name == "value" and self.lang != "en":
            raw = observed_value(entry.rec, match["key"])
            worded = self.worded(entry.rec, raw, label)
            if worded != raw:
                observed = fmt_value(raw)
                shown = escape(worded) if isinstance(worded, str) else code(fmt_value(worded))
        if not self.provenance:
            return shown
        key = f"{name}.{match['key']}" if match["key"] else name
        return self.link(shown, entry, key, observed)

    def worded(self, rec: dict, raw, label: str):
        """The observed value with every English phrase in it (an outcome such as "wrong
        gradient, no error", alone or inside a list or a dict) in the page language's words,
        from ``snippets/<article>/values.<lang>.toml``. Numbers, code and names stay as they
        are; so do dict keys, which name cases."""
        if isinstance(raw, list):
            return [self.worded(rec, item, label) for item in raw]
        if isinstance(raw, dict):
            return {k: self.worded(rec, v, label) for k, v in raw.items()}
        if isinstance(raw, bool):
            return BOOLEANS.get(self.lang, {}).get(raw, raw)
        if not isinstance(raw, str):
            return raw
        article = rec["id"].split(".", 1)[0]
        table = value_words(self.reports.snippets / article, self.lang)
        if raw in table:  # a phrase, or a single word the table words ("error")
            return table[raw]
        if not ENGLISH_PHRASE.search(raw):
            return raw
        if raw not in table:
            path = f"snippets/{article}/values.{self.lang}.toml"
            raise ReportError(
                f"{label}: the observed value {raw!r} is English: add its {self.lang} wording to "
                f'{path} ("{raw}" = "…"; the same text keeps it verbatim, as for a message)'
            )
        return table[raw]

    def tooltip(self, entry: Entry, template: str) -> str:
        rec = entry.rec
        return self.t[template].format(
            id=rec["id"],
            framework=NAMES[self.lang][rec["framework"]],
            device=self.t["dev"][rec["device"]],
            env=env_text(entry.env, self.lang),
        )

    def link(self, shown: str, entry: Entry, key: str, observed=None) -> str:
        """A value linked to its row of the verification report, with its provenance (and the
        raw observed value, when the page shows it in its own words)."""
        rec = entry.rec
        tooltip = self.tooltip(entry, "tooltip")
        if observed is not None:
            tooltip += self.t["observed"].format(value=observed)
        title = escape(tooltip).replace("&quot;", "'")
        return (
            f"[{shown}]({self.root}verification.md#{anchor(rec['id'], rec['framework'])})"
            f'{{ .claim-value title="{title}" data-claim="{rec["id"]}" '
            f'data-framework="{rec["framework"]}" data-device="{rec["device"]}" '
            f'data-field="{key}" }}'
        )

    def block(self, match: re.Match) -> str:
        entry = self.entry(match)
        name = match["field"]
        if entry.status == "failed":
            return self.failed_block(entry, name, f"{self.where}: {match[0]}")
        if name == "conditions":
            out = conditions_table(entry.rec, self.lang, f"{self.where}: {match[0]}")
        else:
            if name == "exception":
                label = f"{self.where}: {match[0]}"
                if match["key"]:
                    raise ReportError(f"{label}: the exception field takes no key")
                text = exception_text(entry.rec, label)
                # a block that wraps its lines (claims.css): the message, ready to compare or search
                opening = f'{{ .text .claim-message title="{self.t["message"]}" }}'
            else:
                text = output_text(entry.rec)
                opening = f'{{ .text .claim-output title="{self.t["output"]}" }}'
            fence = "````" if "```" in text else "```"
            out = f"{fence} {opening}\n{text}\n{fence}"
        if self.provenance:
            rec = entry.rec
            source = self.t["source"].format(
                id=escape(rec["id"]),
                framework=escape(NAMES[self.lang][rec["framework"]]),
                device=escape(self.t["dev"][rec["device"]]),
                # where and when it ran: left out of the search index, so that a section's
                # rank does not depend on the machine that built the site
                env=f'<span data-search-exclude="env">{escape(env_text(entry.env, self.lang))}</span>',
            )
            out += (
                f"\n\n[{source}]({self.root}verification.md#{anchor(rec['id'], rec['framework'])})"
                f'{{ .claim-source data-claim="{rec["id"]}" data-framework="{rec["framework"]}" '
                f'data-device="{rec["device"]}" data-field="{name}" }}'
            )
        return out

    def failed_block(self, entry: Entry, name: str, label: str) -> str:
        """A block of a claim that failed on this machine: a failure note, then the block as
        far as anything was observed."""
        rec = entry.rec
        self.failures[case_name_of(rec)] = rec
        claim = claim_by_id(self.reports, rec["id"], label)
        observed = str(rec.get("reason") or "")
        note = self.t["failed_block"].format(
            statement=claim.statement[self.lang],
            observed=escape(shorten(observed, 300)),
            expected=code(fmt_value(rec.get("expected") or {})),
        )
        out = [f'!!! failure "✗ {rec["id"]}"', "", "    " + note, ""]
        try:
            if name == "conditions":
                out.append(conditions_table(rec, self.lang, label))
            elif (rec.get("observed") or {}).get("output") or (rec.get("observed") or {}).get(
                "exception"
            ):
                text = output_text(rec)
                fence = "````" if "```" in text else "```"
                out.append(f'{fence}text title="{self.t["output"]}"\n{text}\n{fence}')
        except ReportError:
            pass  # nothing more was observed than the note says
        return "\n".join(out)

    def verified_line(self) -> str:
        line = verified_line(self.reports, self.lang, self.claims_used or None)
        return line.replace("](verification.md)", f"]({self.root}verification.md)")


# Material's documented way to leave a block out of the search index (attr_list's block syntax)
SEARCH_EXCLUDE = '{ data-search-exclude="verified" }'


def root_of(where: str) -> str:
    """``../`` for each folder between a page (``<lang>/<path>.md``) and its language's root."""
    return "../" * max(where.count("/") - 1, 0)


def case_name_of(rec: dict) -> str:
    return f"{rec['id']}[{rec['framework']}-{rec['device']}]"


def conditions_table(rec: dict, lang: str, label: str) -> str:
    """A timing case's ratio and control in every condition it was measured in."""
    t = TEXT[lang]
    conditions = (rec.get("observed") or {}).get("conditions")
    if not isinstance(conditions, dict) or not conditions:
        raise ReportError(f"{label}: the record has no conditions (not a timing claim?)")
    rows = [t["conditions_head"], "|---|---|---|---|"]
    for name, measured in conditions.items():
        if name.startswith("shell "):
            variables = code(name.removeprefix("shell "))
            shown = t["condition"]["shell"].format(variables=variables)
        else:
            shown = t["condition"].get(name, escape(name))
        settings = measured.get("allocator")
        allocator = (
            code(" ".join(f"{k}={v}" for k, v in settings.items()))
            if settings
            else t["defaults"]
            if isinstance(settings, dict)
            else "?"
        )
        ratio, noise = measured.get("ratio"), measured.get("noise")
        if not isinstance(ratio, (int, float)) or not isinstance(noise, (int, float)):
            raise ReportError(f"{label}: condition {name!r} observed no ratio and control")
        rows.append(
            f"| {shown} | {fmt_ratio(ratio, lang)} | {fmt_ratio(noise, lang)} | {allocator} |"
        )
    return "\n".join(rows)


def claim_by_id(reports: Reports, claim_id: str, label: str) -> Claim:
    for claim in reports.claims:
        if claim.id == claim_id:
            return claim
    raise ReportError(f"{label}: unknown claim {claim_id!r}")


# -- the "verified with" line --------------------------------------------------------------------


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


def verified_line(reports: Reports, lang: str, claim_ids: set | None = None) -> str:
    """What the page was verified with: the live run, the releases its claims were also run
    on (fresh records only), and whether its GPU cases ran."""
    t = TEXT[lang]
    ids = claim_ids or {c.id for c in reports.claims}
    live = [e for e in reports.live.entries() if e.rec["id"] in ids and not e.stale]
    if not live:
        raise ReportError(f"no fresh result in {reports.live.path.name} for this page's claims")
    cpu_env = next((e.env for e in live if e.rec["device"] == "cpu"), live[0].env)
    versions = _join(
        [
            f"{NAMES[lang][fw]} {release((cpu_env.get('versions') or {}).get(fw))}"
            for fw in FRAMEWORKS
        ],
        lang,
    )
    device = "CPU" + (" " if lang == "en" else "") + t["paren"].format(cpu_env.get("cpu"))
    date = max((e.env.get("date") or "") for e in live)[:10]
    ranges = []
    for fw in FRAMEWORKS:
        seen = [
            e.env.get("version")
            for r in reports.all
            for e in r.entries()
            if e.rec["id"] in ids
            and e.rec["framework"] == fw
            and e.rec["device"] == "cpu"
            and not e.stale
            and e.status != "failed"
        ]
        if len({release(v) for v in seen}) > 1:
            ranges.append(f"{NAMES[lang][fw]} {span(seen)}")
    releases = t["releases"].format(ranges=_join(ranges, lang)) if ranges else ""
    gpu_runs = sorted(
        {
            f"{NAMES[lang][e.rec['framework']]} {release(e.env.get('version'))}"
            + (" " if lang == "en" else "")
            + t["paren"].format(e.env.get("gpu"))
            for r in reports.all
            for e in r.entries()
            if e.rec["id"] in ids and e.rec["device"] == "gpu" and e.status == "passed"
        }
    )
    gpu = _join(gpu_runs, lang) if gpu_runs else t["gpu_none"]
    live_text = t["live"].format(versions=versions, device=device, date=date)
    return "*" + spaced(t["verified"].format(live=live_text, releases=releases, gpu=gpu)) + "*"


def status_text(reports: Reports, match: re.Match, lang: str, label: str) -> str:
    """Whether a case ran, in words: for sentences about a device a run may not have had
    ("on the GPU: not run here, because …"). Failed and stale results fail the build."""
    t = TEXT[lang]
    device = match["dev"] or "cpu"
    entries = reports.entries_for(match["id"], match["fw"], device)
    passed = [e for e in entries if e.status == "passed"]
    if passed:
        entry = max(passed, key=lambda e: e.env.get("date") or "")
        return t["ran"].format(env=env_text(entry.env, lang))
    skipped = [e for e in entries if e.status == "skipped"]
    if skipped:
        return t["not_run_because"].format(reason=escape(skip_text(skipped[0].rec, lang)))
    raise ReportError(
        f"{label}: claim {match['id']} [{match['fw']}-{device}] has no passed or skipped result"
    )


# -- version notes in prose ------------------------------------------------------------------------


def release_results(reports: Reports, claim_id: str, framework: str) -> dict[str, Entry]:
    """Release -> the fresh CPU entry of a claim, across the live and environment reports."""
    found: dict[str, Entry] = {}
    for entry in reports.entries_for(claim_id, framework, "cpu"):
        if entry.stale:
            continue
        version = release(entry.env.get("version"))
        found.setdefault(version, entry)
    return dict(sorted(found.items(), key=lambda kv: sort_key(kv[0])))


def releases_text(reports: Reports, claim_id: str, framework: str, lang: str, label: str) -> str:
    """Where a claim holds as stated, and where (and how) it differs: for a sentence such as
    "in Paddle before 3.0 …". Every release counted is a fresh record that passed, or that
    was confirmed not runnable."""
    t = TEXT[lang]
    results = release_results(reports, claim_id, framework)
    if not results:
        raise ReportError(f"{label}: no fresh CPU result for {claim_id} [{framework}]")
    failed = [v for v, e in results.items() if e.status == "failed"]
    if failed:
        raise ReportError(f"{label}: {claim_id} [{framework}] failed on {', '.join(failed)}")
    holds = [v for v, e in results.items() if e.status == "passed" and not e.rec.get("override")]
    text = t["releases_field"].format(
        framework=NAMES[lang][framework], holds=span(holds) if holds else t["none"]
    )
    groups: dict[tuple[str, str], list[str]] = {}
    for version, entry in results.items():
        override = entry.rec.get("override")
        if override:
            kind = "unrunnable" if entry.status == "not-runnable" else "differs"
            note = override["note"][lang].rstrip("。.")  # the page's sentence ends it
            groups.setdefault((kind, note), []).append(version)
    for (kind, note), versions in groups.items():
        text += t[kind].format(versions=_join(versions, lang), note=note)
    return text


# -- the verification page ---------------------------------------------------------------------


def sections_of(page: Path):
    """(heading, anchor, line) for every line of a page outside code fences; heading and
    anchor are those of the section the line belongs to (its H1 until the first H2: a
    page's opening conclusion belongs to the page's title)."""
    from pymdownx.slugs import slugify

    slug = slugify(case="lower")
    heading, ident, seen_ids, fence = "", "", {}, None
    for line in page.read_text(encoding="utf-8").split("\n"):
        opening = FENCE.match(line)
        if fence is None and opening:
            fence = opening[1]
            continue
        if fence is not None:
            if line.strip().startswith(fence):
                fence = None
            continue
        match = HEADING.match(line)
        if match:
            heading = re.sub(r"`([^`]*)`", r"\1", match[2])
            explicit = HEADING_ID.search(line)
            if explicit:  # the id the page gives the heading
                ident = explicit[1]
            else:
                base = slug(heading, "-")
                count = seen_ids.get(base, 0)
                seen_ids[base] = count + 1
                ident = base if count == 0 else f"{base}_{count}"
        yield heading, ident, line


GENERATED = ("notebooks", "figures")  # folders of docs/<lang>/ written by the build


def pages_of(docs: Path, lang: str) -> list[Path]:
    """The Markdown pages of a language, sub-pages of sections included, in path order."""
    root = docs / lang
    return sorted(p for p in root.rglob("*.md") if p.relative_to(root).parts[0] not in GENERATED)


def statement_sections(docs: Path, lang: str) -> dict[str, list[tuple[str, str, str]]]:
    """Claim id -> [(page, heading, anchor)] of every section of a page that uses it; the page
    relative to ``docs/<lang>/`` (``inplace/leaf-tensors.md``)."""
    found: dict[str, list[tuple[str, str, str]]] = {}
    for page in pages_of(docs, lang):
        name = page.relative_to(docs / lang).as_posix()
        for heading, ident, line in sections_of(page):
            for m in PLACEHOLDER.finditer(line):
                where = (name, heading, ident)
                if where not in found.setdefault(m["id"], []):
                    found[m["id"]].append(where)
    return found


def anchors_of(page: Path) -> list[str]:
    """The anchors of a page's sections, in order."""
    anchors: list[str] = []
    for _heading, ident, _line in sections_of(page):
        if ident and (not anchors or anchors[-1] != ident):
            anchors.append(ident)
    return anchors


def article_pages(docs: Path, article: str, lang: str = "en") -> list[str]:
    """An article's pages relative to ``docs/<lang>/``: ``<article>.md``, or the pages of the
    section ``<article>/``, its overview ``index.md`` first."""
    if (docs / lang / f"{article}.md").is_file():
        return [f"{article}.md"]
    folder = docs / lang / article
    pages = sorted(p.relative_to(docs / lang).as_posix() for p in folder.glob("*.md"))
    return sorted(pages, key=lambda page: not page.endswith("/index.md"))


def section_in(docs: Path, article: str, section: str, lang: str) -> tuple[str, str]:
    """The page and anchor of a section in the pages of ``lang``. Claims name sections by
    their English anchor, found on one page of the article (or of its section); the other
    language's page of the same path has the same sections in the same order (the parity test
    keeps it so), with its own anchors (Chinese headings make Chinese anchors)."""
    pages = article_pages(docs, article)
    holders = [p for p in pages if section in anchors_of(docs / "en" / p)]
    if not holders:
        where = pages[0] if pages == [f"{article}.md"] else f"{article}/"
        raise ReportError(f"silent failures: no section #{section} in docs/en/{where}")
    if len(holders) > 1:
        raise ReportError(
            f"silent failures: section #{section} is on several pages of docs/en/{article}: "
            + ", ".join(holders)
        )
    page = holders[0]
    english = anchors_of(docs / "en" / page)
    if lang == "en":
        return page, section
    here = anchors_of(docs / lang / page)
    if len(here) != len(english):
        raise ReportError(
            f"silent failures: docs/{lang}/{page} has {len(here)} sections, "
            f"docs/en/{page} {len(english)}"
        )
    return page, here[english.index(section)]


SKIP_TEXT = {
    "en": {
        "no_cuda": "torch {version}: torch.cuda.is_available() is False on this machine",
        "cpu_build": "paddle {version} is a CPU build "
        "(paddle.device.is_compiled_with_cuda() is False)",
        "no_device": "paddle {version}: no CUDA device visible",
        "not_installed": "not installed on the machine of the GPU run (python3 -m verified.gpu), "
        "where only the other framework ran",
    },
    "zh": {
        "no_cuda": "torch {version}：本机上 torch.cuda.is_available() 为 False",
        "cpu_build": "paddle {version} 是 CPU 版本，paddle.device.is_compiled_with_cuda() 为 False",
        "no_device": "paddle {version}：没有可见的 CUDA 设备",
        "not_installed": "进行 GPU 运行（python3 -m verified.gpu）的机器上没有安装，那里只运行了另一个框架",
    },
}


UNMEASURABLE = re.compile(
    r"^paddle (?P<version>\S+) has no host allocator statistics to measure with "
    r"\((?P<missing>.*) missing\)$"
)


def unrunnable_text(rec: dict, lang: str) -> str:
    """Why a case could not run, in the page's language: the engine's own reason (a release
    without allocator statistics) is worded per language; a snippet's error stays verbatim."""
    reason = str(rec.get("reason"))
    match = UNMEASURABLE.match(reason)
    if match and lang == "zh":
        return f"飞桨 {match['version']} 没有可用于测量的主机分配器统计（缺少 {match['missing']}）"
    return reason


def skip_text(rec: dict, lang: str) -> str:
    """Why a case was skipped, in the page's language."""
    skip = rec.get("skip") or {}
    template = SKIP_TEXT[lang].get(skip.get("code"))
    if template is None:
        return str(rec.get("reason"))
    return template.format(version=skip.get("version"))


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


def summary(entry: Entry, lang: str) -> str:
    """One table cell: status, what was observed (shortened), and the environment."""
    t = TEXT[lang]
    rec, status = entry.rec, entry.status
    env = env_short(entry.env, lang)
    if status == "skipped":
        return f"— {t['status']['skipped']}"
    if status == "stale":
        return f"⟳ {t['status']['stale']}{t['colon']}{escape(stale_text(entry.stale, lang))}"
    if status == "failed":
        return f"✗ {t['status']['failed']}: {escape(str(rec.get('reason') or '')[:200])}<br>{env}"
    if status == "not-runnable":
        reason = escape(unrunnable_text(rec, lang)[:200])
        return f"⊘ {t['status']['not-runnable']}{t['colon']}{reason}<br>{env}"
    obs = rec.get("observed") or {}
    kind = rec["kind"]
    if kind == "error":
        exc = obs["exception"]
        shown = code(shorten(exc["type"] + ": " + exc["message"].strip().splitlines()[0], 140))
    elif kind in ("value", "behaviour", "measurement"):
        shown = code(shorten(fmt_value(obs.get("value")), 140))
    elif kind == "memory":
        got, theo = obs["bytes"], obs["theoretical_bytes"]
        if isinstance(got, dict):
            # region names are identifiers from claims.toml: shown as code, in every language
            shown = "<br>".join(f"{code(k)}: {got[k]:,} / {theo[k]:,}" for k in got)
        else:
            shown = f"{got:,} / {theo:,}"
        shown += " " + ("B (measured / theoretical)" if lang == "en" else "字节（实测 / 理论值）")
    else:
        which = "min" if obs.get("statistic") == "min" else "median"
        times = (
            f"{fmt_seconds(obs[f'{which}_baseline_s'])} / "
            f"{fmt_seconds(obs[f'{which}_candidate_s'])}"
        )
        label = t["fastest"] if which == "min" else t["medians"]
        shown = fmt_ratio(obs["ratio"], lang) + (" " if lang == "en" else "")
        control = ""
        if isinstance(obs.get("noise"), (int, float)):
            control = f"{t['list_sep']}{t['control']} {fmt_ratio(obs['noise'], lang)}"
        shown += t["paren"].format(f"{label}{t['colon']}{times}{control}")
    allocator = allocator_text(entry.env, lang)
    if allocator and (kind == "timing" or entry.env.get("allocator")):
        env += f"<br>{escape(allocator)}"
    return f"✓ {shown}<br>{env}"


STALE_TEXT = {  # the reasons verified.report.staleness gives, in the other languages
    "zh": {
        "the claim or this framework/device no longer exists": "这条断言或这个框架、设备已不存在",
        "the engine code changed since it ran": "那次运行之后，引擎代码有改动",
        "the snippet, a file it reads or the expectation changed since it ran": (
            "那次运行之后，代码片段、它读取的文件或预期有改动"
        ),
        "its hash does not match the current sources": "它的哈希值与当前源文件不符",
    }
}
RAN_ON = re.compile(r"^ran on (?P<framework>\S+) (?P<ran>\S+), expected (?P<expected>\S+)$")


def stale_text(reason: str, lang: str) -> str:
    """Why a record is stale, in the page's language (the report words it in English)."""
    if lang == "en":
        return reason
    table = STALE_TEXT.get(lang, {})
    if reason in table:
        return table[reason]
    match = RAN_ON.match(reason)
    if match and lang == "zh":
        return f"运行于 {match['framework']} {match['ran']}，应为 {match['expected']}"
    return reason


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def verification_page(reports: Reports, lang: str, docs: Path) -> str:
    t = TEXT[lang]
    sections = statement_sections(docs, lang)
    out = [f"## {t['environments']}", "", t["env_table"], "|---|---|---|---|---|---|"]
    for report in reports.all:
        envs = {
            (
                tuple(sorted((e.env.get("versions") or {}).items())),
                e.env.get("device"),
                e.env.get("gpu"),
                e.env.get("python"),
                host_text(e.env, lang),
            )
            for e in report.entries()
            if e.rec["status"] != "skipped"
        }
        name = t["this_build"] if report is reports.live else report.name
        for versions, device, gpu, python, cpu in sorted(envs, key=str):
            frameworks = t["list_sep"].join(f"{fw} {release(v)}" for fw, v in versions if v)
            shown_device = t["dev"][device]
            if device == "gpu" and gpu:
                shown_device += (" " if lang == "en" else "") + t["paren"].format(gpu)
            out.append(
                f"| {escape(name)} | {frameworks} | {escape(shown_device)} | {python} | "
                f"{escape(str(cpu))} | {report.data.get('generated', '')[:16]} |"
            )
    reasons = sorted(
        {
            (e.rec["framework"], skip_text(e.rec, lang))
            for r in reports.all
            for e in r.entries()
            if e.rec["status"] == "skipped"
        }
    )
    if reasons:
        out += ["", t["not_run"], ""]
        out += [f"- {NAMES[lang][fw]}{t['colon']}{escape(reason)}" for fw, reason in reasons]
    out.append("")
    claims = reports.claims
    for article in sorted({c.article for c in claims}):
        title = ARTICLES.get(article, {}).get(lang, article)
        index = article_pages(docs, article, lang)[0]  # the article, or its overview
        out += [f"## [{title}]({index})", ""]
        out.append(
            f"| {t['claim']} | {t['framework']} | {t['snippet']} | {t['cpu_col']} | "
            f"{t['gpu_col']} |"
        )
        out.append("|---|---|---|---|---|")
        for claim in (c for c in claims if c.article == article):
            used = sections.get(claim.id, [])
            shown_in = (
                "<br>".join(f"[{cell(h)}]({p}#{a})" for p, h, a in used) if used else t["not_shown"]
            )
            first = (
                f'<a id="{anchor(claim.id)}"></a>`{claim.id}`<br>'
                f"{cell(claim.statement[lang])}<br>{t['shown_in']}{t['colon']}{shown_in}"
            )
            for fw in FRAMEWORKS:
                cells = []
                case_files = None
                for dev in ("cpu", "gpu"):
                    if dev not in claim.devices:
                        cells.append("—")
                        continue
                    entries = reports.entries_for(claim.id, fw, dev)
                    if dev == "cpu":
                        entries = [e for e in entries if e.report is reports.live]
                    if not entries:
                        raise ReportError(
                            f"verification page: claim {claim.id} [{fw}-{dev}] is missing from "
                            "the report; run the claims"
                        )
                    passed = [e for e in entries if e.status == "passed"]
                    shown = passed or entries
                    cells.append("<br>".join(summary(e, lang) for e in shown))
                    case_files = case_files or shown[0].rec.get("files")
                files = [f"`{f}`" for f in (case_files or [])]
                files.append(f"`{claim.path.parent.name}/claims.toml`")
                fw_cell = f'<a id="{anchor(claim.id, fw)}"></a>{NAMES[lang][fw]}'
                out.append(
                    f"| {first} | {fw_cell} | {'<br>'.join(files)} | " + " | ".join(cells) + " |"
                )
                first = ""
        out.append("")
    out += release_matrix(reports, lang)
    return "\n".join(out)


MARKS = {"passed": "✓", "differs": "≠", "not-runnable": "⊘", "failed": "✗", "stale": "⟳"}


def release_matrix(reports: Reports, lang: str) -> list[str]:
    """Claims × framework releases, one table per framework, with numbered notes."""
    t = TEXT[lang]
    out = [f"## {t['matrix']}", ""]
    for fw in FRAMEWORKS:
        by_release: dict[str, dict[str, Entry]] = {}
        for report in reports.all:
            for entry in report.entries():
                rec = entry.rec
                if rec["framework"] != fw or rec["device"] != "cpu":
                    continue
                version = release(entry.env.get("version"))
                by_release.setdefault(version, {}).setdefault(rec["id"], entry)
        versions = sorted(by_release, key=sort_key)
        out += [
            f"### {NAMES[lang][fw]}",
            "",
            spaced(t["matrix_intro"].format(framework=NAMES[lang][fw])),
            "",
        ]
        out.append(f"| {t['claim']} | " + " | ".join(versions) + " |")
        out.append("|---|" + "---|" * len(versions))
        notes: list[str] = []
        for claim in reports.claims:
            if "cpu" not in claim.devices:
                continue
            cells = []
            for version in versions:
                entry = by_release[version].get(claim.id)
                if entry is None:
                    cells.append("·")
                    continue
                status = entry.status
                note = None
                if status == "passed" and entry.rec.get("override"):
                    status, note = "differs", cell(entry.rec["override"]["note"][lang])
                elif status == "not-runnable":
                    override = entry.rec.get("override")
                    reason = escape(unrunnable_text(entry.rec, lang))
                    note = cell(override["note"][lang]) if override else reason
                elif status == "failed":
                    note = escape(str(entry.rec.get("reason"))[:300])
                elif status == "stale":
                    note = escape(stale_text(entry.stale, lang))
                mark = MARKS.get(status, status)
                if note:
                    if note not in notes:
                        notes.append(note)
                    mark += f"<sup>{notes.index(note) + 1}</sup>"
                cells.append(mark)
            link = f"[`{claim.id}`](#{anchor(claim.id)})"
            out.append(f"| {link} | " + " | ".join(cells) + " |")
        out.append("")
        if notes:
            out.append(f"**{t['notes']}**")
            out.append("")
            out += [f"{i}. {note}" for i, note in enumerate(notes, start=1)]
            out.append("")
    return out


# -- the silent-failures page ---------------------------------------------------------------------


def silent_rows(reports: Reports) -> list[tuple[Claim, dict, list[str]]]:
    """(claim, silent row, affected frameworks) for every [[claim.silent]]; the frameworks are
    those whose passed live record observed the fact as true."""
    rows = []
    for claim in reports.claims:
        for row in claim.silent:
            affected = []
            for fw in FRAMEWORKS:
                rec = reports.get(claim.id, fw, "cpu", where="silent failures")
                value = (rec.get("observed") or {}).get("value") or {}
                if value.get(row["fact"]) is True:
                    affected.append(fw)
            rows.append((claim, row, affected))
    return rows


def silent_table(reports: Reports, lang: str, docs: Path) -> str:
    t = TEXT[lang]
    out = [
        f"| {t['silent_symptom']} | {t['silent_affected']} | {t['silent_section']} | "
        f"{t['silent_fix']} |",
        "|---|---|---|---|",
    ]
    sections = None
    for claim, row, affected in silent_rows(reports):
        if sections is None:
            sections = statement_sections(docs, lang)
        page, anchor_here = section_in(docs, claim.article, row["section"], lang)
        heading = next(
            (h for p, h, a in sections.get(claim.id, []) if (p, a) == (page, anchor_here)), None
        )
        if heading is None:
            raise ReportError(
                f"silent failures: claim {claim.id} names section {row['section']!r}, which "
                f"does not use it in docs/{lang}/{page}"
            )
        names = []
        for fw in affected:
            names.append(f"[{NAMES[lang][fw]}](verification.md#{anchor(claim.id, fw)})")
        shown = (t["list_sep"]).join(names) or t["none"]
        out.append(
            f"| {cell(row['symptom'][lang])} | {shown} | "
            f"[{cell(heading)}]({page}#{anchor_here}) | "
            f"{cell(row['fix'][lang])} |"
        )
    return "\n".join(out)


def render(
    markdown: str,
    lang: str,
    where: str,
    reports: Reports,
    *,
    provenance: bool = True,
    docs: Path = ROOT / "docs",
) -> str:
    return Page(reports, lang, where, provenance, docs).render(markdown)


# -- Chinese soft line breaks ----------------------------------------------------------------

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
