"""Interactive result views on anywidget: paging over hits with an extract button, pages, an image gallery.

One ES module (``widget_views.js``) and one Python model (``ResultView``) make every view, so the
same widget runs in JupyterLab, Notebook 7, VS Code, Colab and marimo. Widgets are opt-in
(``%config HermesMagics.use_widgets = True`` or ``hermes_nb.notebook.widgets.widget(r)``) and
anywidget is imported on first use only. A widget view is always displayed in ONE bundle together
with the static HTML and ``text/plain`` (as ipympl does), so GitHub, nbviewer, exported HTML and
nbval still see the result when no live kernel renders the widget.

The model is plain Python state (``kind``, ``title``, ``items``, ``page``, ``detail_html``, ``busy``)
synced to the browser; the browser pages by setting ``page`` (clamped here) and asks for an extract
with a ``{"type": "extract", "url": …}`` message, which runs ``hn.extract`` in the kernel — only for
URLs the view shows.
"""

from __future__ import annotations

import base64
import functools
import html
from pathlib import Path
from typing import Any

from hermes_nb.extras import require
from hermes_nb.notebook.image_cards import file_href, thumbnail_bytes
from hermes_nb.notebook.markdown import markdown_to_html
from hermes_nb.notebook.static import static_bundle
from hermes_nb.web.results import first_heading

__all__ = ["widget", "view_for", "widget_mime", "WidgetView", "PAGE_SIZE", "ESM_PATH"]

PAGE_SIZE = 5
ESM_PATH = Path(__file__).with_name("widget_views.js")
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"


def _anywidget() -> Any:
    return require("anywidget", "the widget view")


def _available() -> bool:
    try:
        _anywidget()
    except Exception:
        return False
    return True


def widget_mime(view: Any) -> dict[str, Any]:
    """The widget-view entry of a display bundle for the widget ``view``."""
    return {_WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": view.model_id}}


def _kind(obj: Any) -> str:
    names = {cls.__name__ for cls in type(obj).__mro__}
    kinds = ("SearchResult", "ExtractResult", "CrawlResult", "ImageResult", "ImageGallery", "VideoResult")
    for kind in kinds:
        if kind in names:
            return kind
    return ""


@functools.cache
def _view_class() -> type:
    """``ResultView``, made on first use (anywidget and ipywidgets load only then)."""
    anywidget = _anywidget()
    import traitlets

    class ResultView(anywidget.AnyWidget):  # type: ignore[name-defined]
        """The synced state of one result view; ``widget_views.js`` draws it."""

        _esm = ESM_PATH.read_text(encoding="utf-8")
        kind = traitlets.Unicode("").tag(sync=True)
        title = traitlets.Unicode("").tag(sync=True)
        items = traitlets.List(traitlets.Dict()).tag(sync=True)
        page = traitlets.Int(0).tag(sync=True)
        page_size = traitlets.Int(PAGE_SIZE).tag(sync=True)
        detail_html = traitlets.Unicode("").tag(sync=True)
        busy = traitlets.Bool(False).tag(sync=True)

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            self.on_msg(_on_message)

        @property
        def pages(self) -> int:
            """How many pages of hits (1 for the other kinds)."""
            if self.kind != "search":
                return 1
            return max(1, -(-len(self.items) // max(1, self.page_size)))

        @traitlets.validate("page")
        def _clamp(self, proposal: Any) -> int:
            return min(max(int(proposal["value"]), 0), self.pages - 1)

        def extract(self, url: str) -> None:
            """Extract ``url`` (one of the hits shown) and show it under the hits."""
            if self.kind != "search" or url not in {item.get("url") for item in self.items}:
                self.detail_html = f"<em>{html.escape(url)} is not one of these results</em>"
                return
            from hermes_nb import web  # lazy: only the extract button needs the web SDK

            self.busy = True
            try:
                self.detail_html = static_bundle(web.extract([url]))["text/html"]
            except Exception as exc:  # shown in the widget; the static output stays intact
                message = html.escape(f"{type(exc).__name__}: {exc}")
                self.detail_html = f'<div class="hermes-nb-error">{message}</div>'
            finally:
                self.busy = False

    return ResultView


def _on_message(view: Any, content: Any, buffers: Any) -> None:
    if isinstance(content, dict) and content.get("type") == "extract" and isinstance(content.get("url"), str):
        view.extract(content["url"])


def _search_state(res: Any) -> dict[str, Any]:
    hits = [
        {
            "position": int(hit.position),
            "title": str(hit.title or hit.url),
            "url": str(hit.url),
            "description": str(hit.description or ""),
        }
        for hit in res.hits
    ]
    return {"kind": "search", "title": f"{res.query!s} · {len(hits)} results · {res.provider}", "items": hits}


def _pages_state(res: Any) -> dict[str, Any]:
    items = []
    for page in res.pages:
        error = getattr(page, "error", None)
        body = html.escape(error) if error else markdown_to_html(page.content or "")
        title = (page.title or first_heading(page.content or "") or page.url)[:80]
        items.append({"title": str(title), "html": body})
    return {"kind": "pages", "title": f"{len(items)} pages · {res.provider}", "items": items}


def _gallery_state(images: list[Any]) -> dict[str, Any]:
    items = []
    for img in images:
        path = Path(img.path)
        data, mime, _size = thumbnail_bytes(path, 256)
        items.append(
            {
                "src": f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}",
                "href": file_href(path),
                "name": path.name,
                "caption": f"{img.provider} · {img.model or ''}",
            }
        )
    return {"kind": "gallery", "title": f"{len(items)} images", "items": items}


def _video_state(video: Any) -> dict[str, Any]:
    """A video in the gallery: its poster frame (when one can be made) linking the file."""
    path = Path(video.path)
    poster = video.poster_data_uri() if path.is_file() else None
    item = {"src": poster or "", "href": file_href(path), "name": path.name,
            "caption": f"{video.provider} · {video.model or ''} · video"}  # fmt: skip
    return {"kind": "gallery", "title": "1 video", "items": [item]}


def view_for(obj: Any) -> Any | None:
    """The widget of ``obj``, or ``None`` when anywidget is missing or the type has no view."""
    if not _available():
        return None
    kind = _kind(obj)
    if kind == "SearchResult":
        state = _search_state(obj)
    elif kind in ("ExtractResult", "CrawlResult"):
        state = _pages_state(obj)
    elif kind == "ImageResult":
        state = _gallery_state([obj])
    elif kind == "ImageGallery":
        state = _gallery_state(list(obj))
    elif kind == "VideoResult":
        state = _video_state(obj)
    else:
        return None
    return _view_class()(**state)


class WidgetView:
    """A result shown as a widget, with the static HTML and text/plain in the same bundle."""

    def __init__(self, result: Any) -> None:
        self.result = result
        self.view = view_for(result)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        bundle = static_bundle(self.result)
        if self.view is not None:
            bundle.update(widget_mime(self.view))
        return bundle

    def __repr__(self) -> str:
        return f"WidgetView({type(self.result).__name__})"


def widget(result: Any) -> WidgetView:
    """The widget view of a search, extract, crawl or image result (raises when anywidget is missing)."""
    _anywidget()
    if not _kind(result):
        raise TypeError(f"no widget view for {type(result).__name__}")
    return WidgetView(result)
