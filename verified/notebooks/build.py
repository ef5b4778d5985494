"""Putting it together: generate, execute (or take from the cache) and write every notebook.

:func:`build` draws the figures, then for each article, language and framework generates the
notebook (:mod:`.cells`), takes its outputs from the cache or executes it (:mod:`.cache`,
:mod:`.execute`; two kernels at a time), writes ``docs/<lang>/notebooks/<article>-<framework>
.ipynb``, removes notebooks of pages that are gone, and records in ``build/notebooks.json``, per
notebook, the times, the digest of the inputs executed, the run that executed them and the
digest of the outputs written (the site checks trust that execution through this record).
"""

from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import os
import sys
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from verified.claims import FRAMEWORKS, LANGS, ROOT, SNIPPETS
from verified.notebooks.base import (
    CACHE,
    DOCS,
    RECORD,
    REPOSITORY,
    SIGNATURE,
    articles,
    notebook_path,
    repository_path,
)
from verified.notebooks.cache import _write_atomic, cache_key, merge_outputs, store
from verified.notebooks.cells import generate, repository_notebook
from verified.notebooks.check import local_link_problems, site_prose_problems
from verified.notebooks.execute import NotebookFailed, execute, execute_many
from verified.notebooks.snippets import snippet_infos


@dataclass
class Built:
    name: str  # "<lang>/<article>-<framework>"
    path: Path
    key: str
    seconds: float  # execution time (of the run the outputs come from)
    cached: bool
    device: str
    build_s: float = 0.0  # wall time of this build for this notebook
    run: str | None = None  # the build that executed the outputs (see run_id())
    outputs: str = ""  # outputs_digest() of the notebook written


def run_id() -> str:
    """This build's name for the executions it does, kept with each (cache and record): the
    checks after the build can tell that a notebook was executed by the run they belong to.
    ``AUTOGRAD_RUN_ID`` (CI sets one per run), else the UTC time and a random part."""
    given = os.environ.get("AUTOGRAD_RUN_ID")
    if given:
        return given
    return time.strftime("%Y%m%dT%H%M%SZ", time.gmtime()) + "-" + uuid.uuid4().hex[:8]


def outputs_digest(nb) -> str:
    """A digest of every code cell's outputs and execution count, in order."""
    cells = [[c.get("outputs", []), c.get("execution_count")] for c in nb.cells]
    cells = [cell for cell, c in zip(cells, nb.cells, strict=True) if c.cell_type == "code"]
    payload = json.dumps(cells, sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(payload.encode()).hexdigest()


def default_jobs() -> int:
    """Kernels at a time: ``AUTOGRAD_NOTEBOOK_JOBS``, else 2 (or 1 on a 1-core machine)."""
    given = os.environ.get("AUTOGRAD_NOTEBOOK_JOBS")
    if given:
        if not given.isdigit() or int(given) < 1:
            raise ValueError(f"AUTOGRAD_NOTEBOOK_JOBS must be a positive integer, not {given!r}")
        return int(given)
    return min(2, os.cpu_count() or 1)


@dataclass
class _Job:
    """One notebook between generation and writing."""

    article: str
    lang: str
    framework: str
    nb: object  # the generated notebook
    key: str
    executed: object = None  # the executed copy
    failed: NotebookFailed | None = None
    seconds: float = 0.0
    cached: bool = False
    run: str | None = None
    prepare_s: float = 0.0

    @property
    def name(self) -> str:
        return f"{self.lang}/{self.article}-{self.framework}"


def _prepare(article, lang, framework, device, *, force, infos) -> _Job:
    """Generate the notebook, check its prose and links, take its execution from the cache."""
    import nbformat

    started = time.perf_counter()
    name = f"{lang}/{article}-{framework}"
    nb = generate(article, lang, framework, infos=infos)
    problems = site_prose_problems(nb, f"{name}: ") + local_link_problems(nb, f"{name}: ")
    if problems:
        raise NotebookFailed("\n".join(problems))
    job = _Job(article, lang, framework, nb, cache_key(nb, framework, device))
    cached_nb = CACHE / f"{job.key}.ipynb"
    cached_meta = CACHE / f"{job.key}.json"
    if cached_nb.is_file() and cached_meta.is_file() and not force:
        meta = json.loads(cached_meta.read_text(encoding="utf-8"))
        job.executed = nbformat.read(cached_nb, as_version=4)
        job.seconds, job.run, job.cached = meta["seconds"], meta.get("run"), True
    job.prepare_s = time.perf_counter() - started
    return job


def _finish(job: _Job, device: str) -> Built:
    """Put the execution's outputs on the generated notebook and write it."""
    import nbformat

    started = time.perf_counter()
    nb = job.nb
    merge_outputs(nb, job.executed)
    nb.metadata[SIGNATURE]["executed_on"] = device
    target = notebook_path(job.lang, job.article, job.framework)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(nb) + "\n"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        _write_atomic(target, text)  # unchanged files keep their mtime
    spent = job.prepare_s + (0.0 if job.cached else job.seconds)
    return Built(
        job.name, target, job.key, job.seconds, job.cached, device,
        build_s=spent + time.perf_counter() - started, run=job.run,
        outputs=outputs_digest(nbformat.reads(text, as_version=4)),  # as a reader gets it
    )  # fmt: skip


def build_one(
    article: str, lang: str, framework: str, device: str, *, force: bool = False, infos=None
) -> Built:
    job = _prepare(article, lang, framework, device, force=force, infos=infos)
    if not job.cached:
        job.executed = copy.deepcopy(job.nb)
        job.seconds = execute(job.executed, job.name, device)
        job.run = run_id()
        store(job.executed, job.key, job.seconds, device, run=job.run)
    return _finish(job, device)


def build(
    device: str = "cpu",
    *,
    force: bool = False,
    only: list[str] | None = None,
    jobs: int | None = None,
    log=print,
) -> list[Built]:
    """Generate every notebook and execute those the cache lacks, ``jobs`` kernels at a time
    (default_jobs()); returns what was built, in a fixed order (article, language, framework),
    and logs it in that order. Raises NotebookFailed."""
    if device == "auto":
        device = "gpu" if _gpu_available() else "cpu"
    jobs = jobs or default_jobs()
    started = time.perf_counter()
    this_run = run_id()
    _draw_figures()
    infos = snippet_infos()
    prepared: list[_Job | NotebookFailed] = []
    names: list[str] = []
    expected: set[Path] = set()
    for article in articles():
        for lang in LANGS:
            for framework in FRAMEWORKS:
                expected.add(notebook_path(lang, article, framework))
                name = f"{lang}/{article}-{framework}"
                if only and not any(o in name for o in only):
                    continue
                names.append(name)
                try:
                    prepared.append(
                        _prepare(article, lang, framework, device, force=force, infos=infos)
                    )
                except NotebookFailed as exc:
                    prepared.append(exc)
    todo = [j for j in prepared if isinstance(j, _Job) and not j.cached]
    for job in todo:
        job.executed = copy.deepcopy(job.nb)
    if todo:
        log(f"executing {len(todo)} notebooks, {min(jobs, len(todo))} at a time")
    outcomes = execute_many([(j.executed, j.name, device) for j in todo], workers=jobs)
    for job, outcome in zip(todo, outcomes, strict=True):
        if isinstance(outcome, NotebookFailed):
            job.failed = outcome
            continue
        job.seconds, job.run = outcome, this_run
        store(job.executed, job.key, job.seconds, device, run=this_run)
    built: list[Built] = []
    failures: list[str] = []
    for name, job in zip(names, prepared, strict=True):
        failed = job if isinstance(job, NotebookFailed) else job.failed
        if failed is not None:
            failures.append(str(failed))
            log(f"FAILED {name}: {failed}")
            continue
        result = _finish(job, device)
        built.append(result)
        how = "from the cache" if result.cached else "executed now"
        log(
            f"{name:<28} execution {result.seconds:6.2f} s on {device} ({how}); "
            f"this build {result.build_s:5.2f} s"
        )
    for lang in LANGS:  # notebooks of pages that no longer exist
        for stray in (DOCS / lang / "notebooks").glob("*.ipynb"):
            if stray not in expected:
                stray.unlink()
    if not only and not failures:
        used = {b.key for b in built}
        for entry in [*CACHE.glob("*.ipynb"), *CACHE.glob("*.json")]:
            if entry.stem not in used:
                entry.unlink()
    total = time.perf_counter() - started
    _write_record(built, total, jobs)
    log(
        f"{len(built)} notebooks built in {total:.2f} s (wall time, figures included; "
        f"{jobs} kernels at a time)"
    )
    if failures:
        raise NotebookFailed("\n".join(failures))
    return built


def _write_record(built: list[Built], total: float, jobs: int = 1) -> None:
    record = {"notebooks": {}, "build_s": round(total, 2), "jobs": jobs}
    if RECORD.exists():
        with contextlib.suppress(json.JSONDecodeError, KeyError):
            record["notebooks"] = json.loads(RECORD.read_text(encoding="utf-8"))["notebooks"]
    for b in built:
        record["notebooks"][b.name] = {
            "path": b.path.relative_to(ROOT).as_posix(),
            "execution_s": round(b.seconds, 2),
            "cached": b.cached,
            "build_s": round(b.build_s, 3),
            "device": b.device,
            "key": b.key,  # the digest of the inputs executed (cache_key)
            "run": b.run,  # the build that executed them (run_id())
            "outputs": b.outputs,  # outputs_digest() of the notebook written
        }
    RECORD.parent.mkdir(parents=True, exist_ok=True)
    RECORD.write_text(json.dumps(record, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def _draw_figures() -> None:
    """The site's figures, so that notebooks embed the same ones (the build hook draws them
    again before the site build; unchanged figures are not rewritten)."""
    if not any(SNIPPETS.glob("*/figures.py")):
        return
    from verified.pages.figures import draw_figures

    draw_figures({"docs_dir": str(DOCS)})


def _gpu_available() -> bool:
    import subprocess

    probe = "import torch; print(torch.cuda.is_available())"
    try:
        out = subprocess.run(
            [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.stdout.strip() == "True"


def export(*, log=print) -> list[Path]:
    """Write the copies committed under ``notebooks/<lang>/``: each notebook unexecuted, its
    links into the repository (``python -m verified.notebooks export``); remove the copies of
    notebooks that no longer exist. Unchanged files are not rewritten."""
    import nbformat

    infos = snippet_infos()
    written, expected = [], set()
    for article in articles():
        for lang in LANGS:
            for framework in FRAMEWORKS:
                name = f"{lang}/{article}-{framework}"
                nb = repository_notebook(article, lang, framework, infos=infos)
                problems = site_prose_problems(nb, f"{name}: ")
                problems += local_link_problems(nb, f"{name}: ")
                if problems:
                    raise NotebookFailed("\n".join(problems))
                target = repository_path(lang, article, framework)
                expected.add(target)
                text = nbformat.writes(nb) + "\n"
                if not target.exists() or target.read_text(encoding="utf-8") != text:
                    _write_atomic(target, text)
                    written.append(target)
                    log(f"wrote {target.relative_to(ROOT)}")
    for stray in sorted(REPOSITORY.glob("*/*.ipynb")):
        if stray not in expected:
            stray.unlink()
            log(f"removed {stray.relative_to(ROOT)}")
    log(
        f"{len(expected)} notebooks under {REPOSITORY.relative_to(ROOT)}/, {len(written)} rewritten"
    )
    return written
