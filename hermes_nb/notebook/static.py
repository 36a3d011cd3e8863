"""The static part of every display: deterministic ``text/plain`` and escaped HTML, by result type."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hermes_nb.notebook.image_cards import _gallery_html, _gallery_text, _image_html, _image_text
from hermes_nb.notebook.video_cards import video_html, video_text
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

__all__ = ["plain_text", "static_html", "static_bundle"]

_RENDERERS: dict[str, tuple[Callable[[Any], str], Callable[[Any], str]]] = {
    "SearchResult": (_search_text, _search_html),
    "ExtractResult": (_extract_text, _extract_html),
    "CrawlResult": (_crawl_text, _crawl_html),
    "Page": (_single_page_text, _single_page_html),
    "ImageResult": (_image_text, _image_html),
    "ImageGallery": (_gallery_text, _gallery_html),
    "VideoResult": (video_text, video_html),
}


def _renderers_for(obj: Any) -> tuple[Callable[[Any], str], Callable[[Any], str]]:
    # Dispatch on the class names of the MRO so the result modules are never imported here.
    for cls in type(obj).__mro__:
        if cls.__name__ in _RENDERERS:
            return _RENDERERS[cls.__name__]
    raise TypeError(f"hermes_nb cannot display {type(obj).__name__}")


def plain_text(obj: Any) -> str:
    """The deterministic ``text/plain`` of a result."""
    return _renderers_for(obj)[0](obj)


def static_html(obj: Any) -> str:
    """The escaped static HTML of a result."""
    return _renderers_for(obj)[1](obj)




def static_bundle(obj: Any) -> dict[str, Any]:
    """``text/plain`` and ``text/html`` of a result (no widget)."""
    text, page = _renderers_for(obj)
    return {"text/plain": text(obj), "text/html": page(obj)}
