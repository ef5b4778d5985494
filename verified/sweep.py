"""Opt-in demonstration (``nox -s sweep``): the in-place article's inference memory claim at
sizes the test suite does not use.

The claims run at 4 MiB so that the whole suite stays fast; allocator statistics are exact, so
size does not change the conclusion. This sweep shows it: it runs the same snippet functions
(``snippets/inplace/activation_<framework>.py``) on inputs from 1 MiB to 256 MiB, in a fresh
process per framework, and writes ``build/sweep.json``. Nothing on the site depends on it.
"""

from __future__ import annotations

import json
import runpy
import subprocess
import sys

from verified.claims import ROOT

SIZES_MIB = (1, 4, 16, 64, 256)
OUT = ROOT / "build" / "sweep.json"


def measure(framework: str) -> list[dict]:
    """Runs in a fresh process for one framework (CPU)."""
    from verified.worker import peak_bytes, setup

    setup(framework, "cpu")
    snippet = ROOT / "snippets" / "inplace" / f"activation_{framework}.py"
    namespace = runpy.run_path(str(snippet), run_name="sweep")
    if framework == "torch":
        import torch

        def make(n):
            return torch.rand(n)
    else:
        import paddle

        def make(n):
            return paddle.rand([n])

    rows = []
    for mib in SIZES_MIB:
        n = mib * 2**20 // 4  # float32 values
        signal = make(n)
        out_of_place = peak_bytes(
            framework, "cpu", lambda s=signal: namespace["activate_out_of_place"](s)
        )
        in_place = peak_bytes(framework, "cpu", lambda s=signal: namespace["activate_in_place"](s))
        rows.append(
            {
                "input_bytes": n * 4,
                "out_of_place_bytes": out_of_place,
                "in_place_bytes": in_place,
                "theoretical_out_of_place_bytes": 2 * n * 4,
            }
        )
        del signal
    return rows


def main() -> None:
    if sys.argv[1:2] == ["--framework"]:
        print(json.dumps(measure(sys.argv[2])))
        return
    results = {}
    for framework in ("paddle", "torch"):
        proc = subprocess.run(
            [sys.executable, "-m", "verified.sweep", "--framework", framework],
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=900,
            check=True,
        )
        results[framework] = json.loads(proc.stdout.strip().splitlines()[-1])
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(f"{'framework':<10}{'input':>12}{'out of place':>16}{'in place':>12}{'theory':>16}")
    for framework, rows in results.items():
        for row in rows:
            print(
                f"{framework:<10}{row['input_bytes'] / 2**20:>10.0f} MiB"
                f"{row['out_of_place_bytes'] / 2**20:>12.2f} MiB"
                f"{row['in_place_bytes'] / 2**20:>8.2f} MiB"
                f"{row['theoretical_out_of_place_bytes'] / 2**20:>12.2f} MiB"
            )
    print(f"written to {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
