"""Rich display of hermes_nb results: escaped static HTML and deterministic ``text/plain``.

``mimebundle(obj)`` is what every result's ``_repr_mimebundle_`` returns. The HTML uses inline
styles only (no ``<script>``, no remote CSS/JS) and inherits the theme's text colour, with
semi-transparent borders and backgrounds, so it reads in light and dark themes, on GitHub, in
nbconvert exports and in VS Code. ``text/plain`` never carries addresses, timestamps, durations,
absolute paths or random ids, so saved notebooks compare equal under nbval; durations appear in
the HTML provenance line only.

Display options (``set_options``) are process-wide; the ``%config HermesMagics`` traits write them.
"""

from __future__ import annotations

import html
import io
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from hermes_nb._state import on_reset
from hermes_nb.notebook.markdown import markdown_to_html

__all__ = [
    "mimebundle",
    "plain_text",
    "static_html",
    "set_options",
    "get_options",
    "thumbnail_bytes",
    "ResultList",
]

EMBED_MODES = ("thumb", "full", "link")
_DEFAULTS: dict[str, Any] = {
    "max_results": None,
    "embed": "thumb",
    "use_widgets": False,
    "preview_chars": 4000,
}
_options: dict[str, Any] = dict(_DEFAULTS)

# Inline styles: colours come from the theme (inherit/currentColor); accents are translucent greys.
BOX = "font-family:inherit;color:inherit;line-height:1.4;max-width:980px"
_CARD = (
    "border:1px solid rgba(127,127,127,.35);border-radius:6px;padding:8px 10px;margin:6px 0;"
    "background:rgba(127,127,127,.06);color:inherit"
)
MUTED = "opacity:.7;font-size:.85em"
_BADGE = (
    "display:inline-block;padding:0 6px;border-radius:9px;font-size:.8em;"
    "border:1px solid currentColor;opacity:.8"
)
_RANK = "display:inline-block;min-width:1.6em;font-weight:600;opacity:.6"
HEAD = "font-weight:600;margin:2px 0 6px 0"


@on_reset
def _reset_options() -> None:
    _options.clear()
    _options.update(_DEFAULTS)


def set_options(**values: Any) -> None:
    """Change display options: ``max_results``, ``embed``, ``use_widgets``, ``preview_chars``."""
    for key, value in values.items():
        if key not in _DEFAULTS:
            raise KeyError(f"unknown display option {key!r}; known: {', '.join(sorted(_DEFAULTS))}")
        if key == "embed" and value not in EMBED_MODES:
            raise ValueError(f"embed must be one of {', '.join(EMBED_MODES)}, got {value!r}")
        _options[key] = value


def get_options() -> dict[str, Any]:
    """A copy of the current display options."""
    return dict(_options)


def _max_results() -> int:
    if _options["max_results"] is not None:
        return int(_options["max_results"])
    from hermes_nb import config

    return int(config.get("display.max_results", 10))


def _thumb_px() -> int:
    from hermes_nb import config

    return int(config.get("display.thumbnail_px", 256))


# --------------------------------------------------------------------------- small helpers


def _e(value: Any) -> str:
    return html.escape("" if value is None else str(value), quote=True)


def _safe_href(url: Any) -> str | None:
    """``url`` if it is http(s), file or relative; ``javascript:`` and friends are never linked."""
    text = str(url or "").strip()
    if not text:
        return None
    scheme = urlsplit(text).scheme.lower()
    if scheme in ("http", "https", "file", ""):
        return text
    return None


def _link(url: Any, label: Any) -> str:
    href = _safe_href(url)
    if href is None:
        return _e(label)
    return f'<a href="{_e(href)}" target="_blank" rel="noopener noreferrer">{_e(label)}</a>'


def _domain(url: str) -> str:
    host = urlsplit(url or "").hostname or ""
    return host[4:] if host.startswith("www.") else host


def _duration(seconds: Any) -> str:
    try:
        return f"{float(seconds):.2f}s"
    except (TypeError, ValueError):
        return ""


def _attempts_text(attempts: Iterable[Any]) -> str:
    parts = []
    for att in attempts or ():
        name, code = getattr(att, "provider", "?"), getattr(att, "code", None)
        parts.append(f"{name} ({code})" if code else str(name))
    return " → ".join(parts)


def _provenance_html(*parts: str, duration: Any = None) -> str:
    items = [p for p in parts if p]
    if duration is not None and _duration(duration):
        items.append(f"in {_duration(duration)}")
    return f'<div style="{MUTED};margin-top:4px">{" · ".join(items)}</div>'


def _shorten(text: str, limit: int) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


# --------------------------------------------------------------------------- search


def _search_text(res: Any) -> str:
    hits = list(getattr(res, "hits", []) or [])
    head = f"SearchResult(query={res.query!r}, provider={res.provider!r}, hits={len(hits)})"
    shown = hits[: _max_results()]
    lines = [head]
    for hit in shown:
        lines.append(f"{hit.position:>3}. {_shorten(hit.title, 90)}")
        lines.append(f"     {hit.url}")
    if len(hits) > len(shown):
        lines.append(f"     … and {len(hits) - len(shown)} more (r.hits, r.to_pandas())")
    return "\n".join(lines)


def _search_html(res: Any) -> str:
    hits = list(getattr(res, "hits", []) or [])
    shown = hits[: _max_results()]
    cards = []
    for hit in shown:
        domain = getattr(hit, "domain", None) or _domain(hit.url)
        cards.append(
            f'<li style="{_CARD}"><span style="{_RANK}">{int(hit.position)}</span>'
            f"{_link(hit.url, hit.title or hit.url)}"
            f'<div style="{MUTED}">{_e(domain)}</div>'
            f'<div style="margin-top:2px">{_e(_shorten(hit.description, 400))}</div></li>'
        )
    hidden = len(hits) - len(shown)
    more = f'<div style="{MUTED}">… and {hidden} more</div>' if hidden > 0 else ""
    empty = f'<div style="{MUTED}">no results</div>' if not hits else ""
    badges = f'<span style="{_BADGE}">{_e(res.provider)}</span>'
    if getattr(res, "cached", False):
        badges += f' <span style="{_BADGE}">cached</span>'
    tried = _attempts_text(getattr(res, "attempts", []))
    return (
        f'<div class="hermes-nb hermes-nb-search" style="{BOX}">'
        f'<div style="{HEAD}">🔎 {_e(res.query)} {badges}</div>'
        f'<ol style="list-style:none;padding:0;margin:0">{"".join(cards)}</ol>{more}{empty}'
        + _provenance_html(
            f"{len(hits)} result(s) from {_e(res.provider)}",
            f"tried {_e(tried)}" if tried and "→" in tried else "",
            duration=getattr(res, "duration_s", None),
        )
        + "</div>"
    )


# --------------------------------------------------------------------------- pages


def _page_text(page: Any) -> str:
    if getattr(page, "error", None):
        return f"  ! {page.url}: {getattr(page, 'error_code', None) or 'ERROR'}: {_shorten(page.error, 160)}"
    total = getattr(page, "total_chars", 0) or len(page.content or "")
    flag = ", truncated" if getattr(page, "truncated", False) else ""
    label = f"{_shorten(page.title, 80)} ({page.url})" if page.title else page.url
    return f"  - {label}: {total} chars{flag}"


def _first_heading(markdown: str) -> str:
    for line in (markdown or "").splitlines()[:40]:
        if line.startswith("#"):
            return line.lstrip("#").strip()
    return ""


def _page_html(page: Any, *, open_: bool) -> str:
    title = page.title or _first_heading(page.content) or page.url
    head = (
        f'<div style="{HEAD}">📄 {_link(page.url, title)}</div>'
        f'<div style="{MUTED}">{_e(_domain(page.url))}</div>'
    )
    if getattr(page, "error", None):
        code = getattr(page, "error_code", None) or "ERROR"
        return f'<div style="{_CARD}">{head}<div>⚠️ <code>{_e(code)}</code> {_e(page.error)}</div></div>'
    content = page.content or ""
    limit = int(_options["preview_chars"])
    body = markdown_to_html(content[:limit])
    total = getattr(page, "total_chars", 0) or len(content)
    footer = []
    if len(content) > limit:
        footer.append(f"showing {limit:,} of {len(content):,} characters inline (page.content has them all)")
    if getattr(page, "truncated", False):
        where = getattr(page, "full_text_path", None)
        stored = f"; full text stored as {_e(Path(where).name)}" if where else ""
        footer.append(f"truncated: {len(content):,} of {total:,} characters kept{stored}")
    foot = f'<div style="{MUTED};margin-top:4px">✂️ {"; ".join(footer)}</div>' if footer else ""
    summary = f'<summary style="cursor:pointer;{MUTED}">{total:,} characters</summary>'
    return (
        f'<div style="{_CARD}">{head}<details{" open" if open_ else ""}>{summary}'
        f'<div style="margin-top:4px">{body}</div></details>{foot}</div>'
    )


def _single_page_text(page: Any) -> str:
    return "Page\n" + _page_text(page)


def _single_page_html(page: Any) -> str:
    return f'<div class="hermes-nb hermes-nb-page" style="{BOX}">{_page_html(page, open_=True)}</div>'


def _extract_text(res: Any) -> str:
    pages = list(res.pages)
    lines = [f"ExtractResult(provider={res.provider!r}, pages={len(pages)})"]
    lines += [_page_text(p) for p in pages]
    return "\n".join(lines)


def _extract_html(res: Any) -> str:
    pages = list(res.pages)
    cards = "".join(_page_html(p, open_=i == 0) for i, p in enumerate(pages))
    ok = sum(1 for p in pages if not getattr(p, "error", None))
    return (
        f'<div class="hermes-nb hermes-nb-extract" style="{BOX}">{cards}'
        + _provenance_html(
            f"{ok} of {len(pages)} page(s) extracted by {_e(res.provider)}",
            duration=getattr(res, "duration_s", None),
        )
        + "</div>"
    )


def _crawl_text(res: Any) -> str:
    pages = list(res.pages)
    lines = [f"CrawlResult(start_url={res.start_url!r}, provider={res.provider!r}, pages={len(pages)})"]
    lines += [_page_text(p) for p in pages]
    return "\n".join(lines)


def _crawl_html(res: Any) -> str:
    pages = list(res.pages)
    cards = "".join(_page_html(p, open_=False) for p in pages)
    return (
        f'<div class="hermes-nb hermes-nb-crawl" style="{BOX}">'
        f'<div style="{HEAD}">🕸️ crawl of {_link(res.start_url, res.start_url)}</div>{cards}'
        + _provenance_html(
            f"{len(pages)} page(s) by {_e(res.provider)}", duration=getattr(res, "duration_s", None)
        )
        + "</div>"
    )


# --------------------------------------------------------------------------- images


def thumbnail_bytes(path: str | os.PathLike[str], max_px: int = 256) -> tuple[bytes, str, tuple[int, int]]:
    """A JPEG thumbnail (longest edge ≤ ``max_px``) of the image at ``path``: (bytes, mime, size)."""
    from PIL import Image

    with Image.open(path) as source:
        source.thumbnail((max_px, max_px))
        thumb: Image.Image = source
        if source.mode not in ("RGB", "L"):
            # JPEG has no alpha: flatten onto white so transparent areas do not turn black.
            rgba = source.convert("RGBA")
            thumb = Image.new("RGB", rgba.size, (255, 255, 255))
            thumb.paste(rgba, mask=rgba.getchannel("A"))
        buf = io.BytesIO()
        thumb.save(buf, format="JPEG", quality=80, optimize=True)
        return buf.getvalue(), "image/jpeg", thumb.size


def _file_facts(path: Path) -> tuple[str, str]:
    """(short sha256, "WxH") of an image file, or placeholders when it is gone."""
    import hashlib

    try:
        digest = hashlib.sha256(path.read_bytes()).hexdigest()[:12]
    except OSError:
        return "missing", "?x?"
    try:
        from PIL import Image

        with Image.open(path) as img:
            return digest, f"{img.width}x{img.height}"
    except Exception:
        return digest, "?x?"


def file_href(path: Path) -> str:
    """A relative link when the file sits under the notebook's directory, else a ``file:`` URI."""
    try:
        full, here = path.resolve(), Path.cwd().resolve()
        if full.is_relative_to(here):
            return full.relative_to(here).as_posix()
        return full.as_uri()
    except (OSError, ValueError):
        return path.as_posix()


def _image_text(img: Any) -> str:
    sha, width, height = getattr(img, "sha256", ""), getattr(img, "width", 0), getattr(img, "height", 0)
    digest, size = (sha[:12], f"{width}x{height}") if sha and width else _file_facts(Path(img.path))
    return (
        f"ImageResult(provider={img.provider!r}, model={getattr(img, 'model', None)!r}, "
        f"aspect_ratio={getattr(img, 'aspect_ratio', None)!r}, seed={getattr(img, 'seed', None)!r}, "
        f"{size}, sha256={digest})"
    )


def _image_card(img: Any) -> str:
    path = Path(img.path)
    href = file_href(path)
    embed = _options["embed"]
    alt = _shorten(getattr(img, "prompt", "") or "", 200)
    picture = ""
    if embed in ("thumb", "full") and path.exists():
        if embed == "thumb":
            data, mime, (w, h) = thumbnail_bytes(path, _thumb_px())
        else:
            suffix = path.suffix.lstrip(".").lower().replace("jpg", "jpeg") or "png"
            data, mime = path.read_bytes(), f"image/{suffix}"
            w = h = 0
        size = f' width="{w}" height="{h}"' if w else ' style="max-width:100%"'
        import base64

        src = f"data:{mime};base64,{base64.b64encode(data).decode('ascii')}"
        picture = f'<a href="{_e(href)}" target="_blank"><img src="{src}" alt="{_e(alt)}"{size}/></a>'
    elif not path.exists():
        picture = f'<div style="{MUTED}">image file is missing</div>'
    cost = getattr(img, "cost", None) or {}
    cost_text = ""
    if cost.get("usd") is not None:
        cost_text = f"{'~' if cost.get('estimated') else ''}${float(cost['usd']):.3f}"
    revised = getattr(img, "revised_prompt", None)
    caption = _provenance_html(
        f'<span style="{_BADGE}">{_e(img.provider)}</span>',
        _e(getattr(img, "model", None) or ""),
        f"seed {_e(img.seed)}" if getattr(img, "seed", None) is not None else "",
        cost_text,
        _link(href, "full size"),
        duration=getattr(img, "duration_s", None),
    )
    revised_html = f'<div style="{MUTED}">revised prompt: {_e(revised)}</div>' if revised else ""
    return (
        f'<figure style="{_CARD};display:inline-block;vertical-align:top;max-width:100%">{picture}'
        f'<figcaption style="max-width:{max(_thumb_px(), 256)}px"><div>{_e(_shorten(alt, 160))}</div>'
        f"{revised_html}{caption}</figcaption></figure>"
    )


def _image_html(img: Any) -> str:
    return f'<div class="hermes-nb hermes-nb-image" style="{BOX}">{_image_card(img)}</div>'


def _gallery_text(gallery: Any) -> str:
    items = list(gallery)
    lines = [f"ImageGallery(n={len(items)})"]
    lines += [f"  [{i}] {_image_text(img)}" for i, img in enumerate(items)]
    return "\n".join(lines)


def _gallery_html(gallery: Any) -> str:
    cards = "".join(_image_card(img) for img in gallery)
    return (
        f'<div class="hermes-nb hermes-nb-gallery" style="{BOX};display:flex;flex-wrap:wrap;gap:8px">'
        f"{cards}</div>"
    )


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
    if widget if widget is not None else _options["use_widgets"]:
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
                pages.append(f'<div style="{_CARD}">⚠️ {_e(repr(item))}</div>')
        return {"text/plain": "\n".join(texts), "text/html": "\n".join(pages)}
