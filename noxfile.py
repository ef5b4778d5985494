"""Sessions: `nox -s site -- serve` builds and serves the site, `nox -s tests` runs everything.

site       run the claims if the report is missing or stale, build notebooks and site
           (`-- serve` then serves it on http://127.0.0.1:8000)
tests      the whole test suite: claims and engine tests, notebooks, site build, checks
           on the built site
notebooks  build and execute the downloadable notebooks
e2e        real-browser tests (Debian's Chromium) against the built site, and a downloaded
           notebook run in JupyterLab (its kernel: this session's Python, with both frameworks)
lint       ruff
"""

from __future__ import annotations

import os
from pathlib import Path

import nox

nox.options.default_venv_backend = "venv"  # uv would not see the local CPU build of torch
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests"]

PYPROJECT = nox.project.load_toml("pyproject.toml")
PHASE_ONE = "not site and not e2e"


def install(session: nox.Session, *groups: str) -> None:
    requirements = list(nox.project.dependency_groups(PYPROJECT, *groups))
    # On a CUDA machine: PADDLE_PACKAGE="paddlepaddle-gpu==3.3.1" (with PIP_EXTRA_INDEX_URL
    # pointing at Paddle's package index) replaces the CPU build of Paddle.
    paddle = os.environ.get("PADDLE_PACKAGE")
    if paddle:
        requirements = [r for r in requirements if not r.startswith("paddlepaddle==")]
        requirements.append(paddle)
    session.install(*requirements)


def build(session: nox.Session, *, force_claims: bool = False) -> None:
    """Claims report (if needed), notebooks, then the site, strictly."""
    state = session.run("python", "-m", "verified.report", "--check", silent=True)
    session.log(f"claims report: {state.strip()}")
    if force_claims or not state.startswith("fresh"):
        session.run("pytest", "snippets", "-q", "-p", "no:cacheprovider")
    session.run("python", "-m", "verified.notebooks", "build")
    session.run("python", "-m", "mkdocs", "build", "--strict")


@nox.session(python="3.11")
def site(session: nox.Session) -> None:
    """Build the site; `nox -s site -- serve` also serves it on 127.0.0.1:8000."""
    install(session, "frameworks", "docs", "notebooks")
    session.install("pytest==9.2.0")
    build(session)
    if "serve" in session.posargs:
        session.run("python", "-m", "mkdocs", "serve", "--strict", "-a", "127.0.0.1:8000")


@nox.session(python="3.11")
def tests(session: nox.Session) -> None:
    """Everything: claims, engine and parity tests, notebooks, strict site build, site checks."""
    install(session, "test")
    session.run("pytest", "-m", PHASE_ONE, *session.posargs)
    session.run("python", "-m", "verified.notebooks", "build")
    session.run("python", "-m", "mkdocs", "build", "--strict")
    session.run("pytest", "-m", "site", "tests", *session.posargs)


@nox.session(python="3.11")
def notebooks(session: nox.Session) -> None:
    """Build the notebooks from the articles and snippets, and execute them."""
    install(session, "frameworks", "docs", "notebooks")
    session.install("pytest==9.2.0")
    session.run("python", "-m", "verified.notebooks", "build", *session.posargs)


@nox.session(python="3.11")
def e2e(session: nox.Session) -> None:
    """Real-browser tests against the built site in site/ (`nox -s site` or `nox -s tests`
    builds it). Needs Debian's Chromium at /usr/bin/chromium and fonts-noto-cjk. The `e2e`
    group includes `kernel` (ipykernel and the frameworks): JupyterLab runs the downloaded
    notebooks in this session's own Python."""
    if not Path("site/index.html").exists():
        session.error("site/ is not built: run `nox -s tests` or `nox -s site` first")
    install(session, "e2e")
    session.run("pytest", "-m", "e2e", "tests/e2e", *session.posargs)


@nox.session(python="3.11", default=False)
def sweep(session: nox.Session) -> None:
    """Opt-in: the inference memory claim at 1 MiB ... 256 MiB inputs (build/sweep.json)."""
    install(session, "frameworks")
    session.run("python", "-m", "verified.sweep")


@nox.session(python="3.11")
def lint(session: nox.Session) -> None:
    install(session, "lint")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
