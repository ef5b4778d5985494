"""One build's state, shared by the MkDocs hook and the notebook builder: the reports the pages
are rendered from (read once per build), and every record a page marked ✗, with its pages, for
the summary the build ends with."""

from __future__ import annotations

from mkdocs.exceptions import PluginError

from verified.pages.page import Page
from verified.pages.standing import case_name_of
from verified.pages.tables import failed_entries
from verified.report import ReportError, Reports

_reports: Reports | None = None
FAILED: dict[str, dict] = {}  # case name -> {"entry": Entry, "pages": {...}} marked ✗


def report() -> Reports:
    global _reports
    if _reports is None:
        try:
            _reports = Reports()
        except ReportError as exc:
            raise PluginError(str(exc)) from None
    return _reports


def reset() -> None:
    """Read the reports again on the next page (``mkdocs serve`` rebuilds after a test run)."""
    global _reports
    _reports = None
    FAILED.clear()


def render(markdown: str, lang: str, where: str, *, provenance: bool = True) -> str:
    page = Page(report(), lang, where, provenance)
    rendered = page.render(markdown)
    for name, entry in page.failures.items():
        add_failure(name, entry, where)
    return rendered


def add_failure(name: str, entry, where: str) -> None:
    FAILED.setdefault(name, {"entry": entry, "pages": set()})["pages"].add(where)


def _reason(entry) -> str:
    if entry.stale:
        return f"stale: {entry.stale}"
    text = str(entry.rec.get("reason") or "").strip()
    return f"{entry.status}: " + (text.splitlines()[0][:160] if text else "")


def failed_summary() -> str:
    """The cases marked ✗ on the pages, on which pages; then the records that failed or are
    stale that no page rests on; and the command that reruns them."""
    unshown = []
    if _reports is not None:  # the build read the reports
        unshown = [e for e in failed_entries(_reports) if case_name_of(e) not in FAILED]
    if not FAILED and not unshown:
        return ""
    names = sorted({*FAILED, *(case_name_of(e) for e in unshown)})
    lines = [
        f"{len(names)} claim case(s) failed on this machine, are stale or did not run "
        "(AUTOGRAD_SHOW_FAILED=1 marks them ✗ on their pages; `nox -s tests` refuses them):"
    ]
    for name, found in sorted(FAILED.items()):
        pages = ", ".join(sorted(found["pages"]))
        lines.append(f"  {name} on {pages}: {_reason(found['entry'])}")
    for entry in unshown:
        where = entry.report.name
        lines.append(
            f"  {case_name_of(entry)} ({where}) on no page, listed on the verification page: "
            + _reason(entry)
        )
    lines.append("Rerun them: python -m pytest snippets -k '" + " or ".join(names) + "'")
    return "\n".join(lines)
