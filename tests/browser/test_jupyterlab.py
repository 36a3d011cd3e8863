"""The quickstart as a person sees it: JupyterLab on loopback, headless Chromium, every cell run.

Checks what only a browser shows: result cards with titles and links, thumbnails that actually
decode (``naturalWidth > 0``), the widget gallery, "next ▶" paging, the "extract" button, and a
"full size" link that the Jupyter server answers with the image. Light and dark screenshots land
in ``$HERMES_NB_SCREENSHOTS`` (``docs/`` when refreshing the README's) or the test's temp folder.

Needs Debian's ``chromium`` (``.ci/run`` installs it) and the ``browser`` extra (JupyterLab,
Playwright's Python package — Playwright never downloads a browser here).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.request import urlopen

import nbformat
import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROOT = Path(__file__).resolve().parent.parent.parent
CHROMIUM = os.environ.get("HERMES_NB_CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--no-first-run", "--disable-sync", "--disable-quic",
]  # fmt: skip
TOKEN = "hermes-nb-browser-test"
#: read at import: the autouse fixture strips HERMES_* variables before each test
SCREENSHOTS = os.environ.get("HERMES_NB_SCREENSHOTS", "")
RUN_TIMEOUT_MS = int(os.environ.get("HERMES_NB_BROWSER_TIMEOUT_MS", "180000"))
_DONE = "BROWSER-TEST-DONE"

# Cells appended to a copy of the quickstart: the widget view (paging over 12 hits, a gallery).
_EXTRA_CELLS = [
    "emu = Emulator(seed=0)\nemu.results_link_to_site = True  # the extract button can read the hits\n"
    "emulated = use_emulator(emu)\n%config HermesMagics.use_widgets = True",
    "%web_search -n 12 widgets paging",
    "%hermes use image openai",
    "%imagine -n 2 -a square two boats at dawn",
    f"print({_DONE!r})",
]


def _needs() -> None:
    if not Path(CHROMIUM).is_file():
        pytest.skip(f"no Chromium at {CHROMIUM}: install Debian's package (apt-get install -y chromium)")
    for module in ("playwright", "jupyterlab"):
        try:
            __import__(module)
        except ImportError:
            pytest.skip(f"the browser test needs {module}: pip install -e '.[browser]'")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _settings(folder: Path, theme: str) -> None:
    """JupyterLab user settings: no news or update checks (no network here), the theme, all cells."""
    apputils = folder / "@jupyterlab" / "apputils-extension"
    apputils.mkdir(parents=True, exist_ok=True)
    (apputils / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}), encoding="utf-8"
    )
    (apputils / "themes.jupyterlab-settings").write_text(json.dumps({"theme": theme}), encoding="utf-8")
    # Every cell stays in the page (JupyterLab 4 otherwise detaches cells scrolled out of view).
    tracker = folder / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True, exist_ok=True)
    mode = json.dumps({"windowingMode": "none"})
    (tracker / "tracker.jupyterlab-settings").write_text(mode, encoding="utf-8")


def _notebook(folder: Path) -> Path:
    nb = nbformat.read(ROOT / "notebooks" / "01_quickstart.ipynb", as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            cell.outputs, cell.execution_count = [], None
    nb.cells += [nbformat.v4.new_code_cell(source) for source in _EXTRA_CELLS]
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    path = folder / "quickstart.ipynb"
    nbformat.write(nb, path)
    return path


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    _needs()
    work = tmp_path_factory.mktemp("lab")
    settings = work / "settings"
    _settings(settings, "JupyterLab Light")
    notebooks = work / "notebooks"
    notebooks.mkdir()
    _notebook(notebooks)
    port = _free_port()
    env = {
        **os.environ,
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTER_CONFIG_DIR": str(work / "config"),
        "JUPYTER_DATA_DIR": str(work / "data"),
        "JUPYTER_RUNTIME_DIR": str(work / "runtime"),
        "HERMES_NB_PROGRESS": "0",
    }
    log = (work / "lab.log").open("wb")
    server = subprocess.Popen(
        [
            sys.executable, "-m", "jupyterlab", "--no-browser", "--ServerApp.ip=127.0.0.1",
            f"--ServerApp.port={port}", f"--IdentityProvider.token={TOKEN}",
            f"--ServerApp.root_dir={notebooks}", "--LabApp.news_url=None",
            "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate", "--ServerApp.allow_root=True",
        ],
        cwd=notebooks, env=env, stdout=log, stderr=subprocess.STDOUT,
    )  # fmt: skip
    base = f"http://127.0.0.1:{port}"
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
                pytest.fail(f"JupyterLab did not start; its log:\n{(work / 'lab.log').read_text()[-3000:]}")
            time.sleep(0.3)
        yield {"base": base, "settings": settings, "notebooks": notebooks, "work": work}
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def _wait_for_idle_kernel(lab: dict[str, Any], timeout: float = 90) -> None:
    """Until the notebook's kernel has started and is idle (asked of the server, not the page).

    The server may answer 500 while the kernel it is listing is still starting: asked again.
    """
    deadline = time.monotonic() + timeout
    last = "no answer"
    while time.monotonic() < deadline:
        try:
            with urlopen(f"{lab['base']}/api/kernels?token={TOKEN}", timeout=5) as answer:
                kernels = json.loads(answer.read())
        except HTTPError as exc:
            if exc.code < 500:
                raise
            last, kernels = f"HTTP {exc.code}", []
        if kernels and all(k.get("execution_state") == "idle" for k in kernels):
            return
        time.sleep(0.5)
    log = (lab["work"] / "lab.log").read_text(errors="replace")[-3000:]
    pytest.fail(f"the notebook's kernel did not start ({last}); the server's log:\n{log}")


@pytest.fixture(scope="module")
def page(lab: dict[str, Any]) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as play:
        browser = play.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        tab = context.new_page()
        tab.set_default_timeout(60_000)
        tab.goto(f"{lab['base']}/lab/tree/quickstart.ipynb?token={TOKEN}")
        tab.wait_for_selector(".jp-Notebook .jp-Cell", state="attached")
        _wait_for_idle_kernel(lab)
        tab.get_by_role("menuitem", name="Run", exact=True).click()
        tab.get_by_text("Run All Cells", exact=True).click()
        tab.wait_for_function(
            "[...document.querySelectorAll('.jp-OutputArea-output')]"
            f".some(o => o.innerText.includes({_DONE!r}))",
            timeout=RUN_TIMEOUT_MS,
        )
        yield tab
        context.close()
        browser.close()


def _screens(lab: dict[str, Any]) -> Path:
    folder = Path(SCREENSHOTS) if SCREENSHOTS else lab["work"] / "screens"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def test_search_cards_have_titles_and_links(page: Any) -> None:
    cards = page.locator(".hermes-nb-search").first
    cards.scroll_into_view_if_needed()
    links = cards.locator("li a")
    assert links.count() == 3
    assert all(links.nth(i).inner_text().strip() for i in range(3))
    assert links.first.get_attribute("href", timeout=5_000).startswith("http")


def test_thumbnails_are_really_displayed(page: Any) -> None:
    images = page.locator(".hermes-nb-image img, .hermes-nb-gallery img")
    assert images.count() >= 1
    for i in range(images.count()):
        image = images.nth(i)
        image.scroll_into_view_if_needed()
        assert image.evaluate("img => img.complete && img.naturalWidth > 0"), f"thumbnail {i} did not decode"


def test_full_size_link_opens_the_image(page: Any, lab: dict[str, Any]) -> None:
    link = page.locator(".hermes-nb-image a", has_text="full size").first
    href = link.get_attribute("href")  # JupyterLab has resolved the relative link against the notebook
    assert href and href.startswith(lab["base"] + "/files/hermes_nb_files/"), href
    answer = page.context.request.get(href)
    assert answer.status == 200 and answer.headers["content-type"].startswith("image/")
    tab = page.context.new_page()  # what a click on the target=_blank link opens
    tab.goto(href)
    assert tab.evaluate("() => document.images.length === 1 && document.images[0].naturalWidth > 0")
    tab.close()


def test_widget_paging_and_extract(page: Any) -> None:
    """The anywidget view: "next ▶" pages, "extract" brings the page back from the kernel."""
    view = page.locator(".hermes-nb-widget", has=page.locator("button.hermes-nb-next")).first
    view.scroll_into_view_if_needed()
    assert "page 1/3" in view.locator(".hermes-nb-page-label").first.inner_text()
    first_title = view.locator(".hermes-nb-hits a").first.inner_text()
    view.locator("button.hermes-nb-next").first.click()
    page.wait_for_function(
        "[...document.querySelectorAll('.hermes-nb-page-label')].some(l => l.innerText.includes('page 2/3'))"
    )
    assert view.locator(".hermes-nb-hits a").first.inner_text() != first_title
    link = view.locator(".hermes-nb-hits a").first
    assert link.evaluate("a => getComputedStyle(a).textDecorationLine") == "underline"
    view.locator("button.hermes-nb-extract-button").first.click()
    # the extracted page appears under the hits: its static card, made by the kernel
    view.locator(".hermes-nb-detail .hermes-nb").first.wait_for()
    assert "Error" not in view.locator(".hermes-nb-detail").first.inner_text()


def test_widget_gallery_shows_both_images(page: Any) -> None:
    gallery = page.locator("img.hermes-nb-gallery-image")
    assert gallery.count() >= 2
    for i in range(2):
        gallery.nth(i).scroll_into_view_if_needed()
        assert gallery.nth(i).evaluate("img => img.complete && img.naturalWidth > 0")


def test_screenshots_light_and_dark(page: Any, lab: dict[str, Any]) -> None:
    folder = _screens(lab)
    page.locator(".hermes-nb-search").first.scroll_into_view_if_needed()
    page.screenshot(path=str(folder / "screenshot.png"))
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    page.get_by_text("Theme", exact=True).click()
    page.get_by_text("JupyterLab Dark", exact=True).click()
    page.wait_for_function("document.body.dataset.jpThemeLight === 'false'")
    page.wait_for_timeout(500)  # the theme's stylesheet finishes applying; only the screenshot waits
    page.locator(".hermes-nb-search").first.scroll_into_view_if_needed()
    page.screenshot(path=str(folder / "screenshot-dark.png"))
    for name in ("screenshot.png", "screenshot-dark.png"):
        assert (folder / name).stat().st_size > 10_000
    shutil.rmtree(lab["notebooks"] / ".ipynb_checkpoints", ignore_errors=True)
