"""Fixtures of the reliability suite: bounded CPU load on every core while a test runs."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

_BURN = "import time\nend = time.monotonic() + {limit}\nwhile time.monotonic() < end:\n    sum(range(9999))\n"


@pytest.fixture
def busy_cores() -> Iterator[None]:
    """One spinning process per core for the test's duration, each gone after 300 s at the latest."""
    burn = [sys.executable, "-c", _BURN.format(limit=300)]
    procs = [subprocess.Popen(burn) for _ in range(os.cpu_count() or 2)]
    try:
        yield
    finally:
        for proc in procs:
            proc.kill()
        for proc in procs:
            proc.wait(timeout=30)
