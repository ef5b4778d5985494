"""Stage 5, running: execute a notebook in a fresh kernel and judge the result.

:func:`execute` runs every cell with nbclient (one kernel per notebook, a timeout per cell,
the kernel's own output to ``build/notebooks/logs/``) and strips the build machine's paths
from the outputs; :func:`execution_problems` accepts exactly the ``raises-exception`` cells
raising, each with its claim's exception type.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from verified.claims import ROOT
from verified.notebooks.base import BUILD, DEFAULT_CELL_TIMEOUT, SIGNATURE
from verified.notebooks.text import GPU_SKIPPED


class NotebookFailed(RuntimeError):
    pass


KERNEL_CELL_FILE = re.compile(r"[^\s\"']*/ipykernel_\d+/\d+\.py")


def _sanitize(text: str, run_dir: Path) -> str:
    """Outputs must not carry the build machine's paths."""
    for path, label in (
        (str(run_dir), "."),
        (str(Path(sys.prefix)), "<python>"),
        (str(Path(sys.base_prefix)), "<python>"),
        (str(ROOT), "."),
        (str(Path.home()), "~"),
    ):
        if path and path not in ("/", "."):
            text = text.replace(path, label)
    # a traceback through a cell names the kernel's temporary file of that cell
    return KERNEL_CELL_FILE.sub("<cell>", text)


def _sanitize_outputs(nb, run_dir: Path) -> None:
    for cell in nb.cells:
        for output in cell.get("outputs", []):
            if "text" in output:
                output["text"] = _sanitize(output["text"], run_dir)
            if "traceback" in output:
                output["traceback"] = [_sanitize(t, run_dir) for t in output["traceback"]]
            if "evalue" in output:
                output["evalue"] = _sanitize(output["evalue"], run_dir)
            for mime, value in output.get("data", {}).items():
                if mime.startswith("text/") and isinstance(value, str):
                    output["data"][mime] = _sanitize(value, run_dir)


def execution_problems(nb, name: str) -> list[str]:
    """Exactly the tagged cells raised, each with its claim's exception type."""
    problems = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        errors = [o for o in cell.get("outputs", []) if o.get("output_type") == "error"]
        meta = cell.metadata.get(SIGNATURE, {})
        label = f"{name}: cell {index}" + (f" ({meta['snippet']})" if meta.get("snippet") else "")
        tagged = "raises-exception" in cell.metadata.get("tags", [])
        if errors and not tagged:
            err = errors[0]
            problems.append(f"{label} raised {err['ename']}: {err['evalue'][:300]}")
        elif tagged and not errors:
            if cell.get("execution_count") is None:
                problems.append(f"{label} was not executed")
            elif not any(text in _stream_text(cell) for text in GPU_SKIPPED.values()):
                problems.append(
                    f"{label} should raise {meta.get('expected_exception')} but did not"
                )
        elif tagged and errors:
            want = meta.get("expected_exception")
            if want and errors[0]["ename"] != want:
                problems.append(
                    f"{label} raised {errors[0]['ename']} ({errors[0]['evalue'][:200]}), "
                    f"expected {want}"
                )
    return problems


def _stream_text(cell) -> str:
    return "".join(
        o.get("text", "") for o in cell.get("outputs", []) if o.get("output_type") == "stream"
    )


def execute(nb, name: str, device: str, *, timeout: float | None = None) -> float:
    """Execute ``nb`` in place in a fresh kernel on ``device``; return the seconds it took."""
    from jupyter_core.utils import run_sync

    return run_sync(execute_async)(nb, name, device, timeout=timeout)


def execute_many(
    jobs: list[tuple], *, workers: int = 2, timeout: float | None = None
) -> list[float | NotebookFailed]:
    """Execute the notebooks of ``jobs`` (``(nb, name, device)``, each in place), ``workers`` kernels
    at a time; the seconds each took, or its failure, in the order of ``jobs``."""
    from jupyter_core.utils import run_sync

    async def run_all() -> list:
        gate = asyncio.Semaphore(max(1, workers))

        async def one(nb, name: str, device: str):
            async with gate:
                try:
                    return await execute_async(nb, name, device, timeout=timeout)
                except NotebookFailed as exc:
                    return exc

        return await asyncio.gather(*(one(*job) for job in jobs))

    return run_sync(run_all)()


async def execute_async(nb, name: str, device: str, *, timeout: float | None = None) -> float:
    """:func:`execute`, as a coroutine: kernels of several notebooks may run side by side (each
    gets ``AUTOGRAD_DEVICE`` in its own environment; this process's is left alone)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError

    run_root = BUILD / "notebooks" / "run"
    run_root.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=name.replace("/", "-") + "-", dir=run_root))

    def cell_timeout(cell) -> int:
        value = cell.metadata.get(SIGNATURE, {}).get("timeout", DEFAULT_CELL_TIMEOUT)
        return int(timeout or value)

    started = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout_func=cell_timeout,
        kernel_name="python3",
        allow_errors=False,  # only cells tagged raises-exception may raise
        record_timing=False,  # keeps the notebook free of timestamps
        resources={"metadata": {"path": str(run_dir)}},
    )
    logs = BUILD / "notebooks" / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    log = open(logs / f"{name.replace('/', '-')}.log", "w", encoding="utf-8")  # noqa: SIM115
    env = {**os.environ, "AUTOGRAD_DEVICE": device}
    try:  # the kernel's own stdout/stderr (C++ logging, warnings) go to the log, not the console
        await client.async_execute(stdout=log, stderr=log, env=env)
    except CellTimeoutError as exc:
        raise NotebookFailed(f"{name}: a cell timed out: {str(exc)[:300]}") from None
    except CellExecutionError:
        problems = execution_problems(nb, name)
        raise NotebookFailed("; ".join(problems) or f"{name}: a cell failed") from None
    finally:
        seconds = time.perf_counter() - started
        log.close()
        _sanitize_outputs(nb, run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)
    problems = execution_problems(nb, name)
    if problems:
        raise NotebookFailed("; ".join(problems))
    nb.metadata["language_info"] = {
        k: v for k, v in nb.metadata.get("language_info", {}).items() if k != "version"
    } | {"name": "python"}
    return seconds
