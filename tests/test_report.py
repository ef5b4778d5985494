"""Reports: records carry their own environment and hashes; merging never restamps; a stale
record (snippet, a file it reads, expectation, engine or framework version changed) is never
looked up as passed; GPU values may come from an environment report, CPU values never do."""

from __future__ import annotations

import copy
import json

import pytest
from claimkit import VERSIONS, context_for, env_for, make_snippets, observed_for

from verified import claims as claims_module
from verified import report as report_module
from verified.claims import all_cases
from verified.context import RunContext, cpu_model, host, now
from verified.report import (
    SCHEMA,
    Report,
    ReportError,
    Reports,
    environment,
    freshness,
    record,
    reusable,
    staleness,
    write,
)
from verified.results import results_problems

OTHER = {"paddle": "2.6.2", "torch": "2.4.1"}


@pytest.fixture
def snippets(tmp_path):
    return make_snippets(tmp_path)


def cases_for(snippets, versions=VERSIONS):
    return all_cases(snippets, versions)


def passed(case, **env):
    return record(
        case,
        status="passed",
        env=env_for(case.framework, case.device, case.version, **env),
        observed=observed_for(case),
    )


def run_all(snippets, versions=VERSIONS, **env) -> list[dict]:
    """A record for every case: CPU ones passed, GPU ones skipped."""
    out = []
    for case in cases_for(snippets, versions).values():
        if case.device == "gpu":
            rec = record(
                case,
                status="skipped",
                env=env_for(case.framework, "cpu", case.version),
                reason=f"{case.framework}: no GPU",
            )
            out.append(rec)
        else:
            out.append(passed(case, **env))
    return out


def cpu_records(snippets, context, failed=frozenset()) -> tuple[list, list]:
    """The fixture claims' CPU cases, and a record of each made in ``context``: passed, or
    failed for the claims named in ``failed``."""
    cases = [case for case in cases_for(snippets).values() if case.device == "cpu"]
    records = [
        record(
            case,
            status="failed" if case.claim.id in failed else "passed",
            env=environment({"framework": case.framework}, "cpu", context),
            observed=observed_for(case),
            context=context,
        )
        for case in cases
    ]
    return cases, records


def test_record_says_what_and_where(snippets):
    case = cases_for(snippets)[("fixture.launch", "torch", "cpu")]
    rec = passed(case)
    assert rec["id"] == "fixture.launch" and rec["kind"] == "behaviour"
    assert (rec["framework"], rec["device"], rec["status"]) == ("torch", "cpu", "passed")
    assert rec["expected"] == {"facts": {"agree": True, "silent_loss": True}}
    assert rec["snippet"] == "fixture/launch_torch.py"
    assert rec["files"] == [
        "fixture/launch_torch.py",
        "fixture/data.json",
        "fixture/work_torch.py",
        "fixture/helper.py",
    ]
    assert rec["claims_file"] == "snippets/fixture/claims.toml"
    assert rec["hashes"] == case.hashes() and rec["source_hash"] == case.source_hash()
    assert rec["env"]["version"] == "2.13.0+cpu" and rec["override"] is None
    assert rec["reason"] is None
    with pytest.raises(ValueError, match="unknown status 'ok'"):
        record(case, status="ok", env={})


def test_record_shows_the_override(snippets):
    case = cases_for(snippets, OTHER)[("fixture.leaf", "paddle", "cpu")]
    rec = passed(case)
    assert rec["override"] == {
        "range": "<3.0",
        "note": {"en": "Paddle 2 says Var.", "zh": "飞桨 2 的报错写作 Var。"},
    }
    assert rec["expected"]["match"] == "Var .* can't use inplace"
    assert rec["env"]["version"] == "2.6.2"


def test_write_then_read(snippets, tmp_path):
    path = tmp_path / "build" / "claims.json"
    records = run_all(snippets)
    report = write(records, path, snippets=snippets, versions=VERSIONS, name="here")
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data == report
    assert data["schema"] == SCHEMA and data["name"] == "here"
    assert [(r["id"], r["framework"], r["device"]) for r in data["claims"]][:4] == [
        ("fixture.leaf", "paddle", "cpu"),
        ("fixture.leaf", "paddle", "gpu"),
        ("fixture.leaf", "torch", "cpu"),
        ("fixture.leaf", "torch", "gpu"),
    ]
    assert len(data["claims"]) == len(records)
    rep = Report(path, live=True, snippets=snippets, versions=VERSIONS)
    assert rep.stale() == []
    assert freshness(path, snippets, VERSIONS) == "fresh"


def test_merging_keeps_old_records_with_their_own_environment(snippets, tmp_path):
    path = tmp_path / "claims.json"
    first = [r for r in run_all(snippets, date="2026-01-01") if r["framework"] == "paddle"]
    write(first, path, snippets=snippets, versions=VERSIONS)
    second = [r for r in run_all(snippets, date="2026-02-02") if r["framework"] == "torch"]
    data = write(second, path, snippets=snippets, versions=VERSIONS)
    dates = {(r["framework"], r["env"]["date"]) for r in data["claims"] if r["device"] == "cpu"}
    assert dates == {("paddle", "2026-01-01"), ("torch", "2026-02-02")}
    assert len(data["claims"]) == len(cases_for(snippets))
    # a new result replaces the old one of the same case
    third = [passed(cases_for(snippets)[("fixture.grad", "paddle", "cpu")], date="2026-03-03")]
    data = write(third, path, snippets=snippets, versions=VERSIONS)
    grad = [r for r in data["claims"] if r["id"] == "fixture.grad" and r["framework"] == "paddle"]
    assert [r["env"]["date"] for r in grad] == ["2026-03-03"]


def test_merging_drops_stale_old_records(snippets, tmp_path):
    path = tmp_path / "claims.json"
    write(run_all(snippets), path, snippets=snippets, versions=VERSIONS)
    worker = snippets / "fixture" / "work_torch.py"
    worker.write_text("import helper  # changed\n", encoding="utf-8")
    data = write([], path, snippets=snippets, versions=VERSIONS)
    assert ("fixture.launch", "torch") not in {(r["id"], r["framework"]) for r in data["claims"]}
    assert ("fixture.launch", "paddle") in {(r["id"], r["framework"]) for r in data["claims"]}
    # another installed version: every record of that framework is stale
    data = write([], path, snippets=snippets, versions={**VERSIONS, "paddle": "3.2.2"})
    assert {r["framework"] for r in data["claims"]} == {"torch"}


def test_merging_drops_claims_that_are_gone(snippets, tmp_path):
    path = tmp_path / "claims.json"
    write(run_all(snippets), path, snippets=snippets, versions=VERSIONS)
    toml = snippets / "fixture" / "claims.toml"
    text = toml.read_text(encoding="utf-8")
    start = text.index('[[claim]]\nid = "fixture.speed"')
    toml.write_text(text[:start], encoding="utf-8")
    data = write([], path, snippets=snippets, versions=VERSIONS)
    assert "fixture.speed" not in {r["id"] for r in data["claims"]}
    # a record of this run whose claim was edited away is not written either
    gone = run_all(make_snippets(snippets.parent.parent / "other"))
    data = write([r for r in gone if r["id"] == "fixture.speed"], path, snippets=snippets)
    assert "fixture.speed" not in {r["id"] for r in data["claims"]}


def test_old_schema_is_ignored_when_writing_and_refused_when_reading(snippets, tmp_path):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"claims": run_all(snippets)}), encoding="utf-8")
    data = write([], path, snippets=snippets, versions=VERSIONS)
    assert data["claims"] == []
    path.write_text(json.dumps({"schema": 1, "claims": []}), encoding="utf-8")
    with pytest.raises(ReportError, match="has schema 1, expected 2"):
        Report(path, live=True, snippets=snippets)
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ReportError, match="is not valid JSON"):
        Report(path, live=True, snippets=snippets)
    with pytest.raises(ReportError, match="not found: run the claims first"):
        Report(tmp_path / "absent.json", live=True, snippets=snippets)
    assert write([], path, snippets=snippets)["claims"] == []  # unreadable: starts afresh


def test_a_record_with_a_status_the_engine_never_writes_is_refused(snippets, tmp_path):
    """A results file edited by hand: its record's status is refused by name when the report is
    read, in a results check and in a build alike, not shown as it is in the release matrix."""
    path = tmp_path / "claims.json"
    data = write(run_all(snippets), path, snippets=snippets, versions=VERSIONS)
    for status in ("ok", None):
        edited = copy.deepcopy(data)
        edited["claims"][0]["status"] = status
        if status is None:
            del edited["claims"][0]["status"]
        path.write_text(json.dumps(edited), encoding="utf-8")
        rec = edited["claims"][0]
        with pytest.raises(ReportError) as refused:
            Report(path, live=True, snippets=snippets)
        assert str(refused.value) == (
            f"{path}: {rec['id']}[{rec['framework']}-{rec['device']}] has status {status!r}, "
            "not one of passed, failed, skipped, not-runnable: run the claims again"
        )
    path.write_text(json.dumps(data), encoding="utf-8")
    assert len(Report(path, live=True, snippets=snippets).records) == len(data["claims"])


# -- staleness ---------------------------------------------------------------------------------


def test_staleness_names_the_cause(snippets):
    case = cases_for(snippets)[("fixture.launch", "torch", "cpu")]
    rec = passed(case)
    assert staleness(rec, case, "2.13.0+cpu") is None
    assert (
        staleness(rec, None, "2.13.0+cpu") == "the claim or this framework/device no longer exists"
    )
    assert staleness(rec, case, "2.14.1") == "ran on torch 2.13.0+cpu, expected 2.14.1"
    engine = dict(rec, hashes=dict(rec["hashes"], engine="x"))
    assert staleness(engine, case, "2.13.0+cpu") == "the engine code changed since it ran"
    inputs = dict(rec, hashes=dict(rec["hashes"], inputs="x"))
    assert staleness(inputs, case, "2.13.0+cpu") == (
        "the snippet, a file it reads or the expectation changed since it ran"
    )
    forged = dict(rec, source_hash="x")
    assert staleness(forged, case, "2.13.0+cpu") == "its hash does not match the current sources"
    assert (
        staleness(rec, case, "2.13.0+cpu", "new-engine") == "the engine code changed since it ran"
    )
    assert rec["hashes"]["engine"] == claims_module.engine_hash()  # by default: the code's now
    new = record(case, status="passed", env=rec["env"], context=context_for(engine_hash="new"))
    assert new["hashes"]["engine"] == "new" and new["source_hash"] == case.source_hash("new")
    assert staleness(new, case, "2.13.0+cpu", "new") is None
    assert staleness(new, case, "2.13.0+cpu") == "the engine code changed since it ran"


def test_unchanged_records_of_this_host_are_reused(snippets, tmp_path):
    """A record stands for a new run only if it ran on the run context's host, Python and
    engine, with every input unchanged, and did not fail."""
    context = context_for()
    path = tmp_path / "claims.json"
    cases, records = cpu_records(snippets, context, failed={"fixture.grad"})
    report = write(records, path, snippets=snippets, context=context)
    assert report["generated"] == "2026-12-01T10:00:00+00:00"  # the context's clock
    assert len(report["claims"]) == len(cases)  # fresh for the context's versions
    reused = reusable(cases, path, context)
    assert sorted(reused) == sorted(c.name for c in cases if c.claim.id != "fixture.grad")
    assert reused["fixture.leaf[torch-cpu]"] == records[[c.name for c in cases].index(
        "fixture.leaf[torch-cpu]")]  # fmt: skip
    assert reusable(cases, path, context.replace(host={**context.host, "cpu": "Other"})) == {}
    assert reusable(cases, path, context.replace(host={**context.host, "cores": 64})) == {}
    assert reusable(cases, path, context.replace(python="3.0.0")) == {}
    assert reusable(cases, path, context.replace(engine_hash="another-engine")) == {}
    assert reusable(cases, path) == {}  # this process's own host is not "Test CPU"
    assert reusable(cases, tmp_path / "absent.json", context) == {}
    (snippets / "fixture" / "helper.py").write_text("VALUE = 2\n", encoding="utf-8")
    assert "fixture.launch[torch-cpu]" not in reusable(cases, path, context)
    assert "fixture.leaf[torch-cpu]" in reusable(cases, path, context)


def test_a_record_of_another_host_is_not_reused_and_the_others_still_are(snippets, tmp_path):
    context = context_for()
    path = tmp_path / "claims.json"
    cases, records = cpu_records(snippets, context)
    records[0]["env"]["host"] = {**records[0]["env"]["host"], "cpu": "Other"}
    write(records, path, snippets=snippets, context=context)
    assert sorted(reusable(cases, path, context)) == sorted(c.name for c in cases[1:])
    path.write_text(json.dumps({"schema": SCHEMA}), encoding="utf-8")  # a report of no claims
    assert reusable(cases, path, context) == {}


def test_environment_reports_are_checked_against_their_own_version(snippets, tmp_path):
    results = tmp_path / "results"
    write(run_all(snippets, OTHER), results / "old.json", snippets=snippets, versions=OTHER)
    rep = Report(results / "old.json", live=False, snippets=snippets)
    assert rep.stale() == []
    assert {e.env["version"] for e in rep.entries()} == {"2.6.2", "2.4.1"}
    (snippets / "fixture" / "helper.py").write_text("VALUE = 2\n", encoding="utf-8")
    stale = dict(rep.stale())
    assert stale["fixture.launch[torch-cpu]"].startswith("the snippet, a file it reads")
    assert "fixture.grad[torch-cpu]" not in stale


# -- lookup --------------------------------------------------------------------------------------


def make_reports(snippets, tmp_path, live_records, others=()):
    live = tmp_path / "build" / "claims.json"
    write(live_records, live, snippets=snippets, versions=VERSIONS)
    results = tmp_path / "results"
    results.mkdir(exist_ok=True)
    for name, records, versions in others:
        write(records, results / f"{name}.json", snippets=snippets, versions=versions, name=name)
    return Reports(live, results, snippets, versions=VERSIONS)


def test_lookup_of_passed_failed_skipped_stale_missing(snippets, tmp_path):
    cases = cases_for(snippets)
    records = run_all(snippets)
    failed = record(
        cases[("fixture.grad", "torch", "cpu")],
        status="failed",
        env=env_for("torch"),
        observed={"value": 3},
        reason="value: expected -16.0, observed 3",
    )
    records = [r for r in records if not (r["id"] == "fixture.grad" and r["framework"] == "torch")]
    records = [
        r for r in records if not (r["id"] == "fixture.speed" and r["framework"] == "paddle")
    ]
    reports = make_reports(snippets, tmp_path, [*records, failed])
    rec = reports.get("fixture.grad", "paddle", where="p.md")
    assert rec["status"] == "passed" and rec["observed"]["value"] == -16.0
    with pytest.raises(ReportError, match=r"^p\.md: claim fixture\.grad\[torch-cpu\] failed in "):
        reports.get("fixture.grad", "torch", where="p.md")
    with pytest.raises(ReportError, match=r"value: expected -16.0, observed 3"):
        reports.get("fixture.grad", "torch")
    with pytest.raises(ReportError, match=r"claim fixture.leaf\[torch-gpu\] skipped in .*no GPU"):
        reports.get("fixture.leaf", "torch", "gpu")
    with pytest.raises(
        ReportError, match=r"fixture.speed\[paddle-cpu\] is not in .*claims.json \("
    ):
        reports.get("fixture.speed", "paddle")
    with pytest.raises(ReportError, match=r"is not in .*claims.json or results/"):
        reports.get("fixture.speed", "paddle", "gpu")
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    with pytest.raises(
        ReportError, match=r"fixture.grad\[paddle-cpu\] is stale in .*: the snippet"
    ):
        Reports(reports.live.path, tmp_path / "results", snippets, VERSIONS).get(
            "fixture.grad", "paddle"
        )


def test_a_build_judges_each_record_once_a_new_read_judges_again(snippets, tmp_path, monkeypatch):
    """The reports of a build (Reports) judge each record once: the pages ask for the same
    records thousands of times and judging one hashes every file its case reads (most of the
    site build's time before). A new read of the reports (the next build) judges again; a
    Report read on its own judges at each call."""
    reports = make_reports(snippets, tmp_path, run_all(snippets))
    judged = []
    real = report_module.staleness
    monkeypatch.setattr(
        report_module, "staleness", lambda *a, **k: judged.append(a[0]["id"]) or real(*a, **k)
    )
    first = reports.entries_for("fixture.grad", "paddle", "cpu")
    assert reports.entries_for("fixture.grad", "paddle", "cpu") == first
    again_read = zip(reports.live.entries(), reports.live.entries(), strict=True)
    assert all(e is f for e, f in again_read)
    assert judged.count("fixture.grad") == 2  # paddle and torch, once each
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    assert reports.entries_for("fixture.grad", "paddle", "cpu")[0].stale is None  # this build's
    again = Reports(reports.live.path, tmp_path / "results", snippets, VERSIONS)
    assert again.entries_for("fixture.grad", "paddle", "cpu")[0].stale.startswith("the snippet")
    alone = Report(reports.live.path, live=True, snippets=snippets, versions=VERSIONS)
    rec = alone.records[("fixture.grad", "paddle", "cpu")]
    before = len(judged)
    assert alone.entry(rec) is not alone.entry(rec) and len(judged) == before + 2


def test_gpu_values_may_come_from_an_environment_report_cpu_values_never(snippets, tmp_path):
    cases = cases_for(snippets)
    gpu = passed(cases[("fixture.chain", "torch", "gpu")], gpu="NVIDIA H200")
    cpu_elsewhere = passed(cases[("fixture.grad", "torch", "cpu")], date="2026-12-24")
    live = [
        r
        for r in run_all(snippets)
        if not (r["id"] == "fixture.grad" and r["framework"] == "torch")
    ]
    reports = make_reports(snippets, tmp_path, live, [("gpu", [gpu, cpu_elsewhere], VERSIONS)])
    assert reports.get("fixture.chain", "torch", "gpu")["env"]["gpu"] == "NVIDIA H200"
    with pytest.raises(ReportError, match="is not in"):
        reports.get("fixture.grad", "torch", "cpu")
    with pytest.raises(ReportError, match="skipped"):
        reports.get("fixture.chain", "paddle", "gpu")
    entries = reports.entries_for("fixture.chain", "torch", "gpu")
    assert [e.status for e in entries] == ["skipped", "passed"]
    assert [e.report.name for e in entries] == ["this build", "gpu"]


def test_the_newest_passed_record_wins(snippets, tmp_path):
    cases = cases_for(snippets)
    old = passed(cases[("fixture.chain", "torch", "gpu")], date="2026-01-01")
    new = passed(cases[("fixture.chain", "torch", "gpu")], date="2026-06-01")
    reports = make_reports(
        snippets, tmp_path, run_all(snippets), [("a", [old], VERSIONS), ("b", [new], VERSIONS)]
    )
    assert reports.get("fixture.chain", "torch", "gpu")["env"]["date"] == "2026-06-01"
    assert [e.report.name for e in reports.entries_for("fixture.chain", "torch", "gpu")] == [
        "this build",
        "a",
        "b",
    ]


def test_freshness_of_the_live_report(snippets, tmp_path):
    path = tmp_path / "claims.json"
    assert freshness(path, snippets, VERSIONS) == f"missing: {path}"
    records = run_all(snippets)
    write(records[1:], path, snippets=snippets, versions=VERSIONS)
    assert freshness(path, snippets, VERSIONS) == "stale: no result for fixture.leaf[paddle-cpu]"
    case = cases_for(snippets)[("fixture.leaf", "paddle", "cpu")]
    bad = record(case, status="failed", env=env_for("paddle"), reason="x")
    write([bad], path, snippets=snippets, versions=VERSIONS)
    assert freshness(path, snippets, VERSIONS) == "stale: fixture.leaf[paddle-cpu] failed"
    write(records, path, snippets=snippets, versions=VERSIONS)
    assert freshness(path, snippets, VERSIONS) == "fresh"
    assert freshness(path, snippets, {**VERSIONS, "torch": "2.14.1"}).startswith(
        "stale: fixture.leaf[torch-cpu]: ran on torch 2.13.0+cpu, expected 2.14.1"
    )
    path.write_text("{}", encoding="utf-8")
    assert freshness(path, snippets, VERSIONS).startswith("unreadable: ")


def test_environment_of_a_case():
    context = context_for()
    info = {"framework": "torch", "version": "2.13.0+cpu", "python": "3.11.7", "gpu": "H200",
            "cuda": "13.0", "allocator": {"MALLOC_ARENA_MAX": "2"}}  # fmt: skip
    cpu = environment(info, "cpu", context)
    assert cpu == {
        "framework": "torch",
        "version": "2.13.0+cpu",
        "module_version": "2.13.0+cpu",
        "versions": {"paddle": "3.3.1", "torch": "2.13.0+cpu"},
        "device": "cpu",
        "gpu": None,
        "cuda": None,
        "python": "3.11.7",
        "platform": context.platform,
        "cpu": "Test CPU",
        "host": dict(context.host),
        "allocator": {"MALLOC_ARENA_MAX": "2"},
        "date": "2026-12-01T10:00:00+00:00",
    }
    assert cpu["platform"].startswith("Linux")
    assert cpu["host"]["cpu"] == "Test CPU" and cpu["host"] == {**host(), "cpu": "Test CPU"}
    gpu = environment(info, "gpu", context)
    assert (gpu["device"], gpu["gpu"], gpu["cuda"]) == ("gpu", "H200", "13.0")
    bare = environment({"framework": "paddle"}, "cpu", context.replace(python="3.99.1"))
    assert bare["python"] == "3.99.1" and bare["module_version"] is None
    assert bare["version"] == "3.3.1"
    other = context.replace(versions={"paddle": None, "torch": "2.11.0"}, platform="Linux-x")
    elsewhere = environment(info, "cpu", other)
    assert elsewhere["version"] == "2.11.0" and elsewhere["platform"] == "Linux-x"
    assert elsewhere["versions"] == {"paddle": None, "torch": "2.11.0"}
    assert environment({"framework": "paddle"}, "cpu", other)["version"] is None


def test_a_context_is_this_process_when_captured_and_never_changes():
    import os
    import platform

    from verified.versions import installed_versions

    context = RunContext.capture()
    assert dict(context.host) == host() and context.host["cpu"] == cpu_model()
    assert host()["cores"] >= 1 and host()["machine"] and host()["kernel"].startswith("Linux ")
    assert host()["libc"].startswith("glibc 2.")
    assert dict(context.versions) == installed_versions()
    assert context.engine_hash == claims_module.engine_hash()
    assert (context.python, context.platform) == (platform.python_version(), platform.platform())
    assert dict(context.environ) == dict(os.environ)
    assert context.clock is now
    made = {"cpu": "A"}
    fixed = context.replace(host=made, environ={"A": "1"}, clock=lambda: "then")
    made["cpu"] = "B"  # the dict it was made from changes; the context does not
    assert fixed.host["cpu"] == "A" and fixed.date() == "then"
    os.environ["AUTOGRAD_CONTEXT_TEST"] = "1"
    try:
        assert "AUTOGRAD_CONTEXT_TEST" not in context.environ  # captured before
    finally:
        del os.environ["AUTOGRAD_CONTEXT_TEST"]
    with pytest.raises(TypeError):
        context.host["cpu"] = "Test CPU"  # type: ignore[index]
    with pytest.raises(TypeError):
        context.environ["MALLOC_TOP_PAD_"] = "1"  # type: ignore[index]
    with pytest.raises(AttributeError):
        context.engine_hash = "x"  # type: ignore[misc]


def test_cpu_model_and_clock():
    import re as regex

    model = cpu_model()
    assert model and "model name" not in model and not model.startswith(" ")
    assert regex.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\+00:00", now())


def test_results_problems_name_the_case_and_the_command(snippets, tmp_path):
    from verified.matrix import Environment

    results = tmp_path / "results"
    old = Environment("paddle-2.6.2", "paddle", "2.6.2", ())
    gone = Environment("torch-2.4.1", "torch", "2.4.1", ())
    records = [
        r for r in run_all(snippets, OTHER) if r["framework"] == "paddle" and r["device"] == "cpu"
    ]
    write(records, results / "paddle-2.6.2.json", snippets=snippets, versions=OTHER)
    assert results_problems(results, snippets, [old]) == []
    problems = results_problems(results, snippets, [old, gone])
    assert problems == [
        "results/torch-2.4.1.json is missing: run `nox -s \"matrix(env='torch-2.4.1')\"`"
    ]
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    problems = results_problems(results, snippets, [old])
    assert problems == [
        "results/paddle-2.6.2.json: fixture.grad[paddle-cpu] is stale (the snippet, a file it "
        "reads or the expectation changed since it ran): run `nox -s \"matrix(env='paddle-2.6.2')\"`"
    ]
    case = cases_for(snippets, OTHER)[("fixture.chain", "paddle", "cpu")]
    failed = record(case, status="failed", env=env_for("paddle", version="2.6.2"), reason="boom")
    write([failed], results / "paddle-2.6.2.json", snippets=snippets, versions=OTHER)
    problems = results_problems(results, snippets, [old])
    assert any(
        "fixture.chain[paddle-cpu] failed on paddle 2.6.2 (boom): declare" in p for p in problems
    )
    other = Environment("paddle-2.6.2", "paddle", "2.6.3", ())
    assert any(
        "ran on paddle 2.6.2, not 2.6.3" in p for p in results_problems(results, snippets, [other])
    )
    assert results_problems(results, snippets, []) == [
        "results/paddle-2.6.2.json is not an environment of results/matrix.toml"
    ]
    (results / "paddle-2.6.2.json").unlink()
    write([], results / "paddle-2.6.2.json", snippets=snippets, versions=OTHER)
    problems = results_problems(results, snippets, [old])
    assert "results/paddle-2.6.2.json: no result for fixture.leaf: run" in problems[0]


def test_results_problems_go_on_after_a_missing_report(snippets, tmp_path, monkeypatch):
    """Every declared environment is checked (``results/matrix.toml``'s when none are given),
    after a missing report too; a failure's reason is cut at 200 characters; a GPU report's
    problems join the others, and the reports after it are checked too."""
    from verified import matrix
    from verified.matrix import Environment

    results = tmp_path / "results"
    old = Environment("paddle-2.6.2", "paddle", "2.6.2", ())
    gone = Environment("torch-2.4.1", "torch", "2.4.1", ())
    case = cases_for(snippets, OTHER)[("fixture.chain", "paddle", "cpu")]
    reason = "x" * 200 + "CUT"
    failed = record(case, status="failed", env=env_for("paddle", version="2.6.2"), reason=reason)
    others = [r for r in run_all(snippets, OTHER) if r["framework"] == "paddle"]
    others = [r for r in others if r["device"] == "cpu" and r["id"] != "fixture.chain"]
    write([*others, failed], results / "paddle-2.6.2.json", snippets=snippets, versions=OTHER)
    for extra in ("gpu-a", "other"):  # a GPU report, checked by its own rules, and a stray one
        write([], results / f"{extra}.json", snippets=snippets, versions=VERSIONS, name=extra)
    monkeypatch.setattr(matrix, "environments", lambda: [gone, old])
    refresh = "run `nox -s \"matrix(env='paddle-2.6.2')\"`"
    assert results_problems(results, snippets) == [
        "results/torch-2.4.1.json is missing: run `nox -s \"matrix(env='torch-2.4.1')\"`",
        f"results/paddle-2.6.2.json: fixture.chain[paddle-cpu] failed on paddle 2.6.2 "
        f"({'x' * 200}): declare the difference with a [[claim.expect.paddle.versions]] "
        f"override, then {refresh}",
        "results/gpu-a.json: no case passed on a GPU: not a GPU report to keep",
        "results/other.json is not an environment of results/matrix.toml",
    ]


def test_a_gpu_value_comes_from_the_newest_run_that_passed(snippets, tmp_path):
    """A GPU case that passed in the live report and in an environment report: the dated run
    wins over one without a date, and the newer of two dated ones."""
    case = cases_for(snippets)[("fixture.chain", "torch", "gpu")]
    live = passed(case, date=None)
    write([live], tmp_path / "claims.json", snippets=snippets, versions=VERSIONS)
    kit = passed(case, date="2026-11-01T10:00:00+00:00")
    write([kit], tmp_path / "results" / "gpu-a.json", snippets=snippets, versions=VERSIONS,
          name="gpu-a")  # fmt: skip
    reports = Reports(tmp_path / "claims.json", tmp_path / "results", snippets, VERSIONS)
    assert reports.get("fixture.chain", "torch", "gpu")["env"]["date"] == kit["env"]["date"]
    live = passed(case, date="2026-11-02T10:00:00+00:00")
    write([live], tmp_path / "claims.json", snippets=snippets, versions=VERSIONS)
    reports = Reports(tmp_path / "claims.json", tmp_path / "results", snippets, VERSIONS)
    assert reports.get("fixture.chain", "torch", "gpu")["env"]["date"] == live["env"]["date"]


def test_a_gpu_record_names_the_gpu_machines_host_when_its_worker_gave_one():
    """The GPU kit's worker describes the machine it ran on (``gpu_host``): kept with a GPU
    record, never with a CPU one, and absent when the worker did not say."""
    context = context_for()
    info = {"framework": "torch", "gpu": "NVIDIA H200", "gpu_host": {"cpu": "Xeon", "cores": 8}}
    assert environment(info, "gpu", context)["gpu_host"] == {"cpu": "Xeon", "cores": 8}
    assert "gpu_host" not in environment(info, "cpu", context)
    assert "gpu_host" not in environment({**info, "gpu_host": None}, "gpu", context)
    assert "gpu_host" not in environment({**info, "gpu": None}, "gpu", context)


def test_the_host_names_processor_cores_c_library_and_kernel(monkeypatch):
    """What decides whether a record stands for this machine; where the platform cannot say
    the usable cores or the C library, None and the system's name."""
    import os
    import platform

    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 5}, raising=False)
    monkeypatch.setattr(platform, "libc_ver", lambda: ("glibc", "2.41"))
    assert host() == {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": 3,
        "libc": "glibc 2.41",
        "kernel": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
    }
    monkeypatch.delattr(os, "sched_getaffinity")
    monkeypatch.setattr(platform, "libc_ver", lambda: ("", ""))
    bare = host()
    assert bare["usable_cores"] is None and bare["libc"] == platform.system()


def test_cpu_model_reads_the_model_name(tmp_path, monkeypatch):
    import platform

    info = tmp_path / "cpuinfo"
    info.write_text("processor\t: 0\nmodel name\t: Intel(R) Xeon(R): Gold 6148\nflags\t: x\n")
    assert cpu_model(info) == "Intel(R) Xeon(R): Gold 6148"
    monkeypatch.setattr(platform, "processor", lambda: "")
    monkeypatch.setattr(platform, "machine", lambda: "x86_64")
    assert cpu_model(tmp_path / "absent") == "x86_64"
    info.write_text("processor\t: 0\n")
    assert cpu_model(info) == "x86_64"
    monkeypatch.setattr(platform, "processor", lambda: "arm")
    assert cpu_model(info) == "arm"


def test_records_keep_the_duration_and_the_worker_python(snippets):
    case = cases_for(snippets)[("fixture.grad", "torch", "cpu")]
    rec = record(case, status="passed", env=env_for("torch"), observed={"duration_s": 1.25})
    assert rec["duration_s"] == 1.25
    assert "duration_s" not in record(case, status="passed", env=env_for("torch"), observed={})
    env = environment({"framework": "torch", "python": "3.9.9"}, "cpu", context_for())
    assert env["python"] == "3.9.9"


def test_report_errors_say_what_to_run(snippets, tmp_path):
    with pytest.raises(ReportError) as excinfo:
        Report(tmp_path / "absent.json", live=True, snippets=snippets)
    assert str(excinfo.value) == (
        f"{tmp_path / 'absent.json'} not found: run the claims first (`nox -s tests`, or "
        "`pytest snippets`)"
    )
    old = tmp_path / "old.json"
    old.write_text(json.dumps({"schema": 1, "claims": []}), encoding="utf-8")
    with pytest.raises(ReportError) as excinfo:
        Report(old, live=True, snippets=snippets)
    assert str(excinfo.value) == f"{old} has schema 1, expected 2: run the claims again"


def test_live_reports_use_the_installed_versions_environment_reports_their_own(snippets, tmp_path):
    from verified.versions import installed

    live = tmp_path / "claims.json"
    write(run_all(snippets), live, snippets=snippets, versions=VERSIONS)
    report = Report(live, live=True, snippets=snippets, versions={})
    rec = report.records[("fixture.grad", "paddle", "cpu")]
    assert report.expected_version(rec) == installed("paddle")
    results = tmp_path / "results"
    write(run_all(snippets, OTHER), results / "old.json", snippets=snippets, versions=OTHER)
    reports = Reports(live, results, snippets, versions=VERSIONS)
    old = [
        e
        for e in reports.entries_for("fixture.grad", "paddle", "cpu")
        if e.report is not reports.live
    ]
    assert old and old[0].stale is None and old[0].env["version"] == "2.6.2"
    assert reports.live.live is True and reports.others[0].live is False


def test_lookup_messages_in_full(snippets, tmp_path):
    records = [r for r in run_all(snippets) if r["id"] != "fixture.speed"]
    reports = make_reports(snippets, tmp_path, records)
    live = reports.live.path
    with pytest.raises(ReportError) as excinfo:
        reports.get("fixture.speed", "paddle")
    assert str(excinfo.value) == (
        f"claim fixture.speed[paddle-cpu] is not in {live} (unknown id, or the claims were not run)"
    )
    (snippets / "fixture" / "grad_paddle.py").write_text("# changed\n", encoding="utf-8")
    reports = Reports(live, tmp_path / "results", snippets, VERSIONS)
    with pytest.raises(ReportError) as excinfo:
        reports.get("fixture.grad", "paddle", where="p.md")
    assert str(excinfo.value) == (
        f"p.md: claim fixture.grad[paddle-cpu] is stale in {live}: the snippet, a file it reads "
        "or the expectation changed since it ran; run the claims again"
    )


def test_results_problems_for_foreign_and_unreadable_reports(snippets, tmp_path):
    from verified.matrix import Environment

    results = tmp_path / "results"
    first = Environment("paddle-2.6.2", "paddle", "2.6.2", ())
    second = Environment("torch-2.4.1", "torch", "2.4.1", ())
    results.mkdir()
    (results / "paddle-2.6.2.json").write_text("{broken", encoding="utf-8")
    records = [r for r in run_all(snippets, OTHER) if r["framework"] == "paddle"]
    write(records, results / "torch-2.4.1.json", snippets=snippets, versions=OTHER)
    problems = results_problems(results, snippets, [first, second])
    assert problems[0].endswith(
        "is not valid JSON: Expecting property name enclosed in double quotes: line 1 column 2 "
        "(char 1) (run `nox -s \"matrix(env='paddle-2.6.2')\"`)"
    )
    assert "results/torch-2.4.1.json: fixture.leaf[paddle-cpu] is not a torch CPU case" in problems
    assert "results/torch-2.4.1.json: fixture.leaf[paddle-gpu] is not a torch CPU case" in problems


def test_results_problems_judge_a_gpu_report_by_the_snippets_given(snippets, tmp_path):
    """A GPU report among the results is checked against the same snippets as the matrix
    reports: its fixture records are fresh there, and the failed one is named (against the
    site's own snippets they would be no declared case at all)."""
    results = tmp_path / "results"
    cases = cases_for(snippets)
    ran = passed(cases[("fixture.chain", "torch", "gpu")])
    failed = record(
        cases[("fixture.chain", "paddle", "gpu")],
        status="failed",
        env=env_for("paddle", "gpu"),
        reason="boom",
    )
    path = results / "gpu-test.json"
    write([ran, failed], path, snippets=snippets, versions=VERSIONS, name="gpu-test")
    assert results_problems(results, snippets, []) == [
        "results/gpu-test.json: fixture.chain[paddle-gpu] failed on NVIDIA H200 with paddle "
        "3.3.1 (boom): declare what the GPU does in the claim's expect.paddle.gpu table (or, if "
        "the release decides it, a [[claim.expect.paddle.versions]] range), with the observed "
        "value and why in a comment, or fix the snippet; then run the kit again"
    ]


def test_a_record_carries_its_process_allocator_and_huge_page_mode(snippets):
    case = cases_for(snippets)[("fixture.launch", "torch", "cpu")]
    observed = {
        **observed_for(case),
        "allocator": {"MALLOC_MMAP_THRESHOLD_": "131072"},
        "thp": {"enabled": "madvise"},
    }
    rec = record(case, status="passed", env=env_for("torch"), observed=observed)
    assert rec["env"]["allocator"] == {"MALLOC_MMAP_THRESHOLD_": "131072"}
    assert rec["env"]["thp"] == {"enabled": "madvise"}
    assert rec["env"]["cpu"] == "Test CPU"  # the rest of the environment kept
    plain = record(case, status="passed", env=env_for("torch"), observed=observed_for(case))
    assert "allocator" not in plain["env"] and "thp" not in plain["env"]


def test_write_with_a_context_keeps_old_records_of_its_engine_and_versions_only(snippets, tmp_path):
    """The previous report's records are kept for the run context's engine and releases (or
    the releases passed), never for another engine's or release's."""
    context = context_for(engine_hash="engine-1")
    path = tmp_path / "claims.json"
    cases, records = cpu_records(snippets, context)
    write(records, path, snippets=snippets, context=context)
    assert len(write([], path, snippets=snippets, context=context)["claims"]) == len(cases)
    other_engine = context.replace(engine_hash="engine-2")
    assert write([], path, snippets=snippets, context=other_engine)["claims"] == []

    write(records, path, snippets=snippets, context=context)
    kept = write([], path, snippets=snippets, context=context, versions={"paddle": "3.2.2"})
    # paddle's records ran on the context's release, not 3.2.2; torch's release is the context's
    assert {r["framework"] for r in kept["claims"]} == {"torch"}


def test_the_report_file_is_one_space_indented_json_with_its_words_as_written(snippets, tmp_path):
    path = tmp_path / "new" / "folder" / "claims.json"  # folders made as needed
    report = write(run_all(snippets), path, snippets=snippets, versions=VERSIONS, name="本次构建")
    text = path.read_text(encoding="utf-8")
    assert text == json.dumps(report, indent=1, ensure_ascii=False) + "\n"
    assert '\n "name": "本次构建",\n' in text


def test_a_previous_report_without_claims_is_an_empty_one(snippets, tmp_path):
    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"schema": SCHEMA}), encoding="utf-8")
    assert write([], path, snippets=snippets, versions=VERSIONS)["claims"] == []


def test_a_record_of_a_framework_not_installed_answers_its_device_s_case(snippets):
    """A GPU run records the framework it lacks as skipped, with no version: the case its
    record answers is still merged for its own device (here Paddle's GPU tolerance)."""
    from verified.report import _claims_by_id, case_for

    claims = _claims_by_id(snippets)
    rec = {"id": "fixture.chain", "framework": "paddle", "device": "gpu"}
    case = case_for(claims, rec, None)
    assert (case.framework, case.device, case.version, case.override) == (
        "paddle", "gpu", None, None
    )  # fmt: skip
    assert case.spec["tol_bytes"] == 512
    assert case_for(claims, {**rec, "device": "cpu"}, None).spec.get("tol_bytes") is None
    assert case_for(claims, {**rec, "id": "fixture.gone"}, None) is None


def test_a_report_is_written_and_read_as_utf8_whatever_the_locale(snippets, tmp_path, ascii_locale):
    """A report holds words of any language (its name, a reason, an observed message): it is
    written, merged, read and reused as UTF-8, also where the locale's encoding is ASCII."""
    context = context_for()
    path = tmp_path / "claims.json"
    cases, records = cpu_records(snippets, context)
    write(records, path, snippets=snippets, context=context, name="本次构建")
    assert '\n "name": "本次构建",\n' in path.read_bytes().decode("utf-8")
    again = write([], path, snippets=snippets, context=context, name="本次构建")  # merged
    assert len(again["claims"]) == len(cases)
    assert Report(path, live=True, snippets=snippets, versions=VERSIONS).name == "本次构建"
    assert sorted(reusable(cases, path, context)) == sorted(case.name for case in cases)


def test_a_build_judges_each_record_of_an_environment_report_once(snippets, tmp_path):
    """Environment reports are read once per build too: a record judged fresh stays so for
    the build (a change of its snippet shows at the next read)."""
    gpu = passed(cases_for(snippets)[("fixture.chain", "torch", "gpu")])
    reports = make_reports(snippets, tmp_path, run_all(snippets), [("gpu", [gpu], VERSIONS)])
    (first,) = reports.others[0].entries()
    (snippets / "fixture" / "chain_torch.py").write_text("# changed\n", encoding="utf-8")
    assert reports.others[0].entries()[0] is first and first.stale is None
    again = Reports(reports.live.path, tmp_path / "results", snippets, VERSIONS)
    assert again.others[0].entries()[0].stale.startswith("the snippet")
