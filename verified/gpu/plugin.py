"""pytest plugin of the GPU kit (``-p verified.gpu.plugin``): keeps only the GPU cases of the
frameworks named by ``--gpu-frameworks`` (every other item is deselected, and pytest says how
many), and caps each case's time limit at ``--gpu-case-timeout`` seconds.

The cap is a run-time control of the kit, like its overall deadline: it is no part of the
expectation, so the records' hashes are the same as without it. A case that runs into it
fails with "timed out: no answer within N s (limit N s)".
"""

from __future__ import annotations

from dataclasses import dataclass, fields

import pytest

from verified.claims import FRAMEWORKS, Case


@dataclass(frozen=True)
class CappedCase(Case):
    """A case whose time limit is at most ``cap`` seconds."""

    cap: float = 60.0

    @property
    def timeout(self) -> float:
        return min(super().timeout, self.cap)


def capped(case: Case, cap: float) -> CappedCase:
    return CappedCase(**{f.name: getattr(case, f.name) for f in fields(Case)}, cap=cap)


def frameworks_option(text: str) -> tuple[str, ...]:
    names = tuple(name for name in text.split(",") if name)
    unknown = [name for name in names if name not in FRAMEWORKS]
    if unknown or not names:
        raise pytest.UsageError(
            f"--gpu-frameworks: {text!r} is not a comma-separated list of {FRAMEWORKS}"
        )
    return names


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("gpu-kit", "GPU kit (python3 -m verified.gpu)")
    group.addoption(
        "--gpu-frameworks",
        default="torch",
        help="run only the GPU cases of these frameworks (comma-separated; default: torch)",
    )
    group.addoption(
        "--gpu-case-timeout",
        type=float,
        default=None,
        help="cap every case's time limit at this many seconds",
    )


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # imported here, once conftest.py has registered it: imported earlier, pytest could not
    # rewrite its assertions, and warns (an error under the project's filterwarnings)
    from verified.pytest_plugin import ClaimItem

    frameworks = frameworks_option(config.getoption("gpu_frameworks"))
    cap = config.getoption("gpu_case_timeout")
    keep, drop = [], []
    for item in items:
        if (
            isinstance(item, ClaimItem)
            and item.case.device == "gpu"
            and item.case.framework in frameworks
        ):
            if cap:
                item.case = capped(item.case, cap)
            keep.append(item)
        else:
            drop.append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
    items[:] = keep
