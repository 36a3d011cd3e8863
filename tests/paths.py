"""Where the tests find the repository and their fixtures, wherever a test file sits under tests/."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

TESTS = Path(__file__).resolve().parent
REPO = TESTS.parent

__all__ = ["REPO", "TESTS", "benchmark"]


def benchmark(name: str) -> ModuleType:
    """The script ``benchmarks/<name>.py`` as a module, registered under ``name``: its dataclasses look
    their module up while being defined, and one script imports another by name."""
    spec = importlib.util.spec_from_file_location(name, REPO / "benchmarks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module
