"""The committed environment reports (results/*.json, written by `nox -s matrix`): each
matches the current snippets, claims and engine, ran on the release its environment names,
and holds no failure that a per-release override does not declare. CI does not run the matrix;
this test fails with the stale cases and the command that refreshes them."""

from __future__ import annotations

from verified.results import results_problems


def test_committed_environment_reports_are_fresh():
    problems = results_problems()
    assert not problems, "\n".join(problems)
