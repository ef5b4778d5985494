"""The install cell every notebook starts with, run as a reader runs it on Colab (which has
PyTorch but not Paddle) or in any fresh Python: in a new virtualenv without the framework, it
installs the framework at the verified release with pip, says so, and the notebook's setup
cell then imports it; run again, it installs nothing.

pip installs from wherever this machine's pip is configured to (PyPI in CI, with PyTorch's CPU
index as in publish.yml; the local wheels and registry on the developers' machines). The
virtualenv is made by this session's Python with `python -m venv`: no site packages of the
session, so no framework. It costs a real install of each framework (35 to 45 s each here
without compiling, on one core): that is why it runs with the browser tests (`nox -s e2e`),
not in `nox -s tests`; CI runs it on its own, beside the site build (`nox -s e2e --
install-cells`, .ci/run). PIP_NO_COMPILE is set: compiling the framework's
bytecode is pip's work, not the cell's, and is left out to save time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

from verified.claims import FRAMEWORKS
from verified.notebooks.text import TEXT, install_code, setup_code

pytestmark = [pytest.mark.e2e, pytest.mark.install_cell]  # noxfile.E2E_PARTS


@pytest.mark.parametrize("framework", FRAMEWORKS)
def test_install_cell_in_a_fresh_virtualenv(framework, tmp_path):
    started = time.perf_counter()
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {**os.environ, "PIP_NO_COMPILE": "1", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
    env.pop("PYTHONPATH", None)
    env.pop("PYTHONPYCACHEPREFIX", None)  # the session's folder for bytecode: a reader has none
    missing = subprocess.run([python, "-c", f"import {framework}"], capture_output=True, env=env)
    assert missing.returncode != 0, f"the fresh virtualenv already has {framework}"

    def run(code: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [python, "-c", code], capture_output=True, text=True, env=env, timeout=900
        )

    code = install_code(framework, "en")
    verified = code.split('VERIFIED = "', 1)[1].split('"', 1)[0]
    name = TEXT["en"]["frameworks"][framework]
    first = run(code)
    assert first.returncode == 0, first.stdout[-3000:] + first.stderr[-3000:]
    assert "Successfully installed" in first.stdout, first.stdout[-3000:]
    last = first.stdout.strip().splitlines()[-1]
    assert last.startswith(f"{name} {verified}") and "verified with" in last, last
    installed_s = time.perf_counter() - started

    # the notebook's next cell, the device and the seed: the framework really imports
    setup = run(setup_code(framework, "en", gpu_only=False, file_name=None))
    assert setup.returncode == 0, setup.stderr[-3000:]
    assert setup.stdout.startswith(f"{framework} {verified}"), setup.stdout

    again = run(code)  # installed now: nothing to install
    assert again.returncode == 0, again.stderr[-3000:]
    assert "pip" not in again.stdout and again.stdout.strip() == last, again.stdout
    print(f"{framework}: installed and checked in {installed_s:.0f} s, all in "
          f"{time.perf_counter() - started:.0f} s")  # fmt: skip
