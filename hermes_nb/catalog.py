"""``hn.providers(kind)`` and ``hn.plugins()``: every web, image or video provider, or plugin, as a row.

Both are lists that render as a table in Jupyter (stable text, escaped HTML) and give
``.to_pandas()``. ``hn.plugins`` is the ``hermes_nb.plugins`` package itself, made callable: calling
it reaches :func:`plugins` here through ``hermes_nb._services``, so the package stays importable as
before (``import hermes_nb.plugins.loader``).
"""

from __future__ import annotations

import dataclasses
import html
from typing import Any

from hermes_nb.errors import InvalidInputError
from hermes_nb.extras import require
from hermes_nb.images import listing as image_listing
from hermes_nb.plugins import loader
from hermes_nb.videos import listing as video_listing
from hermes_nb.web import listing as web_listing

__all__ = ["KINDS", "PluginRow", "PluginTable", "ProviderTable", "plugins", "providers"]

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
    "plugins": [
        ("key", "plugin"), ("version", "version"), ("source", "source"), ("available", "available"),
        ("status", "status"), ("provides", "provides"),
    ],
}
_CELL = "padding:2px 8px;border-bottom:1px solid rgba(127,127,127,.3);text-align:left;vertical-align:top"


class ProviderTable(list[Any]):  # rows are web ProviderRow or ImageProviderRow
    """The rows of ``hn.providers(kind)``: a list, an HTML table in Jupyter, ``.to_pandas()``."""

    def __init__(self, kind: str, rows: list[Any]) -> None:
        super().__init__(rows)
        self.kind = kind

    @property
    def title(self) -> str:
        return f"{self.kind} providers"

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
        return [_text(getattr(row, field), field) for field, _ in _SHOWN[self.kind]]

    def __repr__(self) -> str:
        rows = [self._cells(row) for row in self]
        widths = [len(h) for h in self.columns]
        for cells in rows:
            widths = [max(w, len(c)) for w, c in zip(widths, cells, strict=True)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        lines = [f"{self.title} ({len(self)})", fmt.format(*self.columns).rstrip()]
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
                    cells.append(f'<td style="{_CELL}">{html.escape(_text(value, field))}</td>')
            body.append("<tr>" + "".join(cells) + "</tr>")
        return (
            f'<div class="hermes-nb"><div style="font-weight:600">{html.escape(self.title)} '
            f'({len(self)})</div><table style="border-collapse:collapse;color:inherit">'
            f"<tr>{head}</tr>{''.join(body)}</table></div>"
        )


@dataclasses.dataclass(frozen=True)
class PluginRow:
    """One plugin of ``hn.plugins()``: where it came from, whether it can serve, what it registered."""

    key: str
    name: str
    kind: str
    version: str
    source: str
    state: str  # loaded, not imported yet, disabled, error
    available: bool | None  # its providers can serve (keyed, configured or keyless); None: not imported yet
    status: str  # the sentence `hermes-nb plugins list` prints
    provides: tuple[str, ...] = ()  # web:tavily, tool:calculator … (what it registered once imported)
    missing_env: tuple[str, ...] = ()
    error: str = ""


class PluginTable(ProviderTable):
    """The rows of ``hn.plugins()``: a list, an HTML table in Jupyter, ``.to_pandas()``."""

    def __init__(self, rows: list[PluginRow]) -> None:
        super().__init__("plugins", rows)

    @property
    def title(self) -> str:
        return "plugins"

    def names(self) -> list[str]:
        return [row.key for row in self]


def plugins(*, check: bool = False) -> PluginTable:
    """One row per discovered plugin (``hn.plugins()``): key, version, source, available, status and
    what it registered. ``check=True`` imports every enabled plugin first, so each row says whether
    its providers can serve (as ``hermes-nb plugins list --check``)."""
    listed = loader.check_all() if check else loader.list_plugins()
    rows = []
    for info in listed:
        provides = [*info["providers"], *(f"tool:{t}" for t in info["tools"])]
        provides += [f"hook:{h}" for h in info["hooks"]] + [f"magic:{m}" for m in info["magics"]]
        rows.append(
            PluginRow(
                key=info["key"], name=info["name"], kind=info["kind"] or "", version=info["version"] or "",
                source=info["source"], state=info["state"],
                available=None if info["availability"] == "unknown" else bool(info["available"]),
                status=info["status"], provides=tuple(provides), missing_env=tuple(info["missing_env"]),
                error=info["error"] or "",
            )
        )
    return PluginTable(rows)


def _text(value: Any, field: str = "") -> str:
    if isinstance(value, bool):  # words beside the symbols: without an emoji font they are empty boxes
        if value:
            return "✅ yes"
        return "❌ no" if field == "available" else "– no"
    if isinstance(value, (tuple, list)):
        return ", ".join(str(v) for v in value)
    if value is None and field == "available":
        return "… not asked yet"  # a plugin not imported: its providers have not been asked
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
