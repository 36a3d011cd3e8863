"""The anywidget result views, headless: the Python model (state, paging, the extract message) and the
ES module drawn by Node against a minimal DOM (tests/fixtures/widget_harness.mjs). The real browser
runs them in tests/browser."""

from __future__ import annotations

import base64
import io
import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from paths import TESTS
from PIL import Image

from hermes_nb.images.results import ImageGallery, ImageResult
from hermes_nb.notebook import rendering, widgets
from hermes_nb.web.results import ExtractResult, Page, SearchHit, SearchResult

pytest.importorskip("anywidget")

HARNESS = TESTS / "fixtures" / "widget_harness.mjs"


def _search(n: int = 7) -> SearchResult:
    hits = [SearchHit(f"title {i}", f"https://ex.test/{i}", f"about {i}", i) for i in range(1, n + 1)]
    return SearchResult("paging", hits, "brave", [], 0.1, limit=n, effective_limit=n)


def _image(tmp_path: Path, name: str) -> ImageResult:
    path = tmp_path / name
    Image.new("RGB", (1024, 512), (200, 30, 30)).save(path)
    return ImageResult(
        path=path, prompt="p", provider="fakeimg", model="m1", aspect_ratio="landscape",
        width=1024, height=512, sha256="0" * 64,
    )  # fmt: skip


def test_search_state_is_what_the_browser_receives() -> None:
    view = widgets.view_for(_search())
    state = view.get_state()  # the synced traits, as sent to the frontend
    assert state["kind"] == "search" and state["page"] == 0 and state["page_size"] == widgets.PAGE_SIZE
    assert state["items"][0] == {
        "position": 1,
        "title": "title 1",
        "url": "https://ex.test/1",
        "description": "about 1",
    }
    assert "export default" in state["_esm"] and "render" in state["_esm"]
    assert widgets.widget_mime(view)["application/vnd.jupyter.widget-view+json"]["model_id"] == view.model_id


def test_pages_state_renders_markdown_and_escapes_errors() -> None:
    pages = [
        Page("https://ex.org/a", "A & B", "# Title\n\nsome *text*", {}),
        Page("https://ex.org/b", "", "", {}, error="<404> from server", error_code="CONTENT_FETCH_FAILED"),
    ]
    view = widgets.view_for(ExtractResult(pages, "direct", [], 0.5))
    assert view.kind == "pages" and [i["title"] for i in view.items] == ["A & B", "https://ex.org/b"]
    assert "<em>text</em>" in view.items[0]["html"]
    assert "&lt;404&gt;" in view.items[1]["html"] and "<404>" not in view.items[1]["html"]


def test_gallery_state_carries_thumbnails_and_links(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    gallery = ImageGallery([_image(tmp_path, "a.png"), _image(tmp_path, "b.png")])
    view = widgets.view_for(gallery)
    assert view.kind == "gallery" and len(view.items) == 2
    for item in view.items:
        head, data = item["src"].split(",", 1)
        assert head == "data:image/jpeg;base64"
        with Image.open(io.BytesIO(base64.b64decode(data))) as thumb:
            assert max(thumb.size) <= 256
        assert item["href"] in ("a.png", "b.png") and item["caption"] == "fakeimg · m1"


def test_the_bundle_keeps_its_static_twin() -> None:
    rendering.set_options(use_widgets=True)
    bundle = rendering.mimebundle(_search())
    assert {"text/plain", "text/html", "application/vnd.jupyter.widget-view+json"} <= set(bundle)
    assert "title 1" in bundle["text/html"]  # nbviewer, GitHub and exported HTML show this part


def _drawn(state: dict[str, Any]) -> dict[str, Any]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("Node.js is not installed: the ES module is checked in the browser test only")
    run = subprocess.run(
        [node, str(HARNESS), widgets.ESM_PATH.as_uri(), json.dumps(state)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert run.returncode == 0, run.stderr
    report: dict[str, Any] = json.loads(run.stdout)
    return report


def test_the_es_module_pages_and_sends_the_extract_message() -> None:
    view = widgets.view_for(_search(12))
    state = {k: v for k, v in view.get_state().items() if not k.startswith("_")}
    report = _drawn(state)
    drawn, after_next, extracted = report["steps"]
    assert drawn["rows"] == 5 and drawn["label"][0].startswith("page 1/3")
    assert drawn["prevDisabled"] == [True] and drawn["nextDisabled"] == [False]
    assert drawn["links"][0] == "title 1"
    assert after_next["label"][0].startswith("page 2/3") and after_next["links"][0] == "title 6"
    assert report["sent"] == [{"type": "extract", "url": "https://ex.test/6"}]
    assert extracted["detailHtml"] == ["<p>extracted</p>"]
    assert report["handlersLeft"] == 0  # the view's cleanup unsubscribed everything


def test_the_es_module_draws_pages_and_galleries(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    pages = widgets.view_for(ExtractResult([Page("https://ex.org/a", "A", "text", {})], "direct", [], 0.5))
    assert (
        _drawn({k: v for k, v in pages.get_state().items() if not k.startswith("_")})["steps"][0]["details"]
        == 1
    )
    gallery = widgets.view_for(ImageGallery([_image(tmp_path, "a.png"), _image(tmp_path, "b.png")]))
    drawn = _drawn({k: v for k, v in gallery.get_state().items() if not k.startswith("_")})["steps"][0]
    assert len(drawn["images"]) == 2 and all(
        src.startswith("data:image/jpeg;base64,") for src in drawn["images"]
    )
