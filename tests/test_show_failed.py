"""A reader always gets a site: on a machine where a claim fails, the steps of `nox -s site`
still build it and show the failure where the claim appears, in both languages, with a banner
and a summary on the terminal; the strict build of `nox -s tests` (and CI, and the publishing
workflow) refuses it, naming the claim.

The claim is broken on purpose in a copy of the working tree: an expectation no run can meet.
Only that claim runs again; every other result of this host's report stands (their inputs are
unchanged), and the notebooks execute from the cache the build filled.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from verified.claims import ROOT

BROKEN = "inplace.leaf-error"
WRONG = 'match = "a message no framework writes"'


def copy_tree(target: Path) -> None:
    listed = subprocess.run(
        ["git", "ls-files", "-co", "--exclude-standard", "-z"],
        cwd=ROOT, capture_output=True, check=True, text=True,
    ).stdout.split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    for generated in ("build/claims.json", "build/notebooks", "build/mkdocs-jupyter"):
        source = ROOT / generated
        if source.is_dir():
            shutil.copytree(source, target / generated, dirs_exist_ok=True)
        elif source.is_file():
            (target / generated).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / generated)


def run(tree: Path, *args: str, show_failed: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "AUTOGRAD_SHOW_FAILED": show_failed}
    return subprocess.run(
        [sys.executable, "-m", *args], cwd=tree, env=env, capture_output=True, text=True,
        timeout=900,
    )  # fmt: skip


def break_claim(tree: Path) -> None:
    claims = tree / "snippets" / "inplace" / "claims.toml"
    text = claims.read_text(encoding="utf-8")
    start = text.index(f'id = "{BROKEN}"')
    torch = text.index("[claim.expect.torch]", start)
    line = text.index("match = ", torch)
    end = text.index("\n", line)
    claims.write_text(text[:line] + WRONG + text[end:], encoding="utf-8")


@pytest.mark.site  # needs this run's report and notebook cache
def test_the_site_shows_a_failed_claim_and_the_strict_build_refuses_it(tmp_path):
    tree = tmp_path / "tree"
    copy_tree(tree)
    break_claim(tree)
    claims = run(tree, "pytest", "snippets", "-q", "-p", "no:cacheprovider", "-k", BROKEN,
                 show_failed="0")  # fmt: skip
    assert claims.returncode == 1, claims.stdout[-2000:]
    assert f"FAILED snippets/inplace/claims.toml::{BROKEN}[torch-cpu]" in claims.stdout

    notebooks = run(tree, "verified.notebooks", "build", show_failed="1")
    assert notebooks.returncode == 0, notebooks.stdout[-2000:] + notebooks.stderr[-2000:]
    lenient = run(tree, "mkdocs", "build", "--strict", "-d", str(tmp_path / "lenient"),
                  show_failed="1")  # fmt: skip
    assert lenient.returncode == 0, lenient.stderr[-3000:]
    assert "claim case(s) failed on this machine" in lenient.stderr
    assert f"  {BROKEN}[torch-cpu] on " in lenient.stderr
    assert f"Rerun them: python -m pytest snippets -k '{BROKEN}[torch-cpu]'" in lenient.stderr
    banner = {"en": "Some results on this page failed on this machine",
              "zh": "本页有部分结果在本机上未通过"}  # fmt: skip
    marked = {"en": "✗ failed on this machine: observed", "zh": "✗ 本机未通过：观测值"}
    for lang in ("en", "zh"):
        root = tmp_path / "lenient" / ("" if lang == "en" else "zh")
        pages = [p for p in root.rglob("index.html") if "claim-failed" in p.read_text("utf-8")]
        if lang == "en":
            pages = [p for p in pages if "zh" not in p.relative_to(root).parts]
        assert pages, f"no {lang} page shows the failed claim"
        for page in pages:
            html = page.read_text(encoding="utf-8")
            assert banner[lang] in html and marked[lang] in html, page
            assert re.search(rf'data-claim="{re.escape(BROKEN)}"[^>]*data-framework="torch"', html)

    strict = run(tree, "mkdocs", "build", "--strict", "-d", str(tmp_path / "strict"),
                 show_failed="0")  # fmt: skip
    assert strict.returncode != 0
    assert f"claim {BROKEN}[torch-cpu] failed in build/claims.json" in strict.stdout + strict.stderr
