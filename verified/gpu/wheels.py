"""The pure-Python wheels the GPU kit carries to a bare CUDA machine, and how they become
importable there without pip.

The machine has Python, a CUDA build of PyTorch, numpy and a pytest of unknown version, and no
network. The kit runs the pinned pytest from these wheels instead of the machine's own:

- here, ``python3 -m verified.gpu fetch`` downloads them (``pip download --no-deps``, exact
  versions and hashes) into ``build/gpu-wheels/``, ignored by git and carried with the device
  call;
- there, :func:`unpack` checks each against its pin and extracts it with :mod:`zipfile` into
  ``build/gpu-site/``, which the kit puts first on ``sys.path`` and on the ``PYTHONPATH`` of the
  pytest run, and so of the worker processes that run starts (they inherit its environment).

Only the standard library is used here: this module runs before the carried packages are
importable.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

ROOT = Path(__file__).resolve().parents[2]
WHEELS_DIR = ROOT / "build" / "gpu-wheels"
SITE_DIR = ROOT / "build" / "gpu-site"
FETCH = "python3 -m verified.gpu fetch"
TARGET_PYTHON = "3.12"  # the GPU machine's Python; the wheels are pure Python (py3-none-any)


class WheelError(RuntimeError):
    pass


@dataclass(frozen=True)
class Wheel:
    name: str
    version: str
    sha256: str
    size: int  # bytes
    why: str

    @property
    def filename(self) -> str:
        return f"{self.name}-{self.version}-py3-none-any.whl"

    @property
    def requirement(self) -> str:
        return f"{self.name}=={self.version}"


# pytest as pyproject.toml pins it (minversion 9.0, --strict-config), with what it requires
# (pytest 9.2.0: pluggy>=1.6,<2, iniconfig>=2, packaging>=24, pygments>=2.15), at the versions
# the test virtualenv runs; packaging as the engine group pins it.
WHEELS = (
    Wheel(
        "pytest",
        "9.2.0",
        "07acdcf88ec174f907dc01af70bf52d49b014bbab03faeeade31c96b18c2e588",
        411776,
        "the test runner: pyproject.toml asks for pytest 9 and strict config",
    ),
    Wheel(
        "pluggy",
        "1.7.0",
        "7dd7b0d8832ba3cb632c306926ded123429211b83641b35dc5c41ad2d34f9bec",
        27082,
        "pytest's plugin system",
    ),
    Wheel(
        "iniconfig",
        "2.3.1",
        "9121e2c1fdb355232495be3194c8dfe87ccc2d5dee45947b78e68f499790d7a7",
        7552,
        "pytest reads its configuration files with it",
    ),
    Wheel(
        "packaging",
        "26.4",
        "81383611a09c1bc0b08b76e0fd5829d7c6824c65b27a6aee339da133f4233ea2",
        140049,
        "pytest's and the claims' version ranges",
    ),
    Wheel(
        "pygments",
        "2.21.0",
        "2363c69b61c4a97c838da3b130dcd6468f4848992b21a82f2a63ec34377137d9",
        1250147,
        "pytest requires it (code highlighting in its reports)",
    ),
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def problem(path: Path, wheel: Wheel) -> str | None:
    """None if ``path`` is the pinned wheel, else what is wrong with it."""
    if not path.is_file():
        return "missing"
    size = path.stat().st_size
    if size != wheel.size:
        return f"{size:,} bytes, expected {wheel.size:,}"
    if sha256(path) != wheel.sha256:
        return "its sha256 differs from the pinned one"
    return None


def check(folder: Path = WHEELS_DIR, pins: tuple[Wheel, ...] = WHEELS) -> list[Path]:
    """The pinned wheels in ``folder``; raise WheelError naming every one that is missing or
    different, and every other file there (only the pinned wheels travel)."""
    problems = []
    for wheel in pins:
        why = problem(folder / wheel.filename, wheel)
        if why:
            problems.append(f"{wheel.filename}: {why}")
    known = {wheel.filename for wheel in pins}
    if folder.is_dir():
        problems += [
            f"{path.name}: not one of the kit's wheels (remove it)"
            for path in sorted(folder.iterdir())
            if path.name not in known
        ]
    if problems:
        raise WheelError(
            f"{shown(folder)}: " + "; ".join(problems) + f" (fetch them with `{FETCH}`)"
        )
    return [folder / wheel.filename for wheel in pins]


def fetch(folder: Path = WHEELS_DIR, python: str = sys.executable) -> list[Path]:
    """Download the pinned wheels that ``folder`` lacks (pip, no dependencies, exact versions
    and hashes); return them all, checked."""
    folder.mkdir(parents=True, exist_ok=True)
    todo = [wheel for wheel in WHEELS if problem(folder / wheel.filename, wheel)]
    for wheel in todo:
        (folder / wheel.filename).unlink(missing_ok=True)
    if todo:
        with tempfile.TemporaryDirectory() as tmp:
            requirements = Path(tmp) / "requirements.txt"
            requirements.write_text(
                "".join(f"{w.requirement} --hash=sha256:{w.sha256}\n" for w in todo),
                encoding="utf-8",
            )
            subprocess.run(
                [
                    python,
                    "-m",
                    "pip",
                    "download",
                    "--quiet",
                    "--no-deps",
                    "--only-binary=:all:",
                    "--python-version",
                    TARGET_PYTHON,
                    "--require-hashes",
                    "--requirement",
                    str(requirements),
                    "--dest",
                    str(folder),
                ],
                check=True,
            )
    return check(folder)


def unpack(
    folder: Path = WHEELS_DIR, site: Path = SITE_DIR, pins: tuple[Wheel, ...] = WHEELS
) -> Path:
    """Extract the pinned wheels of ``folder`` into a fresh ``site`` folder, as pip would
    install pure-Python wheels into site-packages (their ``.dist-info`` included, so that
    ``importlib.metadata`` sees their versions and entry points); return ``site``."""
    wheels = check(folder, pins)
    if site.exists():
        shutil.rmtree(site)
    site.mkdir(parents=True)
    for path in wheels:
        with zipfile.ZipFile(path) as archive:
            for name in archive.namelist():
                parts = PurePosixPath(name).parts
                if name.startswith("/") or ".." in parts:
                    raise WheelError(f"{path.name}: unsafe path {name!r}")
                if parts and parts[0].endswith(".data"):
                    raise WheelError(
                        f"{path.name}: has {parts[0]}/, which needs an installer, not unpacking"
                    )
            archive.extractall(site)
    return site


def table() -> str:
    """The wheels, one line each: name, version, size; and the total."""
    lines = [f"{w.filename:40} {w.size:>10,} bytes  {w.why}" for w in WHEELS]
    total = sum(w.size for w in WHEELS)
    lines.append(f"{'total':40} {total:>10,} bytes  ({total / 2**20:.2f} MiB)")
    return "\n".join(lines)


def shown(path: Path) -> str:
    try:
        return path.relative_to(ROOT).as_posix()
    except ValueError:
        return str(path)
