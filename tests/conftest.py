"""Fixtures shared by the engine's tests (the claims engine itself is registered by the
repository's conftest.py)."""

from __future__ import annotations

import pytest
from claimkit import ascii_locale as files_in_ascii


@pytest.fixture
def ascii_locale():
    """The C locale's character set (ASCII) as the default encoding of files, for one test
    (``claimkit.ascii_locale`` as a fixture)."""
    with files_in_ascii():
        yield
