"""The live batch view in a real kernel: it updates in place; the saved notebook keeps one summary line."""

from __future__ import annotations

import json
import os
from pathlib import Path

import nbformat
from nbclient import NotebookClient
from paths import REPO

_SETUP = """
import hermes_nb as hn
from hermes_nb.testing import Emulator, use_emulator
emu = Emulator(seed=0)
emu.__enter__()
emu.latency = 0.02
emulated = use_emulator(emu, ["brave"])
emulated.__enter__()
hn.config.set("web.search_backend", "brave")
"""
_BATCH = """
result = hn.search_many([f"live {i}" for i in range(80)], limit=2, concurrency=2, progress=True,
                        no_cache=True, as_frame=True)
len(result)
"""


def test_the_saved_notebook_keeps_only_the_summary(tmp_path: Path) -> None:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(_SETUP), nbformat.v4.new_code_cell(_BATCH)]
    env = {**os.environ, "HERMES_HOME": str(tmp_path / "home"), "PYTHONPATH": str(REPO)}
    env.pop("CI", None)
    updates: list[dict[str, object]] = []
    client = NotebookClient(notebook, timeout=120, kernel_name="python3",
                            resources={"metadata": {"path": str(tmp_path)}})  # fmt: skip
    original = client._update_display_id

    def spy(display_id: str, msg: dict[str, dict[str, object]]) -> None:
        updates.append(msg["content"]["data"])  # type: ignore[arg-type]
        original(display_id, msg)

    client._update_display_id = spy  # type: ignore[method-assign]
    client.execute(env=env)
    outputs = notebook.cells[1].outputs
    displays = [o for o in outputs if o.output_type == "display_data"]
    assert len(displays) == 1, outputs
    saved = displays[0].data
    assert "80/80 done" in saved["text/plain"] and "<table" not in saved["text/html"]
    assert len(json.dumps(saved)) < 600
    assert any("<table" in str(u.get("text/html", "")) for u in updates)  # it grew while it ran
    assert outputs[-1].output_type == "execute_result" and outputs[-1].data["text/plain"] != "0"
