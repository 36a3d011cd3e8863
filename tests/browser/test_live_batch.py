"""A batch's live view in JupyterLab: the browser watches it grow, then sees it become one summary line.

Same needs as ``test_jupyterlab`` (Debian's ``chromium``, the ``browser`` extra); skipped without them.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import nbformat
import pytest

from .test_jupyterlab import (
    CHROMIUM,
    CHROMIUM_ARGS,
    TOKEN,
    _free_port,
    _needs,
    _settings,
    _wait_for_idle_kernel,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

_DONE = "LIVE-BATCH-DONE"
_CELLS = [
    "import os, tempfile\n_home = tempfile.TemporaryDirectory(prefix='hermes_nb_')\n"
    "os.environ['HERMES_HOME'] = _home.name\nimport hermes_nb as hn\n"
    "from hermes_nb.testing import Emulator, use_emulator\n"
    "emu = Emulator(seed=0).__enter__()\nemu.latency = 0.05\n"
    "emulated = use_emulator(emu, ['brave']).__enter__()\nhn.config.set('web.search_backend', 'brave')",
    "result = hn.search_many([f'live view {i}' for i in range(160)], limit=2, concurrency=4, progress=True,\n"
    "                        no_cache=True, as_frame=True)",
    f"print({_DONE!r})",
]
#: Records every value the live view's <progress> element shows, as the page changes.
_WATCH = """() => {
  window.__batchValues = [];
  new MutationObserver(() => {
    for (const bar of document.querySelectorAll('.hermes-batch progress')) {
      const value = Number(bar.getAttribute('value'));
      const seen = window.__batchValues;
      if (!seen.length || seen[seen.length - 1] !== value) seen.push(value);
    }
  }).observe(document.body, {childList: true, subtree: true, attributes: true});
}"""


def test_the_live_view_grows_and_ends_as_a_summary(tmp_path: Path) -> None:
    _needs()
    from playwright.sync_api import sync_playwright

    settings, notebooks = tmp_path / "settings", tmp_path / "notebooks"
    _settings(settings, "JupyterLab Light")
    notebooks.mkdir()
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in _CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(nb, notebooks / "live.ipynb")
    port = _free_port()
    env = {**os.environ, "JUPYTERLAB_SETTINGS_DIR": str(settings)}
    for kind in ("config", "data", "runtime"):
        env[f"JUPYTER_{kind.upper()}_DIR"] = str(tmp_path / kind)
    log = (tmp_path / "lab.log").open("wb")
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", f"--IdentityProvider.token={TOKEN}", f"--ServerApp.root_dir={notebooks}",
         "--LabApp.news_url=None", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
         "--ServerApp.allow_root=True"],
        cwd=notebooks, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
    lab: dict[str, Any] = {"base": base, "work": tmp_path}
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urlopen(f"{base}/api/status?token={TOKEN}", timeout=2) as answer:
                    if answer.status == 200:
                        break
            except OSError:
                pass
            if server.poll() is not None or time.monotonic() > deadline:
                tail = (tmp_path / "lab.log").read_text()[-3000:]
                pytest.fail(f"JupyterLab did not start; its log:\n{tail}")
            time.sleep(0.3)
        with sync_playwright() as play:
            browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
            tab = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
            tab.set_default_timeout(60_000)
            tab.goto(f"{base}/lab/tree/live.ipynb?token={TOKEN}")
            tab.wait_for_selector(".jp-Notebook .jp-Cell", state="attached")
            _wait_for_idle_kernel(lab)
            tab.evaluate(_WATCH)
            tab.get_by_role("menuitem", name="Run", exact=True).click()
            tab.get_by_text("Run All Cells", exact=True).click()
            outputs = "[...document.querySelectorAll('.jp-OutputArea-output')]"
            tab.wait_for_function(f"{outputs}.some(o => o.innerText.includes({_DONE!r}))", timeout=180_000)
            values = tab.evaluate("window.__batchValues")
            final = tab.evaluate(
                "[...document.querySelectorAll('.hermes-batch')].map(e => [e.innerText, e.innerHTML.length])"
            )
            browser.close()
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    assert len(values) >= 3 and values == sorted(values) and values[-1] < 160, values  # it grew, live
    assert len(final) == 1 and "160/160 done" in final[0][0] and final[0][1] < 500  # one summary line
