"""A failed magic fails the notebook under every runner, and shows one short message, not a traceback.

A tiny notebook replays an empty cassette (``HERMES_NB_REPLAY``), so its ``%web_search`` is a
``CACHE_MISS``; each runner is run in a subprocess on it, as a user would run it.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from paths import REPO

RUNNERS = {
    "nbval": ["-m", "pytest", "-p", "no:cacheprovider", "--nbval", "nb.ipynb"],
    "nbval-lax": ["-m", "pytest", "-p", "no:cacheprovider", "--nbval-lax", "nb.ipynb"],
    "nbmake": ["-m", "pytest", "-p", "no:cacheprovider", "--nbmake", "nb.ipynb"],
    "papermill": ["-m", "papermill", "nb.ipynb", "out.ipynb"],
    "nbconvert": ["-m", "nbconvert", "--to", "notebook", "--execute", "nb.ipynb", "--output", "out.ipynb"],
}


@pytest.fixture
def failing_notebook(tmp_path: Path) -> dict[str, str]:
    """``nb.ipynb`` in ``tmp_path`` whose second cell misses an empty cassette; returns the env to run it."""
    cassette = tmp_path / "empty.hnb.jsonl"
    cassette.write_text('{"format": "hermes_nb.cassette", "version": 1}\n', encoding="utf-8")
    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("%load_ext hermes_nb"),
        nbformat.v4.new_code_cell("%web_search -b brave -n 3 something never recorded"),
    ]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, tmp_path / "nb.ipynb")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("HERMES_", "PYTHON", "PYTEST"))}
    env.update(
        HERMES_HOME=os.environ["HERMES_HOME"],
        HERMES_NB_REPLAY=str(cassette),
        PYTHONPATH=str(REPO),  # the kernel imports this checkout
        CI="true",
    )
    return env


@pytest.mark.slow
@pytest.mark.parametrize("runner", list(RUNNERS))
def test_a_failed_magic_fails_the_notebook(
    tmp_path: Path, failing_notebook: dict[str, str], runner: str
) -> None:
    done = subprocess.run(
        [sys.executable, *RUNNERS[runner]],
        cwd=tmp_path,
        env=failing_notebook,
        capture_output=True,
        text=True,
        timeout=300,
    )
    output = done.stdout + done.stderr
    assert done.returncode != 0, f"{runner} passed a notebook whose magic failed:\n{output[-3000:]}"
    # the one short message, wrapped between words …
    assert "CACHE_MISS: replaying empty.hnb.jsonl: no recorded search 'something never" in output
    # … and no traceback through hermes_nb's own frames (the runner may print its own)
    assert "hermes_nb/notebook" not in output and "magics.py" not in output, output[-3000:]
    assert "---->" not in output and "UsageError" not in output
