"""Framework versions: what is installed here, and whether a version lies in a range.

Versions are read from the installed distributions' metadata (no framework is imported), so
the pytest process, the site build and the freshness checks agree on them cheaply.
"""

from __future__ import annotations

import importlib.metadata
from functools import cache

from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

# The distributions that provide each framework, in order of preference.
DISTRIBUTIONS = {"paddle": ("paddlepaddle", "paddlepaddle-gpu"), "torch": ("torch",)}


@cache
def installed(framework: str) -> str | None:
    """The installed version of ``framework`` ("2.13.0+cpu"), or None if it is missing."""
    for dist in DISTRIBUTIONS[framework]:
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            continue
    return None


def installed_versions() -> dict[str, str | None]:
    return {fw: installed(fw) for fw in DISTRIBUTIONS}


def check_range(spec: str) -> str | None:
    """None if ``spec`` is a valid version range (PEP 440 specifiers), else the problem."""
    try:
        specifiers = SpecifierSet(spec)
    except InvalidSpecifier as exc:
        return str(exc)
    if not str(specifiers):
        return "empty range"
    return None


def in_range(version: str, spec: str) -> bool:
    """Whether ``version`` lies in ``spec``; a local label ("+cpu") does not matter."""
    try:
        parsed = Version(version)
    except InvalidVersion:
        return False
    # packaging (pinned) admits a pre-release that lies in the range: tests/test_claims_format.py
    return SpecifierSet(spec).contains(Version(parsed.public))


def release(version: str | None) -> str:
    """The public release of a version, for display: "2.13.0+cpu" -> "2.13.0"."""
    if not version:
        return "?"
    try:
        return Version(version).public
    except InvalidVersion:
        return version


def sort_key(version: str) -> Version:
    try:
        return Version(version)
    except InvalidVersion:
        return Version("0")
