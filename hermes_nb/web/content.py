"""Content-type handlers: fetched bytes → Markdown text plus metadata (title, author, date, language).

``convert(data, content_type)`` routes by the detected content type (``hermes_nb.net.fetch`` detects it):
HTML → Markdown by ``hermes_nb.web.extraction`` (candidates, confidence, page type); Markdown and
plain text kept (whitespace normalised); JSON pretty-printed; CSV/TSV → a Markdown table; RSS/Atom →
bullets; PDF → text with pypdf. Other types raise ``ContentFetchError`` naming the type. A handler
that fails on malformed input falls back to plain text and says so in ``metadata["parse_warning"]``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from typing import Any

from hermes_nb.errors import ContentFetchError
from hermes_nb.markdown_heading import HEADINGS
from hermes_nb.net.encoding_labels import codec_for
from hermes_nb.web.extraction import (
    Document,
    html_converter_ready,
    html_signals,
    html_to_markdown,
    missing_package,
    visible_text_of,
)
from hermes_nb.web.extraction.formats import DEFAULT_FORMAT, check_format, render

__all__ = [
    "Document", "convert", "convert_fetched", "html_converter_ready", "html_to_markdown", "html_signals",
    "kind_of",
]

#: Caps that keep a rendered page readable (devkit-pi's choices, see the web reference §16.9).
MAX_JSON_ITEMS = 50
MAX_JSON_CHARS = 50_000
MAX_TABLE_ROWS = 100
MAX_TABLE_COLS = 20
MAX_CELL_CHARS = 80
MAX_FEED_ITEMS = 20
MAX_PDF_PAGES = 500


_HTML_TYPES = {"text/html", "application/xhtml+xml"}
_MARKDOWN_TYPES = {"text/markdown", "text/x-markdown"}
_JSON_TYPES = {"application/json", "text/json"}
_CSV_TYPES = {"text/csv", "application/csv", "text/tab-separated-values"}
_FEED_TYPES = {"application/rss+xml", "application/atom+xml", "application/feed+xml"}
_XML_TYPES = {"application/xml", "text/xml"}
_TEXT_APPS = {"application/x-yaml", "application/yaml", "application/javascript", "application/x-sh",
              "application/toml", "application/x-httpd-php", "application/sql"}


def kind_of(content_type: str) -> str | None:
    """The handler name for a MIME type (parameters ignored), or ``None`` when it is unsupported."""
    mime = content_type.split(";", 1)[0].strip().lower()
    if mime.split("/", 1)[0] in ("image", "audio", "video"):
        return None  # even the XML-based ones (SVG): media is not text to read
    if mime in _HTML_TYPES:
        return "html"
    if mime in _MARKDOWN_TYPES:
        return "markdown"
    if mime in _JSON_TYPES or mime.endswith("+json"):
        return "json"
    if mime in _CSV_TYPES:
        return "csv"
    if mime in _FEED_TYPES:
        return "feed"
    if mime in _XML_TYPES or mime.endswith("+xml"):
        return "xml"
    if mime == "application/pdf":
        return "pdf"
    if mime.startswith("text/") or mime in _TEXT_APPS:
        return "text"
    return None


def convert(
    data: bytes | str,
    content_type: str,
    *,
    url: str = "",
    charset: str | None = None,
    min_confidence: float | None = None,
    format: str = DEFAULT_FORMAT,  # noqa: A002  # the public parameter's name (hn.extract(format=...))
    images: bool = False,
) -> Document:
    """Convert one resource; ``data`` bytes are decoded with ``charset`` (UTF-8 when unknown).

    The charset label means what it means to a browser: ``iso-8859-1`` reads as windows-1252.

    ``min_confidence`` (HTML only; default ``web.extract.min_confidence``): below it the extractor
    tries its next candidate. ``format``: ``markdown`` (default), ``text`` or ``html``, derived from
    the Markdown (``hermes_nb.web.extraction.formats``). ``images`` (HTML only; off unless
    ``hn.extract(images=True)`` or ``web.extract.images`` asks): the page's figures in the Markdown,
    ``![alt](src)``, where the words around them place them (``hermes_nb.web.extraction.images``).
    """
    fmt = check_format(format)
    kind = kind_of(content_type)
    mime = content_type.split(";", 1)[0].strip().lower() or "unknown"
    if kind is None:
        raise ContentFetchError(
            f"cannot extract {mime} content from {url or 'the response'}: the type is not supported "
            "(supported: HTML, text, Markdown, JSON, CSV/TSV, RSS/Atom, PDF)",
            details={"content_type": mime},
        )
    if kind == "pdf":
        raw = data if isinstance(data, bytes) else data.encode("latin-1", "replace")
        doc = _pdf(raw, url)
    else:
        text = data if isinstance(data, str) else _decode(data, charset)
        handler = _HANDLERS[kind]
        try:
            if kind == "html" and (min_confidence is not None or images):
                doc = html_to_markdown(text, url=url, min_confidence=min_confidence, images=images)
            else:
                doc = handler(text, url, mime)
        except ContentFetchError:
            raise  # a missing converter: a per-URL error with its fix, never the raw markup
        except Exception as exc:  # any parser failure degrades to plain text, as documented
            # HTML degrades to its visible text: markup is never returned as content.
            doc = Document("", _visible_text(text)) if kind == "html" else _text(text, url, mime)
            doc.metadata["parse_warning"] = f"{kind} failed ({type(exc).__name__}); kept as plain text"
    doc.metadata.setdefault("content_type", mime)
    if fmt != DEFAULT_FORMAT:
        doc.content = render(doc.content, fmt)
        doc.metadata["format"] = fmt
    return doc


def convert_fetched(fetched: Any, *, min_confidence: float | None = None, images: bool = False) -> Document:
    """Convert a ``hermes_nb.net.fetch.FetchedContent`` (text decoded with its detected charset).

    Picklable by reference with picklable arguments, so ``direct`` can run it in worker processes.
    """
    kind = kind_of(fetched.content_type)
    data: bytes | str = fetched.content if kind in (None, "pdf") else fetched.text
    return convert(
        data,
        fetched.content_type,
        url=fetched.final_url or fetched.url,
        charset=fetched.charset,
        min_confidence=min_confidence,
        images=images,
    )


def _decode(data: bytes, charset: str | None) -> str:
    return data.decode(codec_for(charset) or "utf-8", errors="replace")


# --- HTML (the extraction subpackage does the work) ------------------------------------------

_missing_package = missing_package


def _squash(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()
_visible_text = visible_text_of


def _html(text: str, url: str, mime: str) -> Document:
    return html_to_markdown(text, url=url)


# --- text, Markdown, JSON -------------------------------------------------------------------


def _normalise_text(text: str) -> str:
    text = text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff")
    lines = [line.rstrip() for line in text.split("\n")]
    return re.sub(r"\n{3,}", "\n\n", "\n".join(lines)).strip()


def _text(text: str, url: str, mime: str) -> Document:
    return Document(title="", content=_normalise_text(text), metadata={"content_type": mime})


def _markdown(text: str, url: str, mime: str) -> Document:
    body = _normalise_text(text)
    title = next((heading.group(1) for heading in HEADINGS.finditer(body) if heading.group(1)), "")
    return Document(title=title, content=body, metadata={"content_type": mime})


def _json(text: str, url: str, mime: str) -> Document:
    value = json.loads(text)
    meta: dict[str, Any] = {"content_type": mime}
    title = ""
    if isinstance(value, dict):
        for key in ("headline", "name", "title"):
            if isinstance(value.get(key), str):
                title = value[key]
                break
    if isinstance(value, list) and len(value) > MAX_JSON_ITEMS:
        meta["items_total"] = len(value)
        value = value[:MAX_JSON_ITEMS]
        meta["items_shown"] = MAX_JSON_ITEMS
    pretty = json.dumps(value, indent=2, ensure_ascii=False)
    if len(pretty) > MAX_JSON_CHARS:
        pretty = pretty[:MAX_JSON_CHARS] + "\n…"
        meta["json_truncated"] = True
    return Document(title=title, content=f"```json\n{pretty}\n```", metadata=meta)


# --- CSV / TSV ------------------------------------------------------------------------------


def _csv(text: str, url: str, mime: str) -> Document:
    text = text.lstrip("\ufeff")
    sample = "\n".join(text.splitlines()[:5])
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel_tab if "tab-separated" in mime or "\t" in sample else csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    rows: list[list[str]] = []
    total = 0
    for row in reader:
        if not row:
            continue
        total += 1
        if len(rows) <= MAX_TABLE_ROWS:  # header + MAX_TABLE_ROWS data rows
            rows.append(row)
    if not rows:
        return Document(title="", content="", metadata={"content_type": mime, "rows": 0})
    width = min(max(len(r) for r in rows), MAX_TABLE_COLS)
    lines = []
    for i, row in enumerate(rows):
        cells = [_cell(row[j]) if j < len(row) else "" for j in range(width)]
        lines.append("| " + " | ".join(cells) + " |")
        if i == 0:
            lines.append("|" + "|".join(["---"] * width) + "|")
    meta = {"content_type": mime, "rows": total - 1, "columns": max(len(r) for r in rows)}
    if total - 1 > MAX_TABLE_ROWS:
        lines.append(f"\n_{total - 1 - MAX_TABLE_ROWS} more rows not shown._")
    return Document(title="", content="\n".join(lines), metadata=meta)


def _cell(value: str) -> str:
    value = _squash(value).replace("|", "\\|")
    return value if len(value) <= MAX_CELL_CHARS else value[: MAX_CELL_CHARS - 1] + "…"


# --- RSS / Atom / XML -----------------------------------------------------------------------


def _parse_xml(text: str) -> Any:
    from lxml import etree

    # No entity expansion and no network: feeds come from the open web.
    parser = etree.XMLParser(resolve_entities=False, no_network=True, huge_tree=False, recover=False)
    return etree.fromstring(text.lstrip("\ufeff").encode("utf-8"), parser)


def _local(tag: Any) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _child_text(node: Any, *names: str) -> str:
    for child in node:
        if _local(child.tag) in names:
            if _local(child.tag) == "link" and child.get("href"):
                return str(child.get("href"))
            return _squash("".join(child.itertext()))
    return ""


def _feed(text: str, url: str, mime: str) -> Document:
    root = _parse_xml(text)
    kind = _local(root.tag)
    if kind == "rss":
        channel = next((c for c in root if _local(c.tag) == "channel"), root)
        items = [c for c in channel if _local(c.tag) == "item"]
    elif kind == "rdf":  # RSS 1.0 puts items beside the channel, not inside it
        channel = next((c for c in root if _local(c.tag) == "channel"), root)
        items = [c for c in root if _local(c.tag) == "item"]
    elif kind == "feed":
        channel = root
        items = [c for c in root if _local(c.tag) == "entry"]
    else:
        raise ValueError(f"not a feed: <{kind}>")
    title = _child_text(channel, "title")
    lines = []
    for item in items[:MAX_FEED_ITEMS]:
        head = _child_text(item, "title") or "(untitled)"
        link = _child_text(item, "link")
        date = _child_text(item, "pubdate", "updated", "published", "date")
        summary = _child_text(item, "description", "summary")
        summary = _squash(re.sub(r"<[^>]+>", " ", summary))[:300]
        line = f"- [{head}]({link})" if link else f"- {head}"
        if date:
            line += f" ({date})"
        if summary:
            line += f": {summary}"
        lines.append(line)
    meta = {"content_type": mime, "feed_format": "atom" if kind == "feed" else "rss", "items": len(items)}
    if len(items) > MAX_FEED_ITEMS:
        lines.append(f"\n_{len(items) - MAX_FEED_ITEMS} more items not shown._")
    body = (f"# {title}\n\n" if title else "") + "\n".join(lines)
    return Document(title=title, content=body, metadata=meta)


def _xml(text: str, url: str, mime: str) -> Document:
    root = _parse_xml(text)
    if _local(root.tag) in ("rss", "rdf", "feed"):
        return _feed(text, url, mime)
    return _text(text, url, mime)


# --- PDF ------------------------------------------------------------------------------------


def _pdf(data: bytes, url: str) -> Document:
    from pypdf import PdfReader
    from pypdf.errors import PdfReadError

    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):
            raise ContentFetchError(f"{url or 'the PDF'} is encrypted; download and decrypt it first")
        pages = reader.pages
        texts = [(page.extract_text() or "").strip() for page in list(pages)[:MAX_PDF_PAGES]]
        info: Any = reader.metadata or {}
    except ContentFetchError:
        raise
    except (PdfReadError, ValueError, KeyError, TypeError, OSError) as exc:
        raise ContentFetchError(
            f"could not read the PDF at {url or 'the response'} ({type(exc).__name__}); "
            "the file may be damaged or truncated (raise the fetch size cap for large PDFs)",
            details={"content_type": "application/pdf"},
        ) from exc
    meta: dict[str, Any] = {"content_type": "application/pdf", "pages": len(pages)}
    author = info.get("/Author")
    if author:
        meta["author"] = str(author)
    title = str(info.get("/Title") or "")
    if len(pages) > MAX_PDF_PAGES:
        meta["pages_shown"] = MAX_PDF_PAGES
    body = "\n\n".join(t for t in texts if t)
    return Document(title=title, content=_normalise_text(body), metadata=meta)


_HANDLERS: dict[str, Callable[[str, str, str], Document]] = {
    "html": _html,
    "markdown": _markdown,
    "text": _text,
    "json": _json,
    "csv": _csv,
    "feed": _feed,
    "xml": _xml,
}
