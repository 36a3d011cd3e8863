"""``hn.providers(kind)``: every web, image or video provider as a table row (renders in Jupyter)."""

from __future__ import annotations

import dataclasses
import html
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.extras import require
from hermes_nb.images import listing as image_listing
from hermes_nb.videos import listing as video_listing
from hermes_nb.web import listing as web_listing

__all__ = ["KINDS", "ProviderTable", "providers"]

KINDS = ("web", "image_gen", "video_gen")
_ALIASES = {"image": "image_gen", "images": "image_gen", "image-gen": "image_gen", "video": "video_gen",
            "videos": "video_gen", "video-gen": "video_gen"}  # fmt: skip
#: (field, heading) shown for each kind; ``to_pandas()`` keeps every field
_SHOWN = {
    "web": [
        ("name", "name"), ("display_name", "display name"), ("capabilities", "capabilities"),
        ("tier", "tier"), ("keyless", "keyless"), ("available", "available"), ("why_not", "why not"),
        ("docs_url", "docs"),
    ],
    "image_gen": [
        ("name", "name"), ("display_name", "display name"), ("capabilities", "capabilities"),
        ("models", "models"), ("options", "options"), ("price_note", "price"), ("tier", "tier"),
        ("keyless", "keyless"), ("available", "available"), ("why_not", "why not"), ("docs_url", "docs"),
    ],
    "video_gen": [
        ("name", "name"), ("display_name", "display name"), ("capabilities", "capabilities"),
        ("models", "models"), ("options", "options"), ("price_note", "price"), ("tier", "tier"),
        ("available", "available"), ("why_not", "why not"), ("docs_url", "docs"),
    ],
}
_CELL = "padding:2px 8px;border-bottom:1px solid rgba(127,127,127,.3);text-align:left;vertical-align:top"


class ProviderTable(list[Any]):  # rows are web ProviderRow or ImageProviderRow
    """The rows of ``hn.providers(kind)``: a list, an HTML table in Jupyter, ``.to_pandas()``."""

    def __init__(self, kind: str, rows: list[Any]) -> None:
        super().__init__(rows)
        self.kind = kind

    @property
    def columns(self) -> list[str]:
        return [heading for _, heading in _SHOWN[self.kind]]

    def names(self) -> list[str]:
        return [row.name for row in self]

    def records(self) -> list[dict[str, Any]]:
        """Every field of every row as plain dicts (tuples become lists)."""
        out = []
        for row in self:
            record = dataclasses.asdict(row)
            out.append({k: list(v) if isinstance(v, tuple) else v for k, v in record.items()})
        return out

    def to_pandas(self) -> Any:
        pd = require("pandas", "to_pandas()")

        return pd.DataFrame(self.records())

    def _cells(self, row: Any) -> list[str]:
        return [_text(getattr(row, field)) for field, _ in _SHOWN[self.kind]]

    def __repr__(self) -> str:
        rows = [self._cells(row) for row in self]
        widths = [len(h) for h in self.columns]
        for cells in rows:
            widths = [max(w, len(c)) for w, c in zip(widths, cells, strict=True)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        lines = [f"{self.kind} providers ({len(self)})", fmt.format(*self.columns).rstrip()]
        lines += [fmt.format(*cells).rstrip() for cells in rows]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f'<th style="{_CELL}">{html.escape(h)}</th>' for h in self.columns)
        body = []
        for row in self:
            cells = []
            for field, _ in _SHOWN[self.kind]:
                value = getattr(row, field)
                if field == "docs_url" and str(value).startswith(("https://", "http://")):
                    link = html.escape(str(value), quote=True)
                    cells.append(f'<td style="{_CELL}"><a href="{link}" target="_blank">docs</a></td>')
                else:
                    cells.append(f'<td style="{_CELL}">{html.escape(_text(value))}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        return (
            f'<div class="hermes-nb"><div style="font-weight:600">{html.escape(self.kind)} providers '
            f'({len(self)})</div><table style="border-collapse:collapse;color:inherit">'
            f"<tr>{head}</tr>{''.join(body)}</table></div>"
        )


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "✅" if value else "–"
    if isinstance(value, (tuple, list)):
        return ", ".join(str(v) for v in value)
    return "" if value is None else str(value)


def providers(kind: str = "web") -> ProviderTable:
    """One row per ``kind`` provider (``"web"``, ``"image_gen"`` or ``"video_gen"``): name, display name,
    capabilities, tier, keyless, available and why not (the variable or setting to set), docs
    link, and for images the models. Renders as a table; ``.to_pandas()`` gives a DataFrame."""
    wanted = _ALIASES.get(str(kind).strip().lower(), str(kind).strip().lower())
    if wanted == "web":
        return ProviderTable("web", web_listing.describe())
    if wanted == "image_gen":
        return ProviderTable("image_gen", image_listing.describe())
    if wanted == "video_gen":
        return ProviderTable("video_gen", video_listing.describe())
    raise InvalidInputError(f"unknown provider kind {kind!r}; use one of {', '.join(KINDS)}")
