"""Optional ipywidgets views of results: paging over hits, extract buttons, an image gallery.

Widgets are opt-in (``%config HermesMagics.use_widgets = True`` or ``hermes_nb.notebook.widgets.widget(r)``)
and ipywidgets is imported on first use only. A widget view is always displayed in ONE bundle
together with the static HTML and ``text/plain`` (as ipympl does), so GitHub, nbconvert, VS Code
and nbval still see the result when no live kernel renders the widget.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from hermes_nb.errors import ProviderNotConfiguredError
from hermes_nb.notebook.image_cards import file_href, thumbnail_bytes
from hermes_nb.notebook.markdown import markdown_to_html
from hermes_nb.notebook.static import static_bundle
from hermes_nb.web.results import first_heading

__all__ = ["widget", "view_for", "widget_mime", "WidgetView", "PAGE_SIZE"]

PAGE_SIZE = 5
#: Widget HTML does not inherit the notebook's link style: titles must look clickable.
_LINK = "color:var(--jp-content-link-color,#0969da);text-decoration:underline"
_WIDGET_MIME = "application/vnd.jupyter.widget-view+json"
_INSTALL_HINT = "the widget view needs ipywidgets: pip install 'hermes_nb[widgets]'"


def _ipywidgets() -> Any:
    try:
        import ipywidgets
    except ModuleNotFoundError as exc:
        raise ProviderNotConfiguredError(_INSTALL_HINT) from exc
    return ipywidgets


def _available() -> bool:
    try:
        _ipywidgets()
    except Exception:
        return False
    return True


def widget_mime(view: Any) -> dict[str, Any]:
    """The widget-view entry of a display bundle for the ipywidgets ``view``."""
    return {_WIDGET_MIME: {"version_major": 2, "version_minor": 0, "model_id": view.model_id}}


def _kind(obj: Any) -> str:
    names = {cls.__name__ for cls in type(obj).__mro__}
    for kind in ("SearchResult", "ExtractResult", "CrawlResult", "ImageResult", "ImageGallery"):
        if kind in names:
            return kind
    return ""


def view_for(obj: Any) -> Any | None:
    """An ipywidgets view of ``obj``, or ``None`` when ipywidgets is missing or the type has none."""
    if not _available():
        return None
    kind = _kind(obj)
    if kind == "SearchResult":
        return _search_view(obj)
    if kind in ("ExtractResult", "CrawlResult"):
        return _pages_view(obj)
    if kind == "ImageResult":
        return _gallery_view([obj])
    if kind == "ImageGallery":
        return _gallery_view(list(obj))
    return None


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
    """The widget view of a search, extract, crawl or image result (raises when ipywidgets is missing)."""
    _ipywidgets()
    if not _kind(result):
        raise TypeError(f"no widget view for {type(result).__name__}")
    return WidgetView(result)


def _search_view(res: Any) -> Any:
    w = _ipywidgets()
    hits = list(res.hits)
    pages = max(1, -(-len(hits) // PAGE_SIZE))
    state = {"page": 0}
    rows = w.VBox()
    label = w.Label()
    prev_btn = w.Button(description="◀ prev", layout=w.Layout(width="90px"))
    next_btn = w.Button(description="next ▶", layout=w.Layout(width="90px"))
    detail = w.Output()

    def _extract(url: str) -> None:
        from hermes_nb import web  # lazy: only the extract button needs the web SDK

        detail.clear_output()
        with detail:
            try:
                from IPython.display import display

                display(web.extract([url]))
            except Exception as exc:  # shown in the widget; the static output stays intact
                print(f"{type(exc).__name__}: {exc}")

    def _row(hit: Any) -> Any:
        link = html.escape(hit.url, quote=True)
        text = (
            f'<b>{int(hit.position)}.</b> <a href="{link}" target="_blank" rel="noopener noreferrer" '
            f'style="{_LINK}">'
            f"{html.escape(hit.title or hit.url)}</a><br><small>{html.escape(hit.description or '')}</small>"
        )
        button = w.Button(description="extract", layout=w.Layout(width="80px"))
        button.on_click(lambda _b, url=hit.url: _extract(url))
        return w.HBox([button, w.HTML(text)])

    def _show() -> None:
        start = state["page"] * PAGE_SIZE
        rows.children = [_row(h) for h in hits[start : start + PAGE_SIZE]]
        where = f"page {state['page'] + 1}/{pages}"
        label.value = f"{res.query!s} — {where} · {len(hits)} results · {res.provider}"
        prev_btn.disabled = state["page"] == 0
        next_btn.disabled = state["page"] >= pages - 1

    def _move(step: int) -> None:
        state["page"] = min(max(state["page"] + step, 0), pages - 1)
        _show()

    prev_btn.on_click(lambda _b: _move(-1))
    next_btn.on_click(lambda _b: _move(1))
    _show()
    return w.VBox([w.HBox([prev_btn, next_btn, label]), rows, detail])


def _pages_view(res: Any) -> Any:
    w = _ipywidgets()

    pages = list(res.pages)
    children = []
    for page in pages:
        if getattr(page, "error", None):
            body = html.escape(page.error)
        else:
            body = markdown_to_html(page.content or "")
        children.append(w.HTML(f'<div style="max-height:480px;overflow:auto">{body}</div>'))
    acc = w.Accordion(children=children)
    for i, page in enumerate(pages):
        acc.set_title(i, (page.title or first_heading(page.content or "") or page.url)[:80])
    return acc


def _gallery_view(images: list[Any]) -> Any:
    w = _ipywidgets()

    cells = []
    for img in images:
        path = Path(img.path)
        data, _mime, _size = thumbnail_bytes(path, 256)
        href = html.escape(file_href(path), quote=True)
        links = w.HTML(
            f'<a href="{href}" target="_blank">open</a> · '
            f'<a href="{href}" download="{html.escape(path.name, quote=True)}">download</a>'
        )
        caption = w.HTML(f"<small>{html.escape(img.provider)} · {html.escape(str(img.model or ''))}</small>")
        cells.append(w.VBox([w.Image(value=data, format="jpeg"), caption, links]))
    return w.GridBox(cells, layout=w.Layout(grid_template_columns="repeat(auto-fill, 270px)"))
