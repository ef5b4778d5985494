"""The execution cache: a notebook is executed again only when its code changes.

Executed notebooks are kept in ``build/notebooks/cache/<key>.ipynb`` (with ``<key>.json``:
seconds, device and the run that executed it); the key hashes the code cells and their tags
and timeouts, the framework and Python versions and the device, so prose-only edits never
re-execute.
"""

from __future__ import annotations

import copy
import hashlib
import importlib.metadata
import json
import os
import sys
from pathlib import Path

from verified.notebooks.base import CACHE, DISTRIBUTIONS, FORMAT, SIGNATURE
from verified.notebooks.check import code_signature


def versions() -> dict[str, str]:
    found = {"python": ".".join(map(str, sys.version_info[:3]))}
    for fw, dist in DISTRIBUTIONS.items():
        try:
            found[fw] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            found[fw] = "missing"
    return found


def cache_key(nb, framework: str, device: str) -> str:
    digest = hashlib.sha256()
    payload = {
        "format": FORMAT,
        "framework": framework,
        "version": versions()[framework],
        "python": versions()["python"],
        "device": device,
        "cells": code_signature(nb),
        "timeouts": [c.metadata.get(SIGNATURE, {}).get("timeout") for c in nb.cells],
    }
    digest.update(json.dumps(payload, sort_keys=True).encode())
    return digest.hexdigest()[:20]


def merge_outputs(fresh, executed) -> None:
    """Copy outputs of ``executed`` code cells onto ``fresh`` (same code cells)."""
    done = [c for c in executed.cells if c.cell_type == "code"]
    todo = [c for c in fresh.cells if c.cell_type == "code"]
    for target, source in zip(todo, done, strict=True):
        target.outputs = copy.deepcopy(source.outputs)
        target.execution_count = source.execution_count
    if "language_info" in executed.metadata:
        fresh.metadata["language_info"] = executed.metadata["language_info"]


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)  # a concurrent build never reads half a file


def store(executed, key: str, seconds: float, device: str, *, run: str | None = None) -> None:
    """Put an execution in the cache (the notebook first: an entry is complete once its .json
    exists), with the run that executed it (build.run_id())."""
    import nbformat

    _write_atomic(CACHE / f"{key}.ipynb", nbformat.writes(executed) + "\n")
    meta = {"seconds": round(seconds, 2), "device": device, "run": run}
    _write_atomic(CACHE / f"{key}.json", json.dumps(meta) + "\n")
