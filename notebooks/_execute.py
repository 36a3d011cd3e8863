"""Execute every example notebook against the emulator and save it with its outputs.

    python notebooks/_execute.py            # all notebooks
    python notebooks/_execute.py 01 04      # those whose name starts with 01 or 04

Outputs are produced the way CI sees them (``CI=1``, progress bars off), so the stored outputs are
what nbval compares the ``# NBVAL_CHECK_OUTPUT`` cells against. Cells tagged ``raises-exception``
may fail; any other error stops with the cell's traceback.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent


def execute(path: Path, timeout: int = 120) -> None:
    """Run ``path`` top to bottom in a fresh kernel and write it back with outputs."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        record_timing=False,  # timestamps would make every re-run a diff
        resources={"metadata": {"path": str(HERE)}},
    )
    client.execute()
    nbformat.write(nb, path)


def package_quickstart() -> Path:
    """Copy the quickstart, outputs stripped, into the package so ``hermes-nb demo`` works from a wheel."""
    nb = nbformat.read(HERE / "01_quickstart.ipynb", as_version=4)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    target = HERE.parent / "hermes_nb" / "_demo" / "quickstart.ipynb"
    target.parent.mkdir(exist_ok=True)
    nbformat.write(nb, target)
    return target


def main(argv: list[str]) -> int:
    os.environ.update(CI="1", HERMES_NB_PROGRESS="0", PYTHONWARNINGS="ignore::DeprecationWarning")
    selected = sorted(
        p for p in HERE.glob("[0-9][0-9]_*.ipynb") if not argv or p.name.startswith(tuple(argv))
    )
    for path in selected:
        print(f"executing {path.name}", flush=True)
        execute(path)
    package_quickstart()
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
