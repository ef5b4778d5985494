"""pytest plugin: one test item per (claim, framework, device), and the report at the end.

Items are collected from ``snippets/<article>/claims.toml`` and named like
``inplace.leaf-error[paddle-cpu]``. Registered by the root ``conftest.py``.
"""

from __future__ import annotations

import pytest

from verified.claims import Case, ClaimError, load_claims
from verified.report import write
from verified.runner import Runner, judge

RUNNER_KEY = pytest.StashKey[Runner]()
RECORDS_KEY = pytest.StashKey[list]()


def pytest_configure(config: pytest.Config) -> None:
    config.stash[RECORDS_KEY] = []
    config.addinivalue_line("markers", "claim: a claim case run by the claims engine")


def pytest_collect_file(file_path, parent):
    if file_path.name == "claims.toml" and file_path.parent.parent.name == "snippets":
        return ClaimsFile.from_parent(parent, path=file_path)
    return None


class ClaimsFile(pytest.File):
    def collect(self):
        try:
            claims = load_claims(self.path)
        except ClaimError as exc:
            raise self.CollectError(str(exc)) from None
        for claim in claims:
            for case in claim.cases():
                item = ClaimItem.from_parent(self, name=case.name, case=case)
                item.add_marker(pytest.mark.claim)
                yield item


class ClaimItem(pytest.Item):
    def __init__(self, *, case: Case, **kwargs) -> None:
        super().__init__(**kwargs)
        self.case = case

    def runtest(self) -> None:
        runner = runner_for(self.config)
        case = self.case
        record = {
            "id": case.claim.id,
            "kind": case.claim.kind,
            "framework": case.framework,
            "device": case.device,
            "status": None,
            "expected": case.expected(),
            "observed": None,
            "statement": case.claim.statement,
            "snippet": str(case.snippet_path.relative_to(case.claim.path.parent.parent)),
            "source_hash": case.source_hash(),
        }
        self.config.stash[RECORDS_KEY].append(record)
        reason = runner.skip_reason(case)
        if reason:
            record.update(status="skipped", reason=reason)
            pytest.skip(reason)
        observed = runner.observe(case)
        status, problem = judge(case, observed)
        record.update(status=status, observed=observed, duration_s=observed.get("duration_s"))
        if problem:
            record["reason"] = problem
            raise ClaimFailed(problem)

    def repr_failure(self, excinfo):
        if isinstance(excinfo.value, ClaimFailed):
            return f"{self.case.name} ({self.case.claim.path.name}): {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, None, self.case.name


class ClaimFailed(AssertionError):
    pass


def runner_for(config: pytest.Config) -> Runner:
    if RUNNER_KEY not in config.stash:
        config.stash[RUNNER_KEY] = Runner()
    return config.stash[RUNNER_KEY]


def pytest_collection_modifyitems(items):
    # Group claim items by framework and device so that each worker starts once.
    claim_items = [i for i in items if isinstance(i, ClaimItem)]
    others = [i for i in items if not isinstance(i, ClaimItem)]
    claim_items.sort(key=lambda i: (i.case.framework, i.case.device, i.case.isolated))
    items[:] = claim_items + others


def pytest_sessionfinish(session: pytest.Session) -> None:
    config = session.config
    records = config.stash.get(RECORDS_KEY, [])
    runner = config.stash.get(RUNNER_KEY, None)
    if runner is not None:
        infos = {fw: runner.info(fw) for fw in ("paddle", "torch")} if records else {}
        runner.close()
        if records:
            root = config.rootpath
            report = write(records, infos, root / "build" / "claims.json", root / "snippets")
            counts: dict[str, int] = {}
            for rec in report["claims"]:
                counts[rec["status"]] = counts.get(rec["status"], 0) + 1
            config.stash[SUMMARY_KEY] = counts


SUMMARY_KEY = pytest.StashKey[dict]()


def pytest_terminal_summary(terminalreporter, config):
    counts = config.stash.get(SUMMARY_KEY, None)
    if counts:
        summary = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
        terminalreporter.write_line(f"claims report: build/claims.json ({summary})")
