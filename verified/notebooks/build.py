"""Putting it together: generate, execute (or take from the cache) and write every notebook.

:func:`build` draws the figures, then for each article, language and framework generates the
notebook (:mod:`.cells`), takes its outputs from the cache or executes it (:mod:`.cache`,
:mod:`.execute`), writes ``docs/<lang>/notebooks/<article>-<framework>.ipynb``, removes
notebooks of pages that are gone, and records the times in ``build/notebooks.json``.
"""

from __future__ import annotations

import contextlib
import copy
import json
import sys
import time
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
from verified.notebooks.execute import NotebookFailed, execute
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


def build_one(
    article: str, lang: str, framework: str, device: str, *, force: bool = False, infos=None
) -> Built:
    import nbformat

    name = f"{lang}/{article}-{framework}"
    nb = generate(article, lang, framework, infos=infos)
    problems = site_prose_problems(nb, f"{name}: ") + local_link_problems(nb, f"{name}: ")
    if problems:
        raise NotebookFailed("\n".join(problems))
    key = cache_key(nb, framework, device)
    cached_nb = CACHE / f"{key}.ipynb"
    cached_meta = CACHE / f"{key}.json"
    cached = cached_nb.is_file() and cached_meta.is_file() and not force
    if cached:
        executed = nbformat.read(cached_nb, as_version=4)
        seconds = json.loads(cached_meta.read_text(encoding="utf-8"))["seconds"]
    else:
        executed = copy.deepcopy(nb)
        seconds = execute(executed, name, device)
        store(executed, key, seconds, device)
    merge_outputs(nb, executed)
    nb.metadata[SIGNATURE]["executed_on"] = device
    target = notebook_path(lang, article, framework)
    target.parent.mkdir(parents=True, exist_ok=True)
    text = nbformat.writes(nb) + "\n"
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        _write_atomic(target, text)  # unchanged files keep their mtime
    return Built(name, target, key, seconds, cached, device)


def build(
    device: str = "cpu",
    *,
    force: bool = False,
    only: list[str] | None = None,
    log=print,
) -> list[Built]:
    """Generate and execute every notebook; returns what was built. Raises NotebookFailed."""
    if device == "auto":
        device = "gpu" if _gpu_available() else "cpu"
    started = time.perf_counter()
    _draw_figures()
    infos = snippet_infos()
    built: list[Built] = []
    failures: list[str] = []
    expected: set[Path] = set()
    for article in articles():
        for lang in LANGS:
            for framework in FRAMEWORKS:
                expected.add(notebook_path(lang, article, framework))
                name = f"{lang}/{article}-{framework}"
                if only and not any(o in name for o in only):
                    continue
                one_started = time.perf_counter()
                try:
                    result = build_one(article, lang, framework, device, force=force, infos=infos)
                except NotebookFailed as exc:
                    failures.append(str(exc))
                    log(f"FAILED {name}: {exc}")
                    continue
                result.build_s = time.perf_counter() - one_started
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
    _write_record(built, total)
    log(f"{len(built)} notebooks built in {total:.2f} s (wall time, figures included)")
    if failures:
        raise NotebookFailed("\n".join(failures))
    return built


def _write_record(built: list[Built], total: float) -> None:
    record = {"notebooks": {}, "build_s": round(total, 2)}
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
            "key": b.key,
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
