"""Rich display of hermes_nb results: escaped static HTML and deterministic ``text/plain``.

``mimebundle(obj)`` is what every result's ``_repr_mimebundle_`` returns. The HTML uses inline
styles only (no ``<script>``, no remote CSS/JS) and inherits the theme's text colour, with
semi-transparent borders and backgrounds, so it reads in light and dark themes, on GitHub, in
nbconvert exports and in VS Code. ``text/plain`` never carries addresses, timestamps, durations,
absolute paths or random ids, so saved notebooks compare equal under nbval; durations appear in
the HTML provenance line only.

Display options (``set_options``) are process-wide; the ``%config HermesMagics`` traits write them.
Which card a result gets is decided in ``static``; the cards are built in ``web_cards`` and
``image_cards``; the optional widget view comes from ``widgets``.
"""


from collections.abc import Iterable, Sequence
from typing import Any

from hermes_nb.notebook import widgets
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
from hermes_nb.notebook.image_cards import file_href, thumbnail_bytes
from hermes_nb.notebook.static import plain_text, static_bundle, static_html
from hermes_nb.redaction import mask_known

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

def mimebundle(obj: Any, *, widget: bool | None = None) -> dict[str, Any]:
    """``text/plain`` + ``text/html`` for a result, plus a widget view when widgets are on and available.

    Known secrets and the plugins' redaction patterns are masked in both texts.
    """
    bundle = {k: mask_known(v) if isinstance(v, str) else v for k, v in static_bundle(obj).items()}
    if widget if widget is not None else options["use_widgets"]:
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
