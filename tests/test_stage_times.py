"""Stage times (verified/stagetimes.py): every nox session prints its stages' times when it ends
and appends them to build/stage-times.tsv; CI prints the whole table."""

from __future__ import annotations

import ast
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace

import pytest

from verified import stagetimes
from verified.claims import ROOT
from verified.stagetimes import Row


def test_rows_are_appended_and_read_back(tmp_path):
    times = tmp_path / "build" / "stage-times.tsv"
    stagetimes.append([Row("tests", "claims-and-engine", 301.26, "run")], times)
    stagetimes.append([Row("tests", "site", 0.4, "reused"), Row("e2e", "install", 2, "run")], times)
    assert times.read_text(encoding="utf-8").splitlines() == [
        "session\tstage\tseconds\thow",
        "tests\tclaims-and-engine\t301.3\trun",
        "tests\tsite\t0.4\treused",
        "e2e\tinstall\t2.0\trun",
    ]
    assert stagetimes.read(times) == [
        Row("tests", "claims-and-engine", 301.3, "run"),
        Row("tests", "site", 0.4, "reused"),
        Row("e2e", "install", 2.0, "run"),
    ]


def test_the_table_names_each_stage_its_time_and_how_and_sums_them():
    rows = [Row("tests", "claims-and-engine", 301.3, "run"), Row("tests", "site", 0.4, "reused")]
    lines = stagetimes.table(rows, total=320.0).splitlines()
    assert lines[0].split() == ["session", "stage", "seconds", "run", "or", "reused"]
    assert lines[2].split() == ["tests", "claims-and-engine", "301.3", "run"]
    assert lines[3].split() == ["tests", "site", "0.4", "reused"]
    assert lines[4].split() == ["sum", "of", "the", "stages", "301.7"]
    assert lines[5].split() == ["wall", "time", "320.0"]
    # aligned: the last column starts, the seconds (right-aligned) end, at one place
    assert len({line.rindex(line.split()[-1]) for line in lines[2:4]}) == 1
    assert len({line.index(line.split()[2]) + len(line.split()[2]) for line in lines[2:4]}) == 1


def test_the_command_line_adds_shows_and_clears(tmp_path, capsys, monkeypatch):
    times = tmp_path / "stage-times.tsv"
    monkeypatch.setattr(stagetimes, "TIMES", times)
    assert stagetimes.main(["add", "ci", "apt-get", "12", "run"]) == 0
    assert stagetimes.main(["show", "--total", "15", str(times)]) == 0
    shown = capsys.readouterr().out
    assert "apt-get" in shown and "12.0" in shown and "15.0" in shown
    assert stagetimes.main(["clear", str(times)]) == 0
    assert not times.exists()
    assert stagetimes.main(["show", str(times)]) == 1  # nothing recorded: says so, fails


@pytest.mark.parametrize(
    ("row", "error"),
    [
        (("tests", "site", 1.0, "skipped"), "how must be one of"),
        (("tests", "two\tfields", 1.0, "run"), "one line without tabs"),
        (("", "site", 1.0, "run"), "one line without tabs"),
    ],
)
def test_a_bad_row_is_refused(row, error):
    with pytest.raises(ValueError, match=error):
        Row(*row)


def test_a_file_that_is_not_a_stage_table_is_named(tmp_path):
    other = tmp_path / "other.tsv"
    other.write_text("a\tb\n", encoding="utf-8")
    with pytest.raises(ValueError, match="other.tsv: not a stage-times file"):
        stagetimes.read(other)


TIMED_SESSIONS = {"tests", "site", "notebooks", "e2e", "gpu_sim", "lint"}


def noxfile_functions() -> dict[str, ast.FunctionDef]:
    """The functions of noxfile.py, by name (nox is not installed here: read, not imported)."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    return {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}


def test_every_session_of_ci_and_the_readme_prints_its_stage_times():
    """The sessions CI and the README run are wrapped in noxfile.timed, and each times its
    stages through install(), stage(), build() or timing()."""
    functions = noxfile_functions()
    assert functions.keys() >= TIMED_SESSIONS
    for name in sorted(TIMED_SESSIONS):
        function = functions[name]
        decorators = [ast.unparse(d) for d in function.decorator_list]
        assert "timed" in decorators, f"noxfile.py: session {name} is not @timed"
        calls = {
            ast.unparse(node.func) for node in ast.walk(function) if isinstance(node, ast.Call)
        }
        assert calls & {"install", "stage", "build", "timing"}, f"{name} times no stage"
        untimed = [
            ast.unparse(node)
            for node in ast.walk(function)
            if isinstance(node, ast.Call)
            and ast.unparse(node.func) == "session.run"
            and not _inside_timing(function, node)
        ]
        allowed = ["properdocs", "serve"]  # `nox -s site -- serve` serves until stopped
        assert all(all(word in call for word in allowed) for call in untimed), (
            f"noxfile.py: session {name} runs outside a timed stage: {untimed}"
        )


def _inside_timing(function: ast.FunctionDef, call: ast.Call) -> bool:
    """Whether ``call`` is in the body of a ``with timing(...)`` block of ``function``."""
    blocks = [
        node
        for node in ast.walk(function)
        if isinstance(node, ast.With)
        and any(
            isinstance(item.context_expr, ast.Call)
            and ast.unparse(item.context_expr.func) == "timing"
            for item in node.items
        )
    ]
    return any(inner is call for block in blocks for inner in ast.walk(block))


def noxfile_constant(name: str):
    """A constant of noxfile.py (a literal), read."""
    tree = ast.parse((ROOT / "noxfile.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == name:
            return ast.literal_eval(node.value)
    raise LookupError(f"noxfile.py has no constant {name}")


def _noxfile_function(name: str, namespace: dict):
    """One function of noxfile.py, defined alone in ``namespace``."""
    module = ast.Module([noxfile_functions()[name]], [])
    exec(compile(module, "noxfile.py", "exec"), namespace)  # noqa: S102
    return namespace[name]


def test_pip_compiles_nothing_and_the_sessions_keep_the_bytecode_of_what_they_import(tmp_path):
    """The virtualenvs that install() makes are installed with --no-compile, and install() first
    has the session's commands write the bytecode of what they import into the virtualenv, even
    where PYTHONDONTWRITEBYTECODE is set outside (nox drops a variable set to None), so that
    the import right after pip keeps what it compiles. A Python started with that environment
    writes it there and nothing into the checkout."""
    functions = noxfile_functions()
    installs = [
        node
        for node in ast.walk(functions["_install"])
        if isinstance(node, ast.Call) and ast.unparse(node.func) == "session.install"
    ]
    assert [ast.unparse(node.args[0]) for node in installs] == ["'--no-compile'"]
    assert ast.unparse(functions["install"].body[0]) == "bytecode_on_import(session)"
    # ... and the frameworks it installed are imported once at once (run_install: also under
    # --install-only), so that the processes the claims start together find their bytecode
    body = [ast.unparse(statement) for statement in functions["_install"].body]
    after_pip = body[body.index("session.install('--no-compile', *requirements)") + 1]
    assert after_pip == "if imports:\n    session.run_install('python', '-c', imports)"
    assert "imports = framework_imports(requirements)" in body
    # ... and for a virtualenv reused from before its bytecode had a folder
    reused = "if imports and (not compiled.is_dir()):\n            session.run_install("
    assert reused in ast.unparse(functions["_install"])
    framework_imports = _noxfile_function("framework_imports", {})
    assert framework_imports(["torch==2.13.0", "pytest==9.2.0", "paddlepaddle==3.3.1"]) == (
        "import paddle; import torch"
    )
    assert framework_imports(["paddlepaddle-gpu==3.3.1", "numpy==2.4.6"]) == "import paddle"
    assert framework_imports(["ruff==0.17.6", "torchvision==0.29.1"]) == ""
    assert framework_imports(["paddlepaddle_GPU>=3.3", "Torch"]) == "import paddle; import torch"
    assert framework_imports(["./wheels/paddlepaddle-3.3.1-cp311-linux_x86_64.whl"]) == ""

    namespace = {"Path": Path, "nox": SimpleNamespace(Session=object)}
    bytecode_on_import = _noxfile_function("bytecode_on_import", namespace)
    session = SimpleNamespace(env={}, virtualenv=SimpleNamespace(location=str(tmp_path / "venv")))
    bytecode_on_import(session)
    prefix = tmp_path / "venv" / "pycache"
    assert session.env == {"PYTHONPYCACHEPREFIX": str(prefix), "PYTHONDONTWRITEBYTECODE": None}

    source = tmp_path / "checkout" / "module_here.py"
    source.parent.mkdir()
    source.write_text("VALUE = 1\n", encoding="utf-8")
    env = {k: v for k, v in session.env.items() if v is not None}
    subprocess.run(
        [sys.executable, "-c", "import module_here"], cwd=source.parent, check=True, env=env
    )
    written = sorted(p.relative_to(prefix).as_posix() for p in prefix.rglob("*.pyc"))
    assert [p for p in written if "module_here" in p] == [
        f"{source.parent.relative_to('/').as_posix()}/module_here.{sys.implementation.cache_tag}.pyc"
    ], written
    assert not list(source.parent.rglob("*.pyc"))


def collected(marker: str) -> list[str]:
    listed = subprocess.run(
        [sys.executable, "-m", "pytest", "--collect-only", "-q", "-m", marker, "tests/e2e",
         "-p", "no:cacheprovider"],
        cwd=ROOT, capture_output=True, text=True, check=True,
    ).stdout.splitlines()  # fmt: skip
    return [line for line in listed if "::" in line]


def test_the_browser_tests_start_with_the_longest_work():
    """tests/e2e/conftest.py puts JupyterLab's tests, the install cells and the search tests
    first, and `nox -s e2e` asks pytest-xdist to keep the order of the items
    (--no-loadscope-reorder) instead of sorting the groups by their number of tests."""
    modules = [line.split("::")[0].rsplit("/", 1)[-1] for line in collected("e2e")]
    first = ["test_jupyterlab_notebooks.py", "test_install_cell.py", "test_browser_search.py"]
    seen = list(dict.fromkeys(modules))
    assert seen[:3] == first, seen
    last = max(i for i, m in enumerate(modules) if m in first)
    assert set(modules[: last + 1]) == set(first), modules[: last + 1]
    noxfile = (ROOT / "noxfile.py").read_text(encoding="utf-8")
    assert '"--dist", "loadgroup", "--no-loadscope-reorder", *pytest_args' in noxfile


def test_the_two_parts_of_the_browser_tests_are_all_of_them_once():
    """`nox -s e2e -- install-cells` and `nox -s e2e -- browser` (CI runs the first beside the
    site build, the second after it) together run every e2e test, none twice; the first part is
    the install cells' tests alone (they need no browser and no built site)."""
    parts = noxfile_constant("E2E_PARTS")
    cells, browser, every = (collected(m) for m in (*parts.values(), "e2e"))
    assert cells and browser and sorted(cells + browser) == sorted(every), (cells, len(browser))
    assert {c.split("::")[0] for c in cells} == {"tests/e2e/test_install_cell.py"}, cells


def ci_script() -> str:
    return (ROOT / ".ci" / "run").read_text(encoding="utf-8")


def test_ci_runs_the_install_cells_beside_the_site_build_and_the_browser_tests_beside_its_checks():
    """.ci/run starts the install cells when the notebooks stage's stamp appears (the site build
    comes next) and the rest of the browser tests when the site stage's does (the site checks
    come next), each once; waits for both after the README's command, failing on either; and has
    one EXIT trap, which ends their process groups and prints the stage table."""
    run = ci_script()
    starts = {
        "cells": "after_stage notebooks install-cells python3 -m nox -s e2e -- install-cells\n",
        "browser": "after_stage site browser python3 -m nox -s e2e -- browser\n",
    }
    assert run.count("python3 -m nox -s e2e -- ") == 2, "a part of the browser tests run twice"
    readme_command = run.index(
        'python3 -m pip install "nox==2026.10.20" && python3 -m nox -s tests'
    )
    for job, start in starts.items():
        assert run.count(start) == 1, start
        assert run.index(start) < readme_command < run.index(f'finish "${job}" '), job
    # the work beside the claims ends the same way: its output shown, its failure fails CI
    assert readme_command < run.index('finish "$beside" beside ') < run.index('finish "$cells" ')
    # a stage that ended without its stamp fails CI at once (its job would wait until the
    # job's timeout)
    assert "for stage in notebooks site; do" in run[readme_command:]
    # The one EXIT trap ends the jobs if CI ends early; under `set -e` a failing command in a
    # trap ends the shell with its status, and `kill` fails when they have ended: CI on a clean
    # clone of 17f619a passed every stage and exited 1, without its table of stage times.
    traps = [line for line in run.splitlines() if line.startswith("trap ")]
    assert len(traps) == 1 and run.index('groups=""') < run.index(traps[0]), traps
    assert traps[0].startswith(
        """trap 'for group in $groups; do kill -- -"$group" 2>/dev/null || true; done; """
    ), traps[0]
    assert "stagetimes show" in traps[0] and traps[0].rstrip().endswith("|| true' EXIT")
    # without job control (set +m), setsid does not fork and `$!` is the job's process group
    assert "\nset +m\n" in run and run.index("\nset +m\n") < run.index("after_stage() {")


def ci_functions() -> str:
    """.ci/run's trap, after_stage and finish, as a bash prologue for a test script."""
    run = ci_script()
    trap = next(line for line in run.splitlines() if line.startswith("trap "))
    bodies = []
    for name in ("after_stage", "finish"):
        begin = run.index(f"{name}() {{\n")
        bodies.append(run[begin : run.index("\n}\n", begin) + 3])
    # the stage table needs the project: here, a line that says the trap ran
    trap = trap.replace("python3 -m verified.stagetimes show", "echo trap-ran; : ")
    prologue = 'set -euo pipefail\nmkdir -p build/stamps\nstart=$(date +%s)\ngroups=""\n'
    return prologue + trap + "\n" + "".join(bodies)


def run_ci_bash(tmp_path: Path, body: str) -> subprocess.CompletedProcess:
    script = tmp_path / "ci.sh"
    script.write_text(ci_functions() + body, encoding="utf-8")
    return subprocess.run(
        ["bash", str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60
    )


def test_a_job_after_a_stage_waits_for_this_runs_stamp_and_its_failure_fails_ci(tmp_path):
    """``after_stage``: the job starts once the stage's stamp is written, not on a stamp left by
    an earlier run; ``finish`` shows its output and exits with its failure; the trap still
    prints the table."""
    (tmp_path / "build" / "stamps").mkdir(parents=True)
    (tmp_path / "build" / "stamps" / "site.json").write_text("{}")  # an earlier run's
    done = run_ci_bash(tmp_path, """
after_stage site job sh -c 'cat started 2>/dev/null || echo "no file yet"; echo job-output'
job=$last_group
sleep 2
echo yes > started
touch build/stamps/site.json
finish "$job" job "the job"
echo after
""")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["---", "the", "job", "(exit", "0)", "---", "yes",
                                   "job-output", "after", "trap-ran"], done.stdout  # fmt: skip
    failed = run_ci_bash(tmp_path, """
after_stage site job sh -c 'echo failing; exit 3'
touch build/stamps/site.json
finish "$last_group" job "the job"
echo not-reached
""")  # fmt: skip
    assert failed.returncode == 3, failed
    assert failed.stdout.split() == ["---", "the", "job", "(exit", "3)", "---", "failing",
                                     "trap-ran"], failed.stdout  # fmt: skip


def test_ci_ending_early_ends_every_job_it_started(tmp_path):
    """CI failing while its jobs run (one waits for a stamp that never comes): the trap ends
    each job's whole process group (the job's children too), goes on past a job that has ended
    already (kill fails there), prints the table and exits with CI's status."""
    done = run_ci_bash(tmp_path, """
after_stage site running sh -c 'echo $$ > running.pid; sleep 60 & echo $! > child.pid; wait'
after_stage notebooks waiting sh -c 'echo started > waiting.out'
after_stage claims ended sh -c 'echo > ended.out'
ended=$last_group
touch build/stamps/site.json build/stamps/claims.json
until [ -s running.pid ] && [ -s child.pid ] && [ -f ended.out ]; do sleep 0.1; done
while kill -0 "$ended" 2>/dev/null; do sleep 0.1; done  # ended, not reaped: kill fails
false
""")  # fmt: skip
    assert done.returncode == 1 and done.stdout.split() == ["trap-ran"], done
    for name in ("running.pid", "child.pid"):
        pid = int((tmp_path / name).read_text())
        assert ends_within(pid, 5.0), f"{name}: process {pid} outlived CI"


def ends_within(pid: int, seconds: float) -> bool:
    """Whether process ``pid`` is gone (or a zombie) within ``seconds``."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().split(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":
            return True
        time.sleep(0.1)
    return False


def test_a_finished_job_leaves_the_trap_the_others(tmp_path):
    """``finish`` removes its job's id from the trap's list exactly (an id that is the start of
    another's, 12 in 123, leaves that one), and only that one."""
    done = run_ci_bash(tmp_path, """
sh -c 'exit 0' &
mine=$!
groups=" ${mine}7 12 $mine 5"
echo > build/mine.log
finish "$mine" mine "mine"
echo "left:$groups mine:$mine"
trap - EXIT
""")  # fmt: skip
    assert done.returncode == 0, done
    left, mine = done.stdout.splitlines()[-1].split(" mine:")
    assert left == f"left: {mine}7 12 5", done.stdout


def test_a_waiting_job_gives_up_when_ci_was_killed(tmp_path):
    """CI killed outright (no trap runs): a job still waiting for its stamp ends by itself."""
    done = run_ci_bash(tmp_path, """
after_stage site waiting sh -c 'echo > ran'
echo "$last_group" > waiting.pid
kill -9 $$
""")  # fmt: skip
    assert done.returncode == -9, done
    pid = int((tmp_path / "waiting.pid").read_text())
    assert ends_within(pid, 5.0), f"the waiting job {pid} outlived CI"


def test_each_part_of_the_browser_tests_runs_its_own_tests():
    """`nox -s e2e -- install-cells` runs pytest on the install cells' module alone (collecting
    the others reads site/, which CI is building meanwhile), without a browser's workers;
    `-- browser` the rest on the workers, with JupyterLab's kernel; without either, all."""
    calls: list[tuple] = []

    @contextmanager
    def timing(session, name):
        calls.append(("stage", name))
        yield ["run"]

    namespace = {
        "nox": SimpleNamespace(session=lambda *a, **k: lambda f: f, Session=object),
        "timed": lambda f: f,
        "install": lambda session, *groups, **k: calls.append(("install", *groups)),
        "timing": timing,
        "kernel_python": lambda session: "/venv/tests/bin/python",
        "INSTALL_ONLY": False,
        "E2E_WORKERS": "2",
        "E2E_PARTS": noxfile_constant("E2E_PARTS"),
        "INSTALL_CELLS": noxfile_constant("INSTALL_CELLS"),
    }
    e2e = _noxfile_function("e2e", namespace)

    def run_with(*posargs):
        calls.clear()
        run = lambda *args, **kwargs: calls.append(("run", *args))  # noqa: E731
        session = SimpleNamespace(posargs=list(posargs), env={}, run=run)
        e2e(session)
        pytest_calls = [c[1:] for c in calls if c[:2] == ("run", "pytest")]
        return pytest_calls, session.env, [c[1] for c in calls if c[0] == "stage"]

    (cells,), env, stages = run_with("install-cells", "-x")
    assert cells == ("pytest", "-m", "e2e and install_cell", "tests/e2e/test_install_cell.py", "-x")
    assert "AUTOGRAD_KERNEL_PYTHON" not in env and stages == ["install-cells"]
    (rest,), env, stages = run_with("browser", "-x")
    assert rest[:4] == ("pytest", "-m", "e2e and not install_cell", "tests/e2e"), rest
    assert "-n" in rest and rest[-1] == "-x" and "browser" not in rest, rest
    assert env["AUTOGRAD_KERNEL_PYTHON"] == "/venv/tests/bin/python" and stages == ["browser-tests"]
    (every,), _, _ = run_with("-k", "search")
    assert every[:4] == ("pytest", "-m", "e2e", "tests/e2e") and every[-2:] == ("-k", "search")


def test_jupyterlab_runs_the_notebooks_in_the_python_that_built_them(tmp_path):
    """`nox -s e2e` hands JupyterLab's test the Python of the `tests` session (else `site`, else
    `notebooks`), which has both frameworks; its own virtualenv installs neither, and with none
    of those virtualenvs it stops, saying what to run."""
    import tomllib

    namespace = {"Path": Path, "KERNEL_SESSIONS": noxfile_constant("KERNEL_SESSIONS")}
    kernel_python = _noxfile_function("kernel_python", namespace)

    class Stop(Exception):
        pass

    def error(message):
        raise Stop(message)

    session = SimpleNamespace(
        virtualenv=SimpleNamespace(location=str(tmp_path / "e2e")), error=error
    )
    with pytest.raises(Stop, match="run `nox -s tests` or `nox -s site` first"):
        kernel_python(session)
    for name in ("notebooks", "site", "tests"):  # each found before the one made before it
        python = tmp_path / name / "bin" / "python"
        python.parent.mkdir(parents=True)
        python.write_text("")
        assert kernel_python(session) == str(python)
    groups = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    groups = groups["dependency-groups"]

    def requirements(name: str) -> list[str]:  # with the groups it includes, as nox reads them
        found = []
        for item in groups[name]:
            found += requirements(item["include-group"]) if isinstance(item, dict) else [item]
        return found

    e2e = requirements("e2e")
    assert not [r for r in e2e if r.startswith(("torch", "paddlepaddle", "numpy"))], e2e
    assert any(r.startswith("torch") for r in requirements("test")), "the resolver reads nothing"
