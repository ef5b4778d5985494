"""Sessions: `nox -s site -- serve` builds and serves the site, `nox -s tests` runs everything.

site       run the claims if the report is missing or stale, build notebooks and site
           (`-- serve` then serves it on http://127.0.0.1:8000)
tests      the whole test suite: claims and engine tests, notebooks, site build, checks
           on the built site
notebooks  build and execute the downloadable notebooks
e2e        real-browser tests (Debian's Chromium) against the built site, a downloaded
           notebook run in JupyterLab (its kernel: the tests, site or notebooks session's Python),
           and the notebooks' install cell in a fresh virtualenv without the framework
gpu-sim    the GPU kit (python3 -m verified.gpu) end to end on a simulated GPU machine
lint       ruff, and the GitHub workflows validated offline
mutation   opt-in: mutation testing of the engine (mutmut), score per file
matrix     opt-in: every CPU claim on each release of results/matrix.toml, one environment
           each (`nox -s "matrix(env='paddle-2.6.2')"` for one), reports in results/

Each of tests, site, notebooks, e2e, gpu-sim and lint prints its stage times when it ends (stage,
seconds, run or reused) and appends them to build/stage-times.tsv (verified/stagetimes.py).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import time
import tomllib
from contextlib import contextmanager
from pathlib import Path

import nox

sys.path.insert(0, str(Path(__file__).resolve().parent))
from verified import stagetimes  # noqa: E402  (standard library only)

nox.options.default_venv_backend = "venv"  # uv would not see the local CPU build of torch
nox.options.reuse_venv = "yes"
nox.options.sessions = ["tests"]

PYPROJECT = nox.project.load_toml("pyproject.toml")
# `nox ... --install-only`: the sessions install and run nothing (nox skips session.run)
INSTALL_ONLY = "--install-only" in sys.argv
PHASE_ONE = "not site and not e2e and not gpu_sim"
# The site is built by ProperDocs, the maintained continuation of MkDocs 1.6 (MkDocs itself
# stays installed: Material and the plugins require it, and ProperDocs runs them, their
# `mkdocs.plugins` entry points and the hooks). `-f mkdocs.yml`: ProperDocs reads the file
# under this name when told to, and would otherwise ask for it to be renamed properdocs.yml.
SITE_BUILD = ("python", "-m", "properdocs", "build", "--strict", "-f", "mkdocs.yml")
# The checks on the built site are independent of each other: pytest-xdist spreads them over
# this many processes (both cores of the developers' machine). Not the claims: their own
# scheduler already uses the cores, and the timing claims must run alone.
SITE_WORKERS = os.environ.get("AUTOGRAD_SITE_WORKERS", "2")
E2E_WORKERS = os.environ.get("AUTOGRAD_E2E_WORKERS", "2")  # browser tests, the same
# `nox -s e2e -- install-cells`: only the notebooks' install cells in fresh virtualenvs (pip, one
# core, about 80 s; no browser and no built site), which CI runs beside the site build, whose
# one process leaves the other core idle; `nox -s e2e -- browser`: every other test. Without
# either, all of them (their pytest marker expressions).
KERNEL_SESSIONS = ("tests", "site", "notebooks")  # noxfile.kernel_python, in this order
INSTALL_CELLS = "tests/e2e/test_install_cell.py"
E2E_PARTS = {"install-cells": "e2e and install_cell", "browser": "e2e and not install_cell"}
MATRIX = tomllib.loads(Path("results/matrix.toml").read_text(encoding="utf-8"))["environment"]
# Downloads of `nox -s matrix`, kept between runs (pip's own HTTP cache stores nothing from the
# package server here, which sends no caching headers).
WHEELHOUSE = Path(
    os.environ.get("AUTOGRAD_WHEELHOUSE", Path.home() / ".cache" / "autograd-verified" / "wheels")
)


# The stage times of the sessions running in this nox process, by session name.
STAGE_TIMES: dict[str, list[stagetimes.Row]] = {}


def timed(func):
    """A session that prints its stage times when it ends, and appends them to
    build/stage-times.tsv (even when a stage failed: the time it took is known)."""

    @functools.wraps(func)
    def wrapper(session: nox.Session, *args, **kwargs):
        rows = STAGE_TIMES.setdefault(session.name, [])
        try:
            return func(session, *args, **kwargs)
        finally:
            if rows:
                for line in stagetimes.table(rows).splitlines():
                    session.log(line)
                stagetimes.append(rows)

    return wrapper


@contextmanager
def timing(session: nox.Session, name: str):
    """Time one stage; the caller sets ``how[0] = "reused"`` when it reused a result."""
    how = ["run"]
    started = time.perf_counter()
    try:
        yield how
    finally:
        seconds = time.perf_counter() - started
        row = stagetimes.Row(session.name, name, seconds, how[0])
        STAGE_TIMES.setdefault(session.name, []).append(row)


def install(session: nox.Session, *groups: str, extra: tuple[str, ...] = ()) -> None:
    bytecode_on_import(session)
    with timing(session, "install") as how:
        if _install(session, *groups, extra=extra):
            how[0] = "reused"


def bytecode_on_import(session: nox.Session) -> None:
    """The sessions that install through install() have pip install without compiling every
    module of every package to bytecode (--no-compile in ``_install``): pip alone took 72 s for
    the `tests` virtualenv with it and 41 s without (Intel Xeon, 2026-12-07), the first stage
    of the README's command. Python compiles what the session's commands import instead, once,
    into a folder of the virtualenv (PYTHONPYCACHEPREFIX; with PYTHONDONTWRITEBYTECODE set
    outside, as on the developers' machines, nothing would be kept and every process would
    compile torch again). Nothing is written into the checkout. (`nox -s matrix` installs
    through fetch_and_install, as before.)"""
    session.env["PYTHONPYCACHEPREFIX"] = str(Path(session.virtualenv.location) / "pycache")
    session.env["PYTHONDONTWRITEBYTECODE"] = None  # nox leaves a variable set to None out


def framework_imports(requirements: list[str]) -> str:
    """The statement that imports the frameworks among ``requirements`` ("" if none); a
    requirement that is not a name with a version (a path, a URL) imports nothing."""
    from packaging.requirements import InvalidRequirement, Requirement
    from packaging.utils import canonicalize_name

    modules = {"paddlepaddle": "paddle", "paddlepaddle-gpu": "paddle", "torch": "torch"}
    names = set()
    for text in requirements:
        try:
            name = canonicalize_name(Requirement(text).name)
        except InvalidRequirement:
            continue
        if name in modules:
            names.add(modules[name])
    return "; ".join(f"import {name}" for name in sorted(names))


def _install(session: nox.Session, *groups: str, extra: tuple[str, ...] = ()) -> bool:
    """Install the groups' pinned requirements (and ``extra``); True if they were there."""
    requirements = list(nox.project.dependency_groups(PYPROJECT, *groups))
    # On a CUDA machine: PADDLE_PACKAGE="paddlepaddle-gpu==3.3.1" (with PIP_EXTRA_INDEX_URL
    # pointing at Paddle's package index) replaces the CPU build of Paddle.
    paddle = os.environ.get("PADDLE_PACKAGE")
    if paddle:
        requirements = [r for r in requirements if not r.startswith("paddlepaddle==")]
        requirements.append(paddle)
    requirements += extra
    # pip takes seconds to find that nothing is missing: the venv remembers what was installed,
    # and by which run (AUTOGRAD_RUN_ID, set by CI): a run that reuses nothing from before it
    # (--fresh, CI) still reuses what it installed itself (CI installs the browser tests'
    # virtualenv beside the claims, then runs `nox -s e2e -- install-cells` and `-- browser`)
    marker = Path(session.virtualenv.location) / ".autograd-installed.json"
    run = os.environ.get("AUTOGRAD_RUN_ID")
    wanted = json.dumps({"requirements": sorted(requirements), "run": run})
    # The frameworks imported once, by one process, right after pip: the bytecode of what an
    # import of torch and of Paddle needs is written before the claims start the processes that
    # import them together, each of which would compile it again (3 to 5 s of the processor
    # each). Also for a virtualenv installed before the bytecode had its folder (none yet).
    # run_install: also under --install-only (CI installs the browser tests' virtualenv so,
    # which has neither framework since 2026-12-07: nothing to import there).
    imports = framework_imports(requirements)
    compiled = Path(session.virtualenv.location) / "pycache"
    installed = marker.is_file() and marker.read_text(encoding="utf-8") == wanted
    if installed and (run or not fresh(session)):
        if run:
            session.log(f"the pinned requirements were installed by this run ({run})")
        else:
            session.log("the pinned requirements are installed already (--fresh reinstalls them)")
        if imports and not compiled.is_dir():
            session.run_install("python", "-c", imports)
        return True
    session.install("--no-compile", *requirements)
    if imports:
        session.run_install("python", "-c", imports)
    marker.write_text(wanted, encoding="utf-8")
    return False


def fresh(session: nox.Session) -> bool:
    """`-- --fresh`, AUTOGRAD_FRESH=1 or CI: run everything again, reuse nothing."""
    return (
        "--fresh" in session.posargs
        or os.environ.get("AUTOGRAD_FRESH") == "1"
        or bool(os.environ.get("CI"))
    )


def stage(session: nox.Session, name: str, reads: list[str], *command: str, **kwargs) -> None:
    """Run one stage of the tests, unless every input it reads (the working tree, the generated
    files in ``reads``, the installed packages, Python and this host) is unchanged since it
    last succeeded here (verified/stamps.py); record its stamp when it succeeds. With pytest
    arguments other than --fresh, every stage runs."""
    stamped = all(arg == "--fresh" for arg in session.posargs)
    with timing(session, name) as how:
        if stamped and not fresh(session):
            said = session.run(
                "python", "-m", "verified.stamps", "check", name, *reads, silent=True,
                success_codes=[0, 1],
            )  # fmt: skip
            session.log(said.strip())
            if "not run again" in said:
                how[0] = "reused"
                return
        session.run(*command, **kwargs)
        if stamped:
            session.run("python", "-m", "verified.stamps", "record", name, *reads, silent=True)


def build(session: nox.Session, *, site: bool = True) -> None:
    """Claims report (if needed), notebooks, then the site (unless ``site`` is False: `mkdocs
    serve` builds it itself). A reader always gets a site: a claim that fails on this machine
    is shown as failed on its page (AUTOGRAD_SHOW_FAILED=1), and the build names it;
    `nox -s tests` (and CI, and the publishing workflow) refuses it."""
    with timing(session, "claims") as how:
        state = session.run("python", "-m", "verified.report", "--check", silent=True)
        session.log(f"claims report: {state.strip()}")
        if state.startswith("fresh"):
            how[0] = "reused"
        else:
            # exit code 1: some claim failed here; the site still shows it, as failed
            session.run(
                "pytest", "snippets", "-q", "-p", "no:cacheprovider", success_codes=[0, 1]
            )  # fmt: skip
    lenient = {"AUTOGRAD_SHOW_FAILED": "1"}
    with timing(session, "notebooks"):
        session.run("python", "-m", "verified.notebooks", "build", env=lenient)
    if site:
        with timing(session, "site"):
            session.run(*SITE_BUILD, env=lenient)


@nox.session(python="3.11")
@timed
def site(session: nox.Session) -> None:
    """Build the site; `nox -s site -- serve` serves it on 127.0.0.1:8000 instead, built once
    by `properdocs serve` itself (which, with --strict, refuses a build with warnings)."""
    install(session, "frameworks", "docs", "notebooks", extra=("pytest==9.2.0",))
    serve = "serve" in session.posargs
    build(session, site=not serve)
    if serve:
        for line in stagetimes.table(STAGE_TIMES[session.name]).splitlines():
            session.log(line)  # serving lasts until stopped: the times so far, now
        session.run(
            "python", "-m", "properdocs", "serve", "--strict", "-f", "mkdocs.yml",
            "-a", "127.0.0.1:8000",
            env={"AUTOGRAD_SHOW_FAILED": "1"},
        )  # fmt: skip


@nox.session(python="3.11")
@timed
def tests(session: nox.Session) -> None:
    """Everything: claims, engine and parity tests, notebooks, strict site build, site checks."""
    install(session, "test")
    strict = {"AUTOGRAD_SHOW_FAILED": "0"}  # a failed claim fails the build here, always
    notebooks = ["docs/en/notebooks", "docs/zh/notebooks", "build/notebooks.json"]
    stage(session, "claims-and-engine", ["build/claims.json"],
          "pytest", "-m", PHASE_ONE, *session.posargs, env=strict)  # fmt: skip
    stage(session, "notebooks", ["build/claims.json", *notebooks],
          "python", "-m", "verified.notebooks", "build", env=strict)  # fmt: skip
    stage(session, "site", ["build/claims.json", *notebooks, "site"],
          *SITE_BUILD, env=strict)  # fmt: skip
    stage(session, "site-tests", ["build/claims.json", *notebooks, "site"],
          "pytest", "-m", "site", "tests", "-n", SITE_WORKERS, *session.posargs,
          env=strict)  # fmt: skip


@nox.session(python="3.11")
@timed
def notebooks(session: nox.Session) -> None:
    """Build the notebooks from the articles and snippets, and execute them."""
    install(session, "frameworks", "docs", "notebooks", extra=("pytest==9.2.0",))
    with timing(session, "notebooks"):
        session.run("python", "-m", "verified.notebooks", "build", *session.posargs)


@nox.session(python="3.11")
@timed
def e2e(session: nox.Session) -> None:
    """Real-browser tests against the built site in site/ (`nox -s site` or `nox -s tests`
    builds it). Needs Debian's headless Chromium (chromium-headless-shell) and fonts-noto-cjk.
    JupyterLab runs the downloaded notebooks in the Python of the `tests`, else `site`, else
    `notebooks` session (kernel_python); this session's own virtualenv has neither framework."""
    install(session, "e2e")
    if INSTALL_ONLY:  # CI installs it beside the claims: no stage of browser tests to time
        return
    part = session.posargs[0] if session.posargs[:1] and session.posargs[0] in E2E_PARTS else None
    pytest_args = session.posargs[1:] if part else session.posargs
    if part == "install-cells":  # no browser, no site: one process, beside whatever runs
        with timing(session, "install-cells"):
            # their module only: collecting the others reads site/, which CI is building now
            session.run("pytest", "-m", E2E_PARTS[part], INSTALL_CELLS, *pytest_args)
        return
    session.env["AUTOGRAD_KERNEL_PYTHON"] = kernel_python(session)
    with timing(session, "browser-tests"):
        session.run(
            "python", "-c", "import pathlib, sys; pathlib.Path('site/index.html').exists() or "
            "sys.exit('site/ is not built: run `nox -s tests` or `nox -s site` first')",
        )  # fmt: skip
        # One browser and one site server per worker, both cores: the modules that share a
        # page or a server among their tests (search, first screen, JupyterLab) each stay on
        # one worker (their xdist_group); the other tests go to whichever worker is free, the
        # longest first (tests/e2e/conftest.py: LONGEST_FIRST).
        session.run(
            "pytest", "-m", E2E_PARTS.get(part, "e2e"), "tests/e2e", "-n", E2E_WORKERS,
            "--dist", "loadgroup", "--no-loadscope-reorder", *pytest_args,
        )  # fmt: skip


def kernel_python(session: nox.Session) -> str:
    """The Python that runs the downloaded notebooks in JupyterLab: that of the first of the
    `tests`, `site` and `notebooks` sessions whose virtualenv exists (each has both frameworks
    and ipykernel, and executes the notebooks when it builds them; in CI, the `tests` session's,
    which just did). (Until 2026-12-07 the browser tests' own virtualenv installed both
    frameworks for it: CI installed them twice.)"""
    envdir = Path(session.virtualenv.location).parent
    for name in KERNEL_SESSIONS:
        python = envdir / name / "bin" / "python"
        if python.is_file():
            return str(python)
    session.error(
        f"no virtualenv of {', '.join(KERNEL_SESSIONS)} in {envdir} for JupyterLab's kernel "
        "(both frameworks and ipykernel): run `nox -s tests` or `nox -s site` first"
    )


@nox.session(python="3.11", name="gpu-sim")
@timed
def gpu_sim(session: nox.Session) -> None:
    """The GPU kit end to end in a virtualenv made like the GPU machine (tests/test_gpu_sim.py):
    this session needs only pytest and the engine; the test builds that virtualenv itself (kept
    in build/gpu-sim/) and fetches the carried wheels into build/gpu-wheels/. Apart from
    `nox -s tests`, whose warm run it would slow down by the time a torch import takes."""
    install(session, "engine", extra=("pytest==9.2.0",))
    with timing(session, "gpu-sim"):
        session.run("pytest", "-m", "gpu_sim", "tests/test_gpu_sim.py", *session.posargs)


@nox.session(python="3.11", default=False)
def sweep(session: nox.Session) -> None:
    """Opt-in: the inference memory claim at 1 MiB ... 256 MiB inputs (build/sweep.json)."""
    install(session, "frameworks")
    session.run("python", "-m", "verified.sweep")


def fetch_and_install(session: nox.Session, *requirements: str) -> None:
    """Download into the wheelhouse (a no-op for wheels already there), install from it."""
    WHEELHOUSE.mkdir(parents=True, exist_ok=True)
    session.run("python", "-m", "pip", "download", "-q", "-d", str(WHEELHOUSE), *requirements)
    session.install("--no-index", "--find-links", str(WHEELHOUSE), *requirements)


@nox.session(python="3.11", default=False)
@nox.parametrize("env", [e["name"] for e in MATRIX])
def matrix(session: nox.Session, env: str) -> None:
    """Opt-in: run the CPU claims of one framework release of results/matrix.toml (all of them
    with `nox -s matrix`) and write results/<env>.json. A PyTorch release from PyPI is a CUDA
    build: it is installed without dependencies, then with what it needs on the CPU."""
    spec = next(e for e in MATRIX if e["name"] == env)
    tools = list(nox.project.dependency_groups(PYPROJECT, "engine")) + ["pytest==9.2.0"]
    # The other framework, at its pin, is only named in the report (the engine never imports
    # it here): installed without its dependencies, so that they cannot move the release's own.
    other = "paddlepaddle==" if spec["framework"] == "torch" else "torch=="
    pins = [r for r in spec["requirements"] if not r.startswith(other)]
    named = [r for r in spec["requirements"] if r.startswith(other)]
    if spec["framework"] == "torch":
        fetch_and_install(session, *tools)  # verified.matrix reads torch's metadata with them
        fetch_and_install(session, "--no-deps", f"torch=={spec['version']}")
        needs = session.run("python", "-m", "verified.matrix", "torch-requirements", silent=True)
        fetch_and_install(session, *pins, *tools, *needs.split())
    else:
        fetch_and_install(session, *pins, *tools)
    fetch_and_install(session, "--no-deps", *named)
    report = Path("results") / f"{env}.json"
    # `nox -s matrix -- <claim id> ...`: only those claims (and any whose id contains one); the
    # report keeps its other records that are still fresh (verified.report.write merges them)
    selected = f"{spec['framework']}-cpu"
    if session.posargs:
        selected += " and (" + " or ".join(session.posargs) + ")"
    session.run(
        "python",
        "-m",
        "pytest",
        "snippets",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:anyio",  # a framework's dependency (httpx's anyio), not a plugin of this suite
        "-k",
        selected,
        env={"AUTOGRAD_REPORT": str(report.resolve()), "AUTOGRAD_REPORT_NAME": env},
    )


@nox.session(python="3.11", default=False)
def mutation(session: nox.Session) -> None:
    """Opt-in: mutate the engine (pyproject's [tool.mutmut]) and run its fast tests against every
    mutant; prints the share killed per file and writes build/mutation.json with the survivors.
    `nox -s mutation -- results` only summarises the last run."""
    install(session, "mutation")
    if "results" not in session.posargs:
        shutil.rmtree("mutants", ignore_errors=True)  # a stale mutants/ tree misleads mutmut
        session.run("mutmut", "run", "--max-children", str(os.cpu_count() or 2))
    summary = mutation_summary(Path("mutants"))
    Path("build").mkdir(exist_ok=True)
    Path("build/mutation.json").write_text(json.dumps(summary, indent=1) + "\n", encoding="utf-8")
    for name, row in summary["files"].items():
        session.log(
            f"{name:24} {row['killed']:5} killed of {row['mutants']:5}: {row['score']:6.1%}"
            f"  ({row['survived']} survived, {row['no_tests']} without tests, "
            f"{row['timeout']} timed out)"
        )
    session.log("survivors: build/mutation.json; show one with `mutmut show <name>`")


# mutmut's exit codes per mutant (mutmut/stats.py): 1 and 3 killed, timeouts killed too.
KILLED = {1, 3, 24, -24, 36, 152, 255, 37}


def mutation_summary(mutants: Path) -> dict:
    files: dict[str, dict] = {}
    for meta in sorted(mutants.rglob("*.py.meta")):
        codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
        name = meta.relative_to(mutants).as_posix().removesuffix(".meta")
        survivors = sorted(k for k, code in codes.items() if code not in KILLED)
        killed = len(codes) - len(survivors)
        files[name] = {
            "mutants": len(codes),
            "killed": killed,
            "survived": sum(1 for code in codes.values() if code == 0),
            "no_tests": sum(1 for code in codes.values() if code in (5, 33)),
            "timeout": sum(1 for code in codes.values() if code in (24, -24, 36, 152, 255)),
            "score": killed / len(codes) if codes else 0.0,
            "survivors": survivors,
        }
    return {"files": files}


@nox.session(python="3.11")
@timed
def lint(session: nox.Session) -> None:
    """ruff, and the GitHub workflows against their schema (offline)."""
    install(session, "lint")
    with timing(session, "ruff"):
        session.run("ruff", "check", ".")
        session.run("ruff", "format", "--check", ".")
    workflows = sorted(str(p) for p in Path(".github/workflows").glob("*.yml"))
    if not workflows:
        session.error("no workflow in .github/workflows")
    with timing(session, "workflows"):
        session.run("check-jsonschema", "--builtin-schema", "vendor.github-workflows", *workflows)
