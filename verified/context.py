"""The run context: where and with what a run makes its records, captured once.

Every record says where it ran (processor, cores, C library, kernel, Python, the installed
framework releases), when, under which engine code (its hash), and the environment its worker
processes inherit. None of that may come from module state read while the record is made:
pytest runs the claims on background lanes beside the engine's own tests, and a test that
patches a module global, or sets an environment variable, patches it for the whole process.
So the pytest plugin captures a :class:`RunContext` when it creates its scheduler, before any
test runs, and passes it to everything that makes a record or starts a worker
(``run_case -> environment(info, device, context) -> record(..., context=context)``, and the
runner's workers). The GPU kit captures one at its start. Tests build their own.
"""

from __future__ import annotations

import datetime as dt
import os
import platform
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType

from verified.claims import engine_hash
from verified.versions import installed_versions


def cpu_model(cpuinfo: Path = Path("/proc/cpuinfo")) -> str:
    """The processor's model name (Linux), else what the platform module says."""
    try:
        for line in cpuinfo.read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def host() -> dict:
    """The machine a case ran on, as far as it can decide a verdict: processor, cores, C
    library, kernel. A record from another host never stands for this one. Read anew at each
    call (a run keeps the one its context captured)."""
    name, version = platform.libc_ver()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None
    return {
        "cpu": cpu_model(),
        "cores": os.cpu_count(),
        "usable_cores": usable,
        "libc": f"{name} {version}" if name else platform.system(),
        "kernel": f"{platform.system()} {platform.release()}",
        "machine": platform.machine(),
    }


def now() -> str:
    """The current time, UTC, to the second: the date of a record."""
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _frozen(mapping: Mapping) -> Mapping:
    return MappingProxyType(dict(mapping))


@dataclass(frozen=True)
class RunContext:
    """What one run's records and workers are made from, fixed when the run starts.

    ``host``: :func:`host`; ``versions``: the installed release of each framework (None where
    it is missing); ``python`` and ``platform``: this process's; ``engine_hash``: the hash of
    the engine code (:func:`verified.claims.engine_hash`); ``environ``: the environment the
    workers start from (this process's, as it was); ``clock``: gives each record its date. The
    mappings are read-only copies: changing the dict a context was made from, or
    ``os.environ``, does not change it."""

    host: Mapping[str, object]
    versions: Mapping[str, str | None]
    python: str
    platform: str
    engine_hash: str
    environ: Mapping[str, str]
    clock: Callable[[], str] = field(default=now, compare=False)

    def __post_init__(self) -> None:
        for name in ("host", "versions", "environ"):
            object.__setattr__(self, name, _frozen(getattr(self, name)))

    @classmethod
    def capture(cls) -> RunContext:
        """This process, now."""
        return cls(
            host=host(),
            versions=installed_versions(),
            python=platform.python_version(),
            platform=platform.platform(),
            engine_hash=engine_hash(),
            environ=os.environ,
            clock=now,
        )

    def replace(self, **changes) -> RunContext:
        """A copy with some fields changed (tests: another host, clock or environment)."""
        return replace(self, **changes)

    def date(self) -> str:
        return self.clock()
