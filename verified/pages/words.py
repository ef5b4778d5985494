"""Words per language: the site's own text, the frameworks' names, the articles' titles,
and the wording of the engine's reasons (skips, staleness, releases that cannot run)."""

from __future__ import annotations

import re

from verified.claims import FRAMEWORK_NAMES

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
        "and": " and ",
        "list_sep": ", ",
        "range": "{low} to {high}",
        "words_and": " and ",
        "colon": ": ",
        "paren": "({})",
        "fastest": "fastest runs",
        "medians": "medians",
        "shown_only": "measured here, shown only: nothing about it is asserted",
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
        "not_shown": "not shown on a page",
        "not_run": "GPU cases marked “— not run” were declared but not run, because:",
        "cpu_col": "CPU",
        "gpu_col": "GPU",
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
        "stale_value": "✗ stale (not rerun since a change: {why}): last observed {observed}; "
        "expected {expected}",
        "not_run_value": "✗ not run on this machine ({why}); expected {expected}",
        "marked": "✗ {framework}, {device}: {status}: {why}",
        "marked_status": {
            "failed": "failed on this machine",
            "stale": "stale",
            "skipped": "not run on this machine",
            "not-runnable": "not runnable",
        },
        "failed_records": "{count} result(s) of this build failed, are stale or did not run",
        "failed_records_intro": "The pages that rest on them mark them ✗; rerun them with "
        "`{command}`.",
        "failed_block": "This claim failed on this machine: {statement} Observed: {observed}. "
        "Expected: {expected}.",
        "banner_title": "Some results on this page failed, are stale or did not run on this "
        "machine",
        "banner": "What is marked ✗ rests on results that did not come out as the page says when "
        "the claims ran here ({env}): each mark says what was observed, or why nothing new "
        "was. Rerun them with `{command}`; the [verification report]({root}verification.md) "
        "has the details.",
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
        "differs": "; differs on {versions}: {note}",
        "unrunnable": "; cannot run on {versions}: {note}",
        "none": "none",
        "silent_symptom": "Symptom",
        "silent_affected": "Affected",
        "silent_section": "Shown in",
        "silent_fix": "Fix",
    },
    "zh": {
        "output": "输出",
        "message": "报错信息",
        "bytes": "字节",
        "verified": "经实际运行代码验证：{live}{releases}。GPU 用例：{gpu}。详见[验证报告](verification.md)。",
        "live": "{versions}，{device}，{date}",
        "releases": "；同样的断言还在 {ranges} 上运行过",
        "gpu_none": "本次构建未运行",
        "and": " 与 ",
        "list_sep": "、",
        "range": "{low} 到 {high}",
        "words_and": " 和 ",
        "colon": "：",
        "paren": "（{}）",
        "fastest": "各自最快一次",
        "medians": "中位数",
        "shown_only": "本机实测，仅作展示，不作断言",
        "allocator_defaults": "glibc 的默认设置（未设置任何分配器变量）",
        "ran": "已验证，运行环境为 {env}",
        "observed": " · 观测值：{value}",
        "not_run_because": "已声明，但本次构建没有运行，因为 {reason}",  # no brackets: it often stands inside some
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
        "not_shown": "未在页面中引用",
        "not_run": "标为“— 未运行”的 GPU 用例已声明，但没有运行，原因如下：",
        "cpu_col": "CPU",
        "gpu_col": "GPU",
        "tooltip": "断言 {id} · {framework} · {device} · {env}（点击查看验证报告）",
        "source": "断言 {id} · {framework} · {device} · {env}",
        "environments": "运行环境",
        "env_table": "| 报告 | 框架 | 设备 | Python | 主机 | 生成时间 |",
        "host": "{cpu}，{cores} 核，{libc}，{kernel}",
        "allocator": "分配器：{settings}",
        "defaults": "glibc 默认设置",
        "control": "对照",
        "failed_value": "✗ 本机未通过：观测值 {observed}；预期 {expected}",
        "stale_value": "✗ 已过期（改动后未重新运行：{why}）：上次观测值 {observed}；预期 {expected}",
        "not_run_value": "✗ 本机未运行（{why}）；预期 {expected}",
        "marked": "✗ {framework}，{device}：{status}：{why}",
        "marked_status": {
            "failed": "在本机上未通过",
            "stale": "已过期",
            "skipped": "在本机上未运行",
            "not-runnable": "无法运行",
        },
        "failed_records": "本次构建有 {count} 个结果未通过、已过期或未运行",
        "failed_records_intro": "引用它们的页面都用 ✗ 标出；可以用 `{command}` 重新运行。",
        "failed_block": "这条断言在本机上未通过：{statement}观测值：{observed}。预期：{expected}。",
        "banner_title": "本页有部分结果在本机上未通过、已过期或未运行",
        "banner": "标有 ✗ 的内容所依据的结果在本机运行断言时与正文所说不符（{env}）：每处标记都注明了实际"
        "观测值，或没有新结果的原因。可以用 `{command}` 重新运行；详见[验证报告]({root}verification.md)。",
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
        "differs": "；在 {versions} 上不同：{note}",
        "unrunnable": "；在 {versions} 上无法运行：{note}",
        "none": "无",
        "silent_symptom": "症状",
        "silent_affected": "受影响的框架",
        "silent_section": "演示章节",
        "silent_fix": "修正方法",
    },
}

# The frameworks as each language's prose names them (tabs keep FRAMEWORK_NAMES, their titles).
NAMES = {"en": FRAMEWORK_NAMES, "zh": {"paddle": "飞桨", "torch": "PyTorch"}}

ARTICLES = {
    "inplace": {"en": "In-place operations", "zh": "原位（Inplace）操作"},
    "accumulation": {"en": "Gradient accumulation", "zh": "梯度累积（又称梯度累加）"},
}


# True and False are Python in a Chinese sentence: a zh page says 是 and 否 (the raw value stays
# in the tooltip)
BOOLEANS = {"zh": {True: "是", False: "否"}}


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


# -- values as words of their sentence -----------------------------------------------------------
#
# A value placeholder may end with one filter that says the observed value in the sentence's own
# words, declared where the sentence is written (the page, in its language):
#
#   {{ c | paddle | value.raised | yesno("会报错", "不报错") }}      a boolean
#   {{ c | torch | value.ended | words({"a": 1} = "…", [] = "…") }}  any value, each declared
#   {{ c | paddle | value.changed | each(true = "每次都改变") }}       a list or dict whose every
#                                                                    element is that value
#   {{ c | torch | value.low | to(value.high) }}                      a range: "3 到 5", or "3"
#   {{ c | torch | value.norms | at("clean window") }}                one entry of a dict
#
# A value the filter does not declare stops the build, naming the page and the placeholder: the
# wording can never outlive the observation it stands for. Without a filter, a list of names
# reads as names joined by the language's "and" ("`a`、`b` 和 `c`"); numbers, a list of numbers
# (a tensor's) and code stay as observed.

FILTERS = ("yesno", "words", "each", "to", "at")
FIELD_REF = re.compile(r"[a-z_]+(?:\.[\w-]+)?")


class WordingError(ValueError):
    """A filter that cannot be read, or that does not word the observed value."""


def parse_filter_args(text: str) -> list:
    """The arguments of a filter: JSON values, ``VALUE = "phrase"`` pairs (as tuples) or bare
    field names (``value.high``), separated by commas."""
    import json

    decoder = json.JSONDecoder()
    args: list = []
    pos, n = 0, len(text)

    def skip(p: int) -> int:
        while p < n and text[p].isspace():
            p += 1
        return p

    def one(p: int):
        p = skip(p)
        if p < n and (m := FIELD_REF.match(text, p)) and m[0] not in ("true", "false", "null"):
            return ("field", m[0]), m.end()
        try:
            return decoder.raw_decode(text, p)
        except json.JSONDecodeError as exc:
            raise WordingError(f"cannot read {text[p:]!r}: {exc.msg}") from None

    pos = skip(pos)
    while pos < n:
        value, pos = one(pos)
        pos = skip(pos)
        if pos < n and text[pos] == "=":
            phrase, pos = one(pos + 1)
            if not isinstance(phrase, str) or not phrase.strip():
                raise WordingError(f"the wording of {value!r} must be a non-empty string")
            value = (value, phrase)
            pos = skip(pos)
        args.append(value)
        if pos < n:
            if text[pos] != ",":
                raise WordingError(f"expected ',' at {text[pos:]!r}")
            pos = skip(pos + 1)
    return args


def words_same(a, b) -> bool:
    """Equal as JSON values (True is not 1, 1 is not 1.0)."""
    import json

    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _every(value, wanted) -> bool:
    if words_same(value, wanted):
        return True
    if isinstance(value, list) and value:
        return all(_every(v, wanted) for v in value)
    if isinstance(value, dict) and value:
        return all(_every(v, wanted) for v in value.values())
    return False


def word_value(name: str, args: list, value) -> str:
    """The phrase a ``yesno``, ``words`` or ``each`` filter declares for the observed value."""
    if name == "yesno":
        if len(args) != 2 or not all(isinstance(a, str) and a.strip() for a in args):
            raise WordingError('yesno takes two phrases: yesno("if true", "if false")')
        if not isinstance(value, bool):
            raise WordingError(f"yesno words a boolean; the observed value is {value!r}")
        return args[0] if value else args[1]
    pairs = [a for a in args if isinstance(a, tuple) and a[0] != "field"]
    if not pairs or len(pairs) != len(args):
        raise WordingError(f'{name} takes VALUE = "phrase" pairs, e.g. {name}(true = "…")')
    for wanted, phrase in pairs:
        if words_same(value, wanted) if name == "words" else _every(value, wanted):
            return phrase
    declared = ", ".join(repr(w) for w, _ in pairs)
    raise WordingError(
        f"{name}(…) words {declared}, not the observed value {value!r}: word it, or say what "
        "changed"
    )


def is_names(value) -> bool:
    """A non-empty list of strings: names to join in words (a list of numbers is a tensor's)."""
    return isinstance(value, list) and bool(value) and all(isinstance(v, str) for v in value)


def join_words(items: list[str], lang: str) -> str:
    """``a``, ``a and b``, ``a, b and c`` in the language's words."""
    t = TEXT[lang]
    if len(items) <= 1:
        return "".join(items)
    return t["list_sep"].join(items[:-1]) + t["words_and"] + items[-1]


def value_range(low: str, high: str, same: bool, lang: str) -> str:
    """``low`` to ``high``, or the one value when both ends are the same."""
    return low if same else TEXT[lang]["range"].format(low=low, high=high)
