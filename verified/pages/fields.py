"""The placeholder grammar and the text of each field of a record."""

from __future__ import annotations

import re
from pathlib import Path

from verified.claims import Claim
from verified.pages.fmt import (
    _join,
    anchor,
    code,
    env_text,
    escape,
    fmt_bytes,
    fmt_ratio,
    fmt_seconds,
    fmt_size,
    fmt_value,
    host_text,
    shorten,
    span,
)
from verified.pages.standing import Standing, of_case
from verified.pages.words import BOOLEANS, NAMES, TEXT, skip_text, stale_text
from verified.report import Entry, ReportError, Reports
from verified.versions import release, sort_key

PLACEHOLDER = re.compile(
    r"\{\{\s*(?P<id>[a-z0-9][a-z0-9.-]*)\s*\|\s*(?P<fw>paddle|torch)(?:@(?P<dev>cpu|gpu))?\s*"
    r"\|\s*(?P<field>[a-z_]+)(?:\.(?P<key>[\w-]+))?\s*"
    # one filter that words the value (verified.pages.words): yesno("…", "…"), words(…), …
    r"(?:\|\s*(?P<filter>[a-z]+)\((?P<args>(?:\"(?:[^\"\\]|\\.)*\"|[^\"()])*)\)\s*)?\}\}"
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
            return fmt_size(value, lang)
        return fmt_bytes(value, lang)
    if field_name == "ratio":
        if not isinstance(observed.get("ratio"), (int, float)):
            raise ReportError(f"{label}: no ratio observed")
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
        # shown on the page, left out of the search index (like the provenance line's
        # environment): the index must not depend on the machine that built the site
        return f'<span data-search-exclude="host">{escape(host_text(rec["env"], lang))}</span>'
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


class Unworded(ReportError):
    """An English phrase of an observed value that the language's values table does not word."""

    def __init__(self, phrase: str) -> None:
        super().__init__(phrase)
        self.phrase = phrase


def word_observed(raw, table: dict[str, str], lang: str, booleans: bool = True):
    """An observed value with every English phrase in it (an outcome such as "wrong gradient,
    no error", alone or inside a list or a dict) in ``lang``'s words from ``table`` (a
    ``values.<lang>.toml``), booleans as the language writes them. Numbers, code and names
    stay as they are; so do dict keys, which name cases, unless the table words them, and
    booleans where ``booleans`` is false (a data cell). Raises Unworded for the first phrase
    the table lacks."""
    if isinstance(raw, list):
        return [word_observed(item, table, lang, booleans) for item in raw]
    if isinstance(raw, dict):
        return {table.get(k, k): word_observed(v, table, lang, booleans) for k, v in raw.items()}
    if isinstance(raw, bool) and booleans:
        return BOOLEANS.get(lang, {}).get(raw, raw)
    if not isinstance(raw, str):
        return raw
    if raw in table:  # a phrase, or a single word the table words ("error")
        return table[raw]
    if ENGLISH_PHRASE.search(raw):
        raise Unworded(raw)
    return raw


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


def status_text(entry: Entry, lang: str) -> str:
    """Whether a case ran, in words: for sentences about a device a run may not have had
    ("on the GPU: not run here, because …"). The page asks the standing first
    (:mod:`verified.pages.standing`): only a passed or skipped record gets here."""
    t = TEXT[lang]
    if entry.status == "skipped":
        return t["not_run_because"].format(reason=escape(skip_text(entry.rec, lang)))
    return t["ran"].format(env=env_text(entry.env, lang))


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
    was confirmed not runnable; the page asks the standing of every release first
    (:func:`releases_standing`)."""
    t = TEXT[lang]
    results = release_results(reports, claim_id, framework)
    holds = [v for v, e in results.items() if e.status == "passed" and not e.override]
    text = t["releases_field"].format(
        framework=NAMES[lang][framework], holds=span(holds) if holds else t["none"]
    )
    groups: dict[tuple[str, str], list[str]] = {}
    for version, entry in results.items():
        override = entry.override  # today's note, not the record's copy (Entry.override)
        if override:
            kind = "unrunnable" if entry.status == "not-runnable" else "differs"
            note = override["note"][lang].rstrip("。.")  # the page's sentence ends it
            groups.setdefault((kind, note), []).append(version)
    for (kind, note), versions in groups.items():
        text += t[kind].format(versions=_join(versions, lang), note=note)
    return text


# -- the verification page ---------------------------------------------------------------------


def releases_standing(reports: Reports, claim_id: str, framework: str) -> Standing:
    """The live CPU record (stale or not) and every fresh record of an older release."""
    standing = of_case(reports, claim_id, framework, "cpu")
    for entry in release_results(reports, claim_id, framework).values():
        if entry.report is not reports.live:
            standing |= Standing((entry,))
    return standing


def mark(entry: Entry, lang: str, root: str | None) -> str:
    """A record a sentence rests on that did not pass: ✗, the case, its status and what was
    observed (or why it is stale, or why it did not run); linked to its row of the
    verification page unless ``root`` is None (notebooks)."""
    t = TEXT[lang]
    rec = entry.rec
    if entry.status == "stale":
        why = stale_text(entry.stale, lang)
    elif entry.status == "skipped":
        why = skip_text(rec, lang)
    else:
        why = str(rec.get("reason") or t["nothing_observed"])
    text = t["marked"].format(
        framework=NAMES[lang][rec["framework"]],
        device=t["dev"][rec["device"]],
        status=t["marked_status"][entry.status],
        why=escape(shorten(why.strip().split("\n")[0], 300)),
    )
    shown = f'<span class="claim-failed">{text}</span>'
    if root is None:
        return shown
    return f"[{shown}]({root}verification.md#{anchor(rec['id'], rec['framework'])})"
