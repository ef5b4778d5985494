"""The verification page (every claim, each result in its environment), the release matrix
and the silent-failures table."""

from __future__ import annotations

import contextlib
from pathlib import Path

from verified.claims import FRAMEWORKS, Claim
from verified.pages.fields import Unworded, mark, value_words, word_observed
from verified.pages.fmt import (
    allocator_text,
    anchor,
    cell,
    code,
    env_short,
    escape,
    fmt_ratio,
    fmt_seconds,
    fmt_value,
    host_text,
    shorten,
    spaced,
)
from verified.pages.markdown import article_pages, section_in, statement_sections
from verified.pages.standing import Action, Use, action, case_name_of, of_case
from verified.pages.words import ARTICLES, NAMES, TEXT, skip_text, stale_text, unrunnable_text
from verified.report import Entry, ReportError, Reports
from verified.versions import release, sort_key


def summary(entry: Entry, lang: str, words: dict[str, str] | None = None) -> str:
    """One table cell: status, what was observed (shortened), and the environment. ``words``:
    the article's ``values.<lang>.toml``; an observed value whose every English phrase it
    words is shown in those words, any other as observed."""
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
        value = obs.get("value")
        if lang != "en" and words is not None:
            with contextlib.suppress(Unworded):
                value = word_observed(value, words, lang, booleans=False)
        shown = code(shorten(fmt_value(value), 140))
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
    if shown_only(rec):  # it ran; nothing about its figures was asserted: no ✓
        return f"◷ {t['shown_only']}{t['colon']}{shown}<br>{env}"
    return f"✓ {shown}<br>{env}"


def shown_only(rec: dict) -> bool:
    """A figure measured and shown, never asserted: a measurement, or a timing shown only."""
    return rec["kind"] == "measurement" or (
        rec["kind"] == "timing" and (rec.get("expected") or {}).get("verdict") == "shown"
    )


def failed_entries(reports: Reports) -> list[Entry]:
    """The records of this build that failed or are stale (a case it did not run aside), and
    the failed ones of every other report: whether or not a page rests on them."""
    found = []
    for report in reports.all:
        for entry in report.entries():
            stale = entry.stale and report is reports.live and entry.rec["status"] != "skipped"
            if entry.status == "failed" or stale:
                found.append(entry)
    return found


def not_passed(reports: Reports, lang: str) -> list[str]:
    """The verification page's first screen: every record that failed or is stale, linked to
    its row (nothing when all passed)."""
    t = TEXT[lang]
    found = failed_entries(reports)
    if not found:
        return []
    names = sorted({case_name_of(e) for e in found})
    command = "python -m pytest snippets -k '" + " or ".join(names) + "'"
    out = [f'!!! failure "{t["failed_records"].format(count=len(found))}"', ""]
    out += ["    " + t["failed_records_intro"].format(command=command), ""]
    for entry in found:
        name = f"`{case_name_of(entry)}`"
        out.append(f"    - [{name}](#{anchor(entry.rec['id'], entry.rec['framework'])}){t['colon']}"
                   + mark(entry, lang, None))  # fmt: skip
    return [*out, ""]


def verification_page(reports: Reports, lang: str, docs: Path) -> str:
    t = TEXT[lang]
    sections = statement_sections(docs, lang)
    out = [*not_passed(reports, lang), f"## {t['environments']}", "", t["env_table"]]
    out.append("|---|---|---|---|---|---|")
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
        words = value_words(reports.snippets / article, lang)
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
                    cells.append("<br>".join(summary(e, lang, words) for e in shown))
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


# "skipped": the case did not run, like a release with no record: the legend's "· not run"
MARKS = {
    "passed": "✓",
    "differs": "≠",
    "not-runnable": "⊘",
    "failed": "✗",
    "stale": "⟳",
    "skipped": "·",
}


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
                if status == "passed" and entry.override:  # today's note (Entry.override)
                    status, note = "differs", cell(entry.override["note"][lang])
                elif status == "not-runnable":
                    override = entry.override
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


def silent_rows(reports: Reports) -> list[tuple[Claim, dict, list[str], list[Entry]]]:
    """(claim, silent row, affected frameworks, records not passed) for every
    [[claim.silent]]. A row rests on the live record of each framework: the frameworks
    affected are those whose passed record observed the fact as true; a record that did not
    pass is no evidence either way, and is refused, or marked where failures are shown."""
    rows = []
    for claim in reports.claims:
        for row in claim.silent:
            affected, failing = [], []
            for fw in FRAMEWORKS:
                standing = of_case(reports, claim.id, fw, "cpu")
                act = action(standing, Use.ROW, reports.failed_shown, "silent failures")
                if act is Action.MARK:
                    failing += standing.failing(Use.ROW)
                    continue
                value = (standing.entries[0].rec.get("observed") or {}).get("value") or {}
                if value.get(row["fact"]) is True:
                    affected.append(fw)
            rows.append((claim, row, affected, failing))
    return rows


def silent_table(reports: Reports, lang: str, docs: Path, failures: dict | None = None) -> str:
    """The table of every [[claim.silent]]; the records it marks ✗ go into ``failures`` (the
    page's, for its banner)."""
    t = TEXT[lang]
    out = [
        f"| {t['silent_symptom']} | {t['silent_affected']} | {t['silent_section']} | "
        f"{t['silent_fix']} |",
        "|---|---|---|---|",
    ]
    sections = None
    for claim, row, affected, failing in silent_rows(reports):
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
        for entry in failing:
            if failures is not None:
                failures[case_name_of(entry)] = entry
            names.append(mark(entry, lang, ""))
        shown = (t["list_sep"]).join(names) or t["none"]
        out.append(
            f"| {cell(row['symptom'][lang])} | {shown} | "
            f"[{cell(heading)}]({page}#{anchor_here}) | "
            f"{cell(row['fix'][lang])} |"
        )
    return "\n".join(out)
