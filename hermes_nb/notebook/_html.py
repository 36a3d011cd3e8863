"""The shared pieces of every result card: theme-neutral inline styles, escaping, links, display options.

Display options (``set_options``) are process-wide; the ``%config HermesMagics`` traits write them.
"""

from __future__ import annotations

import html
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from hermes_nb import config
from hermes_nb._state import on_reset

EMBED_MODES = ("thumb", "full", "link")
DEFAULTS: dict[str, Any] = {
    "max_results": None,
    "embed": "thumb",
    "use_widgets": False,
    "preview_chars": 4000,
}
options: dict[str, Any] = dict(DEFAULTS)

# Inline styles: colours come from the theme (inherit/currentColor); accents are translucent greys.
BOX = "font-family:inherit;color:inherit;line-height:1.4;max-width:980px"
CARD = (
    "border:1px solid rgba(127,127,127,.35);border-radius:6px;padding:8px 10px;margin:6px 0;"
    "background:rgba(127,127,127,.06);color:inherit"
)
MUTED = "opacity:.7;font-size:.85em"
BADGE = (
    "display:inline-block;padding:0 6px;border-radius:9px;font-size:.8em;"
    "border:1px solid currentColor;opacity:.8"
)
RANK = "display:inline-block;min-width:1.6em;font-weight:600;opacity:.6"
HEAD = "font-weight:600;margin:2px 0 6px 0"


@on_reset
def _reset_options() -> None:
    options.clear()
    options.update(DEFAULTS)


def set_options(**values: Any) -> None:
    """Change display options: ``max_results``, ``embed``, ``use_widgets``, ``preview_chars``."""
    for key, value in values.items():
        if key not in DEFAULTS:
            raise KeyError(f"unknown display option {key!r}; known: {', '.join(sorted(DEFAULTS))}")
        if key == "embed" and value not in EMBED_MODES:
            raise ValueError(f"embed must be one of {', '.join(EMBED_MODES)}, got {value!r}")
        options[key] = value


def get_options() -> dict[str, Any]:
    """A copy of the current display options."""
    return dict(options)


def max_results() -> int:
    if options["max_results"] is not None:
        return int(options["max_results"])
    return int(config.get("display.max_results", 10))


def thumb_px() -> int:
    return int(config.get("display.thumbnail_px", 256))


# --------------------------------------------------------------------------- small helpers


def esc(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def safe_href(url: Any) -> str | None:
    """``url`` if it is http(s), file or relative; ``javascript:`` and friends are never linked."""
    text = str(url or "").strip()
    if not text:
        return None
    scheme = urlsplit(text).scheme.lower()
    if scheme in ("http", "https", "file", ""):
        return text
    return None


def link_html(url: Any, label: Any) -> str:
    href = safe_href(url)
    if href is None:
        return esc(label)
    return f'<a href="{esc(href)}" target="_blank" rel="noopener noreferrer">{esc(label)}</a>'


def domain_of(url: str) -> str:
    host = urlsplit(url or "").hostname or ""
    return host[4:] if host.startswith("www.") else host


def duration_text(seconds: Any) -> str:
    try:
        return f"{float(seconds):.2f}s"
    except (TypeError, ValueError):
        return ""


def fallback_text(attempts: Iterable[Any], served_by: str) -> str:
    """``served by brave after searxng: answered with no results; tavily: out of quota: …`` when a
    provider before the one that served did not (empty when the first one served)."""
    before = [a for a in attempts or () if getattr(a, "code", None)]
    if not before:
        return ""
    reasons = "; ".join(
        f"{getattr(a, 'provider', '?')}: {shorten(str(getattr(a, 'message', '') or a.code), 120)}"
        for a in before
    )
    return f"served by {served_by} after {reasons}"


def attempts_text(attempts: Iterable[Any]) -> str:
    parts = []
    for att in attempts or ():
        name, code = getattr(att, "provider", "?"), getattr(att, "code", None)
        parts.append(f"{name} ({code})" if code else str(name))
    return " → ".join(parts)


def cache_note(result: Any, *, when: bool = True) -> str:
    """``from the cache (2026-11-24T10:31:02Z)`` for a cached result, else an empty string.

    ``when=False`` leaves the time out: ``text/plain`` stays free of timestamps (nbval compares it).
    """
    if not getattr(result, "cached", False):
        return ""
    at = getattr(result, "cached_at", "") or getattr(result, "created", "")
    return f"from the cache ({at})" if at and when else "from the cache"


def provenance_html(*parts: str, duration: Any = None) -> str:
    items = [p for p in parts if p]
    if duration is not None and duration_text(duration):
        items.append(f"in {duration_text(duration)}")
    return f'<div style="{MUTED};margin-top:4px">{" · ".join(items)}</div>'


def shorten(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


