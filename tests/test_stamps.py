"""Stamps of `nox -s tests` stages: a stage is not run again only when every input is unchanged
on this host; any change to the tree, to a generated file it reads, to the host or to the
installed packages makes it run; CI and --fresh always run it."""

from __future__ import annotations

import subprocess

import pytest

import verified.stamps as stamps


@pytest.fixture
def tree(tmp_path, monkeypatch):
    root = tmp_path / "tree"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / ".gitignore").write_text("build/\n", encoding="utf-8")
    (root / "page.md").write_text("# Page\n", encoding="utf-8")
    (root / "build").mkdir()
    (root / "build" / "claims.json").write_text("{}", encoding="utf-8")
    monkeypatch.setattr(stamps, "ROOT", root)
    monkeypatch.setattr(stamps, "STAMPS", root / "build" / "stamps")
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("AUTOGRAD_FRESH", raising=False)
    return root


def check(root, generated=("build/claims.json",)):
    return stamps.check("stage", [root / g for g in generated])


def record(root, generated=("build/claims.json",)):
    stamps.record("stage", [root / g for g in generated])


def test_a_stage_runs_until_it_succeeded_then_not_while_nothing_changes(tree):
    assert check(tree) == "it has not succeeded here before"
    record(tree)
    assert check(tree) is None


def test_every_input_counts(tree, monkeypatch):
    record(tree)
    assert check(tree) is None
    (tree / "page.md").write_text("# Page, edited\n", encoding="utf-8")  # a tracked file
    assert check(tree) == "an input changed since it last succeeded here"
    record(tree)
    (tree / "new.md").write_text("untracked, not ignored\n", encoding="utf-8")
    assert check(tree) is not None
    record(tree)
    (tree / "build" / "ignored.txt").write_text("ignored by git: not an input\n", "utf-8")
    assert check(tree) is None
    (tree / "build" / "claims.json").write_text('{"changed": 1}', encoding="utf-8")
    assert check(tree) is not None  # a generated file the stage reads
    record(tree)
    other = dict(stamps.host(), cpu="Another CPU")
    monkeypatch.setattr(stamps, "host", lambda: other)
    assert check(tree) is not None  # a stamp from another host never stands
    record(tree)
    monkeypatch.setattr(stamps, "packages", lambda: ["torch==9.9"])
    assert check(tree) is not None  # other installed packages


def test_ci_and_fresh_always_run(tree, monkeypatch):
    record(tree)
    assert check(tree) is None
    monkeypatch.setenv("CI", "true")
    assert check(tree) == "a fresh run was asked for (CI or --fresh)"
    monkeypatch.delenv("CI")
    monkeypatch.setenv("AUTOGRAD_FRESH", "1")
    assert check(tree) is not None


def test_the_command_line(tree, capsys):
    assert stamps.main(["check", "stage", "build/claims.json"]) == 1
    assert "stage: runs (it has not succeeded here before)" in capsys.readouterr().out
    assert stamps.main(["record", "stage", "build/claims.json"]) == 0
    assert stamps.main(["check", "stage", "build/claims.json"]) == 0
    assert "not run again" in capsys.readouterr().out
    assert stamps.main(["bogus"]) == 2
