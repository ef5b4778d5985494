"""The release matrix: the environments of ``results/matrix.toml`` and how to install them.

``python -m verified.matrix torch-requirements`` (run in a venv where a CUDA build of torch was
installed with ``pip install --no-deps``) prints what makes that build import and run on the
CPU: torch's own pure-Python requirements, plus only the NVIDIA library wheels whose shared
objects ``import torch`` loads (found from the ``NEEDED`` entries of torch's libraries, with
``readelf``), at the versions torch's metadata pins. Left out: triton (``torch.compile`` only),
cuSOLVER (opened on the first linear-algebra call on a CUDA tensor), NVRTC, the CUDA Python
bindings, the driver.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

from verified.claims import FRAMEWORKS, ROOT

MATRIX = ROOT / "results" / "matrix.toml"

# shared-object prefix -> (NVIDIA package stem in torch's metadata, cuda-toolkit extra)
SONAMES = {
    "libcudart.so": ("nvidia-cuda-runtime", "cudart"),
    "libcupti.so": ("nvidia-cuda-cupti", "cupti"),
    "libnvrtc.so": ("nvidia-cuda-nvrtc", "nvrtc"),
    "libcublas.so": ("nvidia-cublas", "cublas"),
    "libcublasLt.so": ("nvidia-cublas", "cublas"),
    "libcufft.so": ("nvidia-cufft", "cufft"),
    "libcufile.so": ("nvidia-cufile", "cufile"),
    "libcurand.so": ("nvidia-curand", "curand"),
    "libcusolver.so": ("nvidia-cusolver", "cusolver"),
    "libcusparse.so": ("nvidia-cusparse", "cusparse"),
    "libnvJitLink.so": ("nvidia-nvjitlink", "nvjitlink"),
    "libnvToolsExt.so": ("nvidia-nvtx", "nvtx"),
    "libcudnn.so": ("nvidia-cudnn", None),
    "libcusparseLt.so": ("nvidia-cusparselt", None),
    "libnccl.so": ("nvidia-nccl", None),
    "libnvshmem_host.so": ("nvidia-nvshmem", None),
}
CUDA_PACKAGES = re.compile(r"^(nvidia-|cuda-|triton)")


class MatrixError(ValueError):
    pass


@dataclass(frozen=True)
class Environment:
    name: str
    framework: str
    version: str
    requirements: tuple[str, ...]

    @property
    def report(self) -> Path:
        return ROOT / "results" / f"{self.name}.json"

    @property
    def cuda_torch(self) -> bool:
        """A torch release from PyPI: a CUDA build, installed in two steps."""
        return self.framework == "torch"


def environments(path: Path = MATRIX) -> list[Environment]:
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    found = []
    for i, raw in enumerate(data.get("environment", [])):
        where = f"{path.name}: environment[{i}]"
        if set(raw) != {"name", "framework", "version", "requirements"}:
            raise MatrixError(f"{where}: needs exactly name, framework, version, requirements")
        if raw["framework"] not in FRAMEWORKS:
            raise MatrixError(f"{where}.framework: one of {FRAMEWORKS}")
        if raw["name"] != f"{raw['framework']}-{raw['version']}":
            raise MatrixError(f"{where}.name: must be {raw['framework']}-{raw['version']}")
        pins = {}
        for text in raw["requirements"]:
            req = Requirement(text)
            specs = list(req.specifier)
            if len(specs) != 1 or specs[0].operator != "==" or req.marker or req.extras:
                raise MatrixError(
                    f"{where}.requirements: {text!r} is not pinned: an environment installs "
                    "exactly what its release resolved to (name==version)"
                )
            pins[req.name.lower().replace("_", "-")] = specs[0].version
        if "numpy" not in pins:
            raise MatrixError(f"{where}.requirements: pin numpy (the release's own numpy)")
        if raw["framework"] == "paddle" and pins.get("paddlepaddle") != raw["version"]:
            raise MatrixError(f"{where}.requirements: needs paddlepaddle=={raw['version']}")
        found.append(
            Environment(raw["name"], raw["framework"], raw["version"], tuple(raw["requirements"]))
        )
    names = [e.name for e in found]
    if len(set(names)) != len(names):
        raise MatrixError(f"{path.name}: duplicate environment names")
    return found


def needed(path: Path) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(path)], capture_output=True, text=True, check=True)
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out.stdout)


def loaded_packages(torch_dir: Path) -> dict[str, set]:
    """NVIDIA package stem -> cuda-toolkit extras, for every library ``import torch`` loads."""
    lib = torch_dir / "lib"
    todo = [*torch_dir.glob("_C*.so"), lib / "libtorch_global_deps.so"]
    seen: set[Path] = set()
    wanted: dict[str, set] = {}
    while todo:  # the closure over torch's own libraries
        path = todo.pop()
        if path in seen or not path.exists():
            continue
        seen.add(path)
        for soname in needed(path):
            if (lib / soname).exists():
                todo.append(lib / soname)
                continue
            stem = next((v for k, v in SONAMES.items() if soname.startswith(k + ".")), None)
            if stem is not None:
                wanted.setdefault(stem[0], set()).add(stem[1])
    return wanted


def torch_cpu_requirements() -> list[str]:
    dist = metadata.distribution("torch")
    wanted = loaded_packages(Path(dist.locate_file("torch")))
    lines = []
    for text in dist.requires or []:
        req = Requirement(text)
        if req.marker and not req.marker.evaluate({"extra": ""}):
            continue
        name = req.name.lower().replace("_", "-")
        if not CUDA_PACKAGES.match(name):
            lines.append(str(req).split(";")[0].strip())
        elif name == "cuda-toolkit":  # torch >= 2.13 pins the CUDA 13 wheels through its extras
            extras = sorted({e for stem, e in SONAMES.values() if stem in wanted and e})
            lines.append(f"cuda-toolkit[{','.join(extras)}]{req.specifier}")
        elif any(name.startswith(stem) for stem in wanted):
            lines.append(str(req).split(";")[0].strip())
    return lines


def main(argv: list[str]) -> int:
    if argv == ["torch-requirements"]:
        print("\n".join(torch_cpu_requirements()))
        return 0
    if argv == ["list"]:
        print("\n".join(e.name for e in environments()))
        return 0
    print("usage: python -m verified.matrix torch-requirements | list", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
