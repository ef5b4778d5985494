"""The verification report, ``build/claims.json``: writing, reading and formatting."""

from __future__ import annotations

import datetime as dt
import json
import platform
from pathlib import Path

from verified.claims import ROOT, all_cases

REPORT = ROOT / "build" / "claims.json"


class ReportError(RuntimeError):
    pass


def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def environment(infos: dict[str, dict]) -> dict:
    gpus = {fw: info.get("gpu") for fw, info in infos.items() if info.get("gpu")}
    return {
        "python": platform.python_version(),
        "platform": platform.platform(),
        "torch": infos.get("torch", {}).get("version"),
        "paddle": infos.get("paddle", {}).get("version"),
        "cpu": cpu_model(),
        "gpu": next(iter(gpus.values()), None),
        "cuda_available": {fw: info.get("cuda_available") for fw, info in infos.items()},
    }


def write(
    records: list[dict], infos: dict[str, dict], path: Path = REPORT, snippets: Path | None = None
) -> dict:
    """Write the report. Records of claims not run this time are kept from the previous
    report if their sources are unchanged (so a run of one article does not erase the other);
    records of claims that no longer exist are dropped."""
    cases = all_cases(snippets) if snippets else all_cases()
    merged: dict[tuple, dict] = {}
    if path.exists():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            old = {"claims": []}
        for rec in old.get("claims", []):
            key = (rec["id"], rec["framework"], rec["device"])
            case = cases.get(key)
            if case is not None and rec.get("source_hash") == case.source_hash():
                merged[key] = rec
    for rec in records:
        key = (rec["id"], rec["framework"], rec["device"])
        if key in cases:  # a claim edited away while the tests ran is not reported
            merged[key] = rec
    order = list(cases)
    report = {
        "generated": dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        "environment": environment(infos),
        "claims": sorted(
            merged.values(), key=lambda r: order.index((r["id"], r["framework"], r["device"]))
        ),
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    return report


class Report:
    """The report as pages and figures read it; every lookup failure names the claim."""

    def __init__(self, path: Path = REPORT) -> None:
        if not path.exists():
            raise ReportError(
                f"{path.relative_to(ROOT)} not found: run the claims first "
                "(`nox -s tests`, or `pytest snippets`)"
            )
        self.path = path
        self.data = json.loads(path.read_text(encoding="utf-8"))
        self.environment = self.data["environment"]
        self.records = {(r["id"], r["framework"], r["device"]): r for r in self.data["claims"]}
        self.cases = all_cases()

    def get(self, claim_id: str, framework: str, device: str = "cpu", *, where: str = "") -> dict:
        """The record of a passed claim, checked against the current sources."""
        key = (claim_id, framework, device)
        prefix = f"{where}: " if where else ""
        rec = self.records.get(key)
        if rec is None:
            raise ReportError(
                f"{prefix}claim {claim_id} [{framework}-{device}] is not in "
                f"{self.path.relative_to(ROOT)} (unknown id, or the claims were not run)"
            )
        if rec["status"] != "passed":
            raise ReportError(
                f"{prefix}claim {claim_id} [{framework}-{device}] {rec['status']}: "
                f"{rec.get('reason')}"
            )
        case = self.cases.get(key)
        if case is None or case.source_hash() != rec.get("source_hash"):
            raise ReportError(
                f"{prefix}claim {claim_id} [{framework}-{device}]: the snippet or claim changed "
                "since the report was written; run the claims again"
            )
        return rec

    def latest_run(self, framework: str) -> str:
        return self.environment.get(framework) or "?"


# -- formatting -------------------------------------------------------------------------------

WORDS = {
    "en": {
        "bytes": "bytes",
        "verified": "Verified by running the code: {versions} on {device}, {date}.",
        "cpu": "CPU",
    },
    "zh": {
        "bytes": "字节",
        "verified": "本页内容均由实际运行验证：{versions}，{device}，{date}。",
        "cpu": "CPU",
    },
}


def fmt_bytes(n: int, lang: str) -> str:
    mib = n / 2**20
    unit = WORDS[lang]["bytes"]
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


def freshness(path: Path = REPORT) -> str:
    """'fresh' if the report holds a passed or skipped record, from the current sources, for
    every declared case; otherwise why not."""
    if not path.exists():
        return f"missing: {path.relative_to(ROOT)}"
    try:
        rep = Report(path)
    except (ValueError, KeyError) as exc:
        return f"unreadable: {exc}"
    for key, case in rep.cases.items():
        rec = rep.records.get(key)
        if rec is None:
            return f"stale: no result for {case.name}"
        if rec["status"] not in ("passed", "skipped"):
            return f"stale: {case.name} {rec['status']}"
        if rec.get("source_hash") != case.source_hash():
            return f"stale: {case.name} changed since it ran"
    return "fresh"


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--check"]:
        print(freshness())
    else:
        sys.exit("usage: python -m verified.report --check")
