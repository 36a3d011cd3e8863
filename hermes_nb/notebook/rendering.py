"""Rich display of hermes_nb results: escaped static HTML and deterministic ``text/plain``.

``mimebundle(obj)`` is what every result's ``_repr_mimebundle_`` returns. The HTML uses inline
styles only (no ``<script>``, no remote CSS/JS) and inherits the theme's text colour, with
semi-transparent borders and backgrounds, so it reads in light and dark themes, on GitHub, in
nbconvert exports and in VS Code. ``text/plain`` never carries addresses, timestamps, durations,
absolute paths or random ids, so saved notebooks compare equal under nbval; durations appear in
the HTML provenance line only.

Display options (``set_options``) are process-wide; the ``%config HermesMagics`` traits write them.
The cards themselves are built in ``web_cards`` and ``image_cards``.
"""


from collections.abc import Callable, Iterable, Sequence
from typing import Any

from hermes_nb.notebook._html import (
    BOX,
    CARD,
    DEFAULTS,
    EMBED_MODES,
    HEAD,
    MUTED,
    esc,
    get_options,
    options,
    set_options,
)
from hermes_nb.notebook.image_cards import (
    _gallery_html,
    _gallery_text,
    _image_html,
    _image_text,
    file_href,
    thumbnail_bytes,
)
from hermes_nb.notebook.web_cards import (
    _crawl_html,
    _crawl_text,
    _extract_html,
    _extract_text,
    _search_html,
    _search_text,
    _single_page_html,
    _single_page_text,
)

__all__ = [
    "mimebundle",
    "plain_text",
    "static_html",
    "set_options",
    "get_options",
    "thumbnail_bytes",
    "file_href",
    "ResultList",
    "BOX",
    "HEAD",
    "MUTED",
    "EMBED_MODES",
    "DEFAULTS",
]

# --------------------------------------------------------------------------- dispatch

_RENDERERS: dict[str, tuple[Callable[[Any], str], Callable[[Any], str]]] = {
    "SearchResult": (_search_text, _search_html),
    "ExtractResult": (_extract_text, _extract_html),
    "CrawlResult": (_crawl_text, _crawl_html),
    "Page": (_single_page_text, _single_page_html),
    "ImageResult": (_image_text, _image_html),
    "ImageGallery": (_gallery_text, _gallery_html),
}


def _renderers_for(obj: Any) -> tuple[Callable[[Any], str], Callable[[Any], str]]:
    # Dispatch on the class names of the MRO so the result modules are never imported here.
    for cls in type(obj).__mro__:
        if cls.__name__ in _RENDERERS:
            return _RENDERERS[cls.__name__]
    raise TypeError(f"hermes_nb.notebook.rendering cannot display {type(obj).__name__}")


def plain_text(obj: Any) -> str:
    """The deterministic ``text/plain`` of a result."""
    return _renderers_for(obj)[0](obj)


def static_html(obj: Any) -> str:
    """The escaped static HTML of a result."""
    return _renderers_for(obj)[1](obj)


def mimebundle(obj: Any, *, widget: bool | None = None) -> dict[str, Any]:
    """``text/plain`` + ``text/html`` for a result, plus a widget view when widgets are on and available."""
    text, page = _renderers_for(obj)
    bundle: dict[str, Any] = {"text/plain": text(obj), "text/html": page(obj)}
    if widget if widget is not None else options["use_widgets"]:
        from hermes_nb.notebook import widgets

        view = widgets.view_for(obj)
        if view is not None:
            bundle.update(widgets.widget_mime(view))
    return bundle


# --------------------------------------------------------------------------- magic outputs


class ResultList(Sequence[Any]):
    """Several results shown one after another (``%%web_search`` batches); a read-only sequence.

    Not a ``list``/``UserList`` subclass: IPython's pretty printer claims ``text/plain`` of those,
    which would replace the stable text below.
    """

    def __init__(self, items: Iterable[Any]) -> None:
        self._items = list(items)

    def __getitem__(self, index: Any) -> Any:
        return self._items[index]

    def __len__(self) -> int:
        return len(self._items)

    def __repr__(self) -> str:
        return f"ResultList(n={len(self._items)})"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> dict[str, Any]:
        texts, pages = [], []
        for item in self:
            try:
                texts.append(plain_text(item))
                pages.append(static_html(item))
            except TypeError:  # a failed batch item (BatchError) or an exception
                texts.append(f"! {item!r}")
                pages.append(f'<div style="{CARD}">⚠️ {esc(repr(item))}</div>')
        return {"text/plain": "\n".join(texts), "text/html": "\n".join(pages)}
