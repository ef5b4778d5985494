"""Stage 5, running: execute a notebook in a fresh kernel and judge the result.

:func:`execute` runs every cell with nbclient (one kernel per notebook, a timeout per cell,
the kernel's own output to ``build/notebooks/logs/``) and strips the build machine's paths
from the outputs; :func:`execution_problems` accepts exactly the ``raises-exception`` cells
raising, each with its claim's exception type.

Kernels talk to this process over Unix sockets in a fresh directory of their own (``ipc``), not
TCP: with TCP, jupyter_client picks five free ports, closes them and lets the kernel bind them a
second later, and anything else that opens a connection meanwhile (the DDP cells of the notebook
beside it do) may take one; the kernel then dies at startup. A notebook whose kernel fails to
start or dies fails alone, named, with the end of its kernel's log; the notebooks beside it run to
their end and their kernels are shut down.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
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


def kernel_log(name: str) -> Path:
    """Where the kernel of notebook ``name`` writes its own stdout and stderr."""
    return BUILD / "notebooks" / "logs" / f"{name.replace('/', '-')}.log"


def _kernel_log_tail(name: str, lines: int = 15) -> str:
    """The end of the kernel's log, or the start of the crash report in it."""
    path = kernel_log(name)
    shown_path = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    if not path.exists():
        return f"; no kernel log at {shown_path}"
    text = path.read_text(encoding="utf-8", errors="replace").splitlines()
    tail = text[-lines:]
    crash = [i for i, line in enumerate(text) if line.startswith("Fatal Python error")]
    if crash:  # faulthandler's report: what happened, then the crashing thread, innermost first
        current = next(
            (i for i in range(crash[-1], len(text)) if text[i].startswith("Current thread")),
            crash[-1] + 1,
        )
        tail = [text[crash[-1]], *text[current : current + lines]]
    shown = "\n".join("    " + line[:300] for line in tail) or "    (empty)"
    return f"; the end of its kernel's log ({shown_path}):\n{shown}"


def _ending(returncode: int | None) -> str:
    """How a kernel's process ended, from its return code."""
    if returncode is None:
        return "its process had not ended"
    if returncode < 0:
        return f"signal {-returncode} ({signal.strsignal(-returncode)})"
    return f"exit code {returncode}"


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
                except Exception as exc:  # noqa: BLE001 - not swallowed: it fails the build, named
                    # a kernel that did not start or died, a lost connection: this notebook fails,
                    # the others finish (an exception let out of gather() would leave their
                    # kernels to atexit, which shuts them down in a stopped event loop)
                    return NotebookFailed(
                        f"{name}: {type(exc).__name__}: {str(exc)[:500]}{_kernel_log_tail(name)}"
                    )

        return await asyncio.gather(*(one(*job) for job in jobs))

    return run_sync(run_all)()


async def execute_async(nb, name: str, device: str, *, timeout: float | None = None) -> float:
    """:func:`execute`, as a coroutine: kernels of several notebooks may run side by side (each
    gets ``AUTOGRAD_DEVICE`` in its own environment; this process's is left alone)."""
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError
    from traitlets.config import Config

    run_root = BUILD / "notebooks" / "run"
    run_root.mkdir(parents=True, exist_ok=True)
    run_dir = Path(tempfile.mkdtemp(prefix=name.replace("/", "-") + "-", dir=run_root))

    def cell_timeout(cell) -> int:
        value = cell.metadata.get(SIGNATURE, {}).get("timeout", DEFAULT_CELL_TIMEOUT)
        return int(timeout or value)

    # the kernel's sockets: short absolute paths (a Unix socket's path has at most 107 bytes)
    sockets = Path(tempfile.mkdtemp(prefix="autograd-kernel-"))
    config = Config()
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = str(sockets / "kernel")

    started = time.perf_counter()
    client = NotebookClient(
        nb,
        timeout_func=cell_timeout,
        kernel_name="python3",
        allow_errors=False,  # only cells tagged raises-exception may raise
        record_timing=False,  # keeps the notebook free of timestamps
        resources={"metadata": {"path": str(run_dir)}},
        config=config,
    )
    seen: dict = {}  # the cell being executed; how the kernel's process ended, if it did

    def cell_started(cell, cell_index):
        seen["cell"] = cell_index

    def notebook_failed(notebook):  # before nbclient cleans the kernel up
        process = getattr(getattr(client.km, "provisioner", None), "process", None)
        seen["ended"] = process.poll() if process is not None else None

    client.on_cell_execute = cell_started
    client.on_notebook_error = notebook_failed
    log_path = kernel_log(name)
    log_path.parent.mkdir(parents=True, exist_ok=True)
    log = open(log_path, "w", encoding="utf-8")  # noqa: SIM115
    # a kernel that crashes leaves the Python stack of every thread in its log
    env = {**os.environ, "AUTOGRAD_DEVICE": device, "PYTHONFAULTHANDLER": "1"}
    try:  # the kernel's own stdout/stderr (C++ logging, warnings) go to the log, not the console
        await client.async_execute(stdout=log, stderr=log, env=env)
    except CellTimeoutError as exc:
        raise NotebookFailed(f"{name}: a cell timed out: {str(exc)[:300]}") from None
    except CellExecutionError:
        problems = execution_problems(nb, name)
        raise NotebookFailed("; ".join(problems) or f"{name}: a cell failed") from None
    except DeadKernelError as exc:
        raise NotebookFailed(
            f"{name}: the kernel died ({str(exc)[:200]}; {_ending(seen.get('ended'))}) while "
            f"running cell {seen.get('cell', '?')}{_kernel_log_tail(name)}"
        ) from None
    finally:
        seconds = time.perf_counter() - started
        log.close()
        _sanitize_outputs(nb, run_dir)
        shutil.rmtree(run_dir, ignore_errors=True)
        shutil.rmtree(sockets, ignore_errors=True)
    problems = execution_problems(nb, name)
    if problems:
        raise NotebookFailed("; ".join(problems))
    nb.metadata["language_info"] = {
        k: v for k, v in nb.metadata.get("language_info", {}).items() if k != "version"
    } | {"name": "python"}
    return seconds
