"""One page: its placeholders rendered, each value linked to its row of the verification
page, failures marked and announced by a banner."""

from __future__ import annotations

import contextlib
import re
from dataclasses import dataclass, field
from pathlib import Path

from verified.claims import FRAMEWORKS, ROOT
from verified.pages.fields import (
    ANY_BRACES,
    BLOCK_FIELDS,
    ENGLISH_PHRASE,
    PLACEHOLDER,
    VALUE_FIELDS,
    Unworded,
    claim_by_id,
    conditions_table,
    exception_text,
    field_value,
    mark,
    observed_value,
    output_text,
    releases_standing,
    releases_text,
    status_text,
    value_words,
    word_observed,
)
from verified.pages.fmt import (
    _join,
    anchor,
    code,
    env_text,
    escape,
    fmt_value,
    root_of,
    shorten,
    spaced,
    span,
)
from verified.pages.markdown import CJK, FENCE
from verified.pages.standing import (
    Action,
    Standing,
    Use,
    action,
    case_name_of,
    of_case,
    of_statement,
)
from verified.pages.tables import silent_table, verification_page
from verified.pages.words import (
    FILTERS,
    NAMES,
    TEXT,
    WordingError,
    is_names,
    join_words,
    parse_filter_args,
    skip_text,
    stale_text,
    value_range,
    word_value,
    words_same,
)
from verified.report import Entry, ReportError, Reports
from verified.versions import release

CJK_CHAR = re.compile(f"[{CJK}]")


def _cjk(char: str) -> bool:
    """Whether ``char`` (one character, or none) is Chinese or full-width punctuation."""
    return bool(CJK_CHAR.fullmatch(char))


def _tight_start(text: str) -> str:
    """``text`` without its leading space when a Chinese character follows it."""
    return text[1:] if text.startswith(" ") and _cjk(text[1:2]) else text


@dataclass
class Page:
    """Renders the placeholders of one page (``where`` is its docs path, e.g. ``en/inplace.md``)."""

    reports: Reports
    lang: str
    where: str
    provenance: bool = True  # notebooks get the values without links to the site's report
    docs: Path = ROOT / "docs"
    claims_used: set = field(default_factory=set)
    failures: dict = field(default_factory=dict)  # case name -> the Entry it marks ✗
    last_shown: str = ""  # what the last value placeholder showed (for Chinese spacing)

    @property
    def t(self) -> dict:
        return TEXT[self.lang]

    @property
    def root(self) -> str:
        """The way up from the page to its language's root: links to the verification page
        are relative (``en/inplace/leaf-tensors.md`` -> ``../``)."""
        return root_of(self.where)

    def standing(self, match: re.Match, use: Use) -> tuple[Standing, Action]:
        """The records a placeholder rests on, and what the page does with them (refusing
        raises ReportError, naming the page and the case)."""
        claim_id, framework = match["id"], match["fw"]
        if use is Use.STATEMENT:
            label = f"{self.where}: {match[0]}"
            standing = of_statement(self.reports, claim_by_id(self.reports, claim_id, label))
        elif use is Use.RELEASES:
            standing = releases_standing(self.reports, claim_id, framework)
        else:
            standing = of_case(self.reports, claim_id, framework, match["dev"] or "cpu")
        # a refusal names the page, and the placeholder where the field decides (as before)
        label = f"{self.where}: {match[0]}" if use in (Use.STATUS, Use.RELEASES) else self.where
        return standing, action(standing, use, self.reports.failed_shown, label)

    def marks(self, standing: Standing, use: Use) -> str:
        """✗ for every record the sentence rests on that did not pass, each linked to its row
        of the verification page; the page's banner and the build's summary list them."""
        shown = []
        for entry in standing.failing(use):
            self.failures[case_name_of(entry)] = entry
            shown.append(mark(entry, self.lang, self.root if self.provenance else None))
        return " ".join(shown)

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
                lines.append(silent_table(self.reports, self.lang, self.docs, self.failures))
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
            line = self.substitute(line)
            leftover = ANY_BRACES.search(line)
            if leftover and fence is None:
                raise ReportError(f"{self.where}: unrecognised placeholder {leftover[0]!r}")
            lines.append(line)
        if self.failures and self.provenance:  # a page of the site; a notebook has its own banner
            lines = self.with_banner(lines)
        return "\n".join(lines)

    def substitute(self, line: str) -> str:
        """The line with its inline placeholders rendered. In Chinese, a space of the source
        between a value and Chinese text goes where the value itself starts or ends with a
        Chinese character or full-width punctuation ("1.70 倍 和" -> "1.70 倍和", "（10.02 MiB）
        完全相同"): Paddle's guides put no space between two Chinese characters."""
        if self.lang != "zh":
            return PLACEHOLDER.sub(self.inline, line)
        out, pos, tight = [], 0, False
        for match in PLACEHOLDER.finditer(line):
            before = line[pos : match.start()]
            if tight:
                before = _tight_start(before)
            self.last_shown = ""
            rendered = self.inline(match)
            shown = self.last_shown
            if _cjk(shown[:1]) and before.endswith(" ") and _cjk(before[-2:-1]):
                before = before[:-1]
            tight = _cjk(shown[-1:])
            out += [before, rendered]
            pos = match.end()
        rest = line[pos:]
        out.append(_tight_start(rest) if tight else rest)
        return "".join(out)

    def with_banner(self, lines: list[str]) -> list[str]:
        """The page with a warning under its title: which results failed on this machine."""
        env = next(iter(self.failures.values())).env
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
        """A value whose record did not pass on this machine: what was observed (or last
        observed, for a stale record), what was expected, marked, and linked to the
        verification report like any value."""
        rec = entry.rec
        self.failures[case_name_of(entry)] = entry
        expected = code(fmt_value(rec.get("expected") or {}))
        if entry.status == "skipped":
            why = escape(skip_text(rec, self.lang))
            shown = self.t["not_run_value"].format(why=why, expected=expected)
        else:
            observed = escape(self.t["nothing_observed"])
            if rec.get("observed"):
                # the run may have ended before it observed this field
                with contextlib.suppress(ReportError):
                    observed = field_value(rec, name, key, self.lang, label)
            if entry.stale:
                why = escape(stale_text(entry.stale, self.lang))
                shown = self.t["stale_value"].format(why=why, observed=observed, expected=expected)
            else:
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
            text = claim_by_id(self.reports, match["id"], label).statement[self.lang]
            standing, act = self.standing(match, Use.STATEMENT)
            return text if act is Action.SHOW else f"{text} {self.marks(standing, Use.STATEMENT)}"
        if name == "releases":
            standing, act = self.standing(match, Use.RELEASES)
            text = releases_text(self.reports, match["id"], match["fw"], self.lang, label)
            return text if act is Action.SHOW else f"{text} {self.marks(standing, Use.RELEASES)}"
        if name == "status":
            standing, act = self.standing(match, Use.STATUS)
            if act is Action.MARK:
                return self.marks(standing, Use.STATUS)
            return status_text(standing.entries[0], self.lang)
        if name not in VALUE_FIELDS:
            raise ReportError(f"{label}: unknown field {name!r}")
        standing, act = self.standing(match, Use.VALUE)
        entry = standing.entries[0]
        if act is Action.MARK:
            return self.failed(entry, name, match["key"], label)
        shown, observed = self.shown(entry.rec, match, label)
        self.last_shown = shown
        if not self.provenance:
            return shown
        key = f"{name}.{match['key']}" if match["key"] else name
        return self.link(shown, entry, key, observed)

    def shown(self, rec: dict, match: re.Match, label: str) -> tuple[str, str | None]:
        """A value field as the sentence shows it, and the observed value for its hover title
        when the sentence says it in words (None when it shows the value as observed). A filter
        (verified.pages.words) words it as the page declares; without one, a list of names is
        joined in words, and an English phrase in a value is worded from the article's
        ``values.<lang>.toml``."""
        name, key, lang = match["field"], match["key"], self.lang
        if match["filter"] and match["filter"] not in FILTERS:
            raise ReportError(f"{label}: unknown filter {match['filter']!r}, one of {FILTERS}")
        if match["filter"] and name != "value":
            raise ReportError(f"{label}: only a value field takes a filter, not {name!r}")
        shown = field_value(rec, name, key, lang, label)
        if name != "value":
            return shown, None
        raw = observed_value(rec, key)
        if match["filter"] in ("yesno", "words", "each"):
            try:
                phrase = word_value(match["filter"], parse_filter_args(match["args"]), raw)
            except WordingError as exc:
                raise ReportError(f"{label}: {exc}") from None
            return phrase, self.title_value(rec, raw, label)
        worded = self.worded(rec, raw, label) if lang != "en" else raw
        if match["filter"] == "at":  # one entry of a dict whose keys are not names
            try:
                args = parse_filter_args(match["args"])
            except WordingError as exc:
                raise ReportError(f"{label}: {exc}") from None
            if len(args) != 1 or not isinstance(args[0], str):
                raise ReportError(f'{label}: at() takes one key, e.g. at("clean window")')
            if not isinstance(raw, dict) or args[0] not in raw:
                raise ReportError(f"{label}: no key {args[0]!r} in the observed value")
            return code(fmt_value(raw[args[0]])), None
        if match["filter"] == "to":
            try:
                args = parse_filter_args(match["args"])
            except WordingError as exc:
                raise ReportError(f"{label}: {exc}") from None
            if len(args) != 1 or not (isinstance(args[0], tuple) and args[0][0] == "field"):
                raise ReportError(f"{label}: to() takes the other end's field, e.g. to(value.max)")
            other, _, other_key = args[0][1].partition(".")
            if other != "value" or not other_key:
                raise ReportError(f"{label}: to() takes a value field, e.g. to(value.max)")
            high = field_value(rec, "value", other_key, lang, label)
            same = words_same(raw, observed_value(rec, other_key))
            return value_range(shown, high, same, lang), None
        if is_names(worded):
            return join_words([code(str(v)) for v in worded], lang), None
        if worded != raw:
            seen = fmt_value(raw)  # True behind 是; an English phrase is what the page words
            shown = escape(worded) if isinstance(worded, str) else code(fmt_value(worded))
            return shown, None if ENGLISH_PHRASE.search(seen) else seen
        return shown, None

    def title_value(self, rec: dict, raw, label: str) -> str | None:
        """The observation behind a worded value, for its hover title: as observed, unless it
        holds an English phrase (a case's name, an outcome) on a page in another language: then
        worded, or left out when part of it has no wording (the report shows it as observed)."""
        seen = fmt_value(raw)
        if self.lang == "en" or not ENGLISH_PHRASE.search(seen):
            return seen
        with contextlib.suppress(ReportError):
            return fmt_value(self.worded(rec, raw, label))
        return None

    def worded(self, rec: dict, raw, label: str):
        """The observed value in the page language's words (``word_observed``), from
        ``snippets/<article>/values.<lang>.toml``; a phrase without a wording is refused."""
        article = rec["id"].split(".", 1)[0]
        table = value_words(self.reports.snippets / article, self.lang)
        try:
            return word_observed(raw, table, self.lang)
        except Unworded as missing:
            path = f"snippets/{article}/values.{self.lang}.toml"
            raise ReportError(
                f"{label}: the observed value {missing.phrase!r} is English: add its {self.lang} "
                f'wording to {path} ("{missing.phrase}" = "…"; the same text keeps it verbatim, '
                "as for a message)"
            ) from None

    def tooltip(self, entry: Entry) -> str:
        rec = entry.rec
        return self.t["tooltip"].format(
            id=rec["id"],
            framework=NAMES[self.lang][rec["framework"]],
            device=self.t["dev"][rec["device"]],
            env=env_text(entry.env, self.lang),
        )

    def link(self, shown: str, entry: Entry, key: str, observed=None) -> str:
        """A value linked to its row of the verification report, with its provenance (and the
        raw observed value, when the page shows it in its own words)."""
        rec = entry.rec
        tooltip = self.tooltip(entry)
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
        standing, act = self.standing(match, Use.BLOCK)
        entry = standing.entries[0]
        name = match["field"]
        if act is Action.MARK:
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
        self.failures[case_name_of(entry)] = entry
        claim = claim_by_id(self.reports, rec["id"], label)
        if entry.stale:
            observed = stale_text(entry.stale, self.lang)
        elif entry.status == "skipped":
            observed = skip_text(rec, self.lang)
        else:
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
