"""Shared fixtures: every test runs with a temporary HERMES_HOME, no key env vars, fresh state."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

_KEYISH = re.compile(r"(API_KEY|_TOKEN|_SECRET|_KEY$|SEARXNG_URL|_BASE_URL|^HERMES_)")


@pytest.fixture(autouse=True)
def hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Temp ``HERMES_HOME``/``HOME``, credential env vars stripped, all hermes_nb state reset."""
    for name in list(os.environ):
        if _KEYISH.search(name):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "hermes_home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    from hermes_nb import _state

    _state.reset_all()
    yield home
    _state.reset_all()
