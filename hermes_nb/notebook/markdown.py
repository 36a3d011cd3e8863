"""A small, safe Markdown-to-HTML converter for extracted pages (everything else is escaped)."""

from __future__ import annotations

import html
import re
from urllib.parse import urlsplit

from hermes_nb.code_fences import closes, opening_fence
from hermes_nb.web.extraction.formulas import FORMULA

__all__ = ["markdown_to_html"]

_PRE = "white-space:pre-wrap;background:rgba(127,127,127,.12);padding:6px;border-radius:4px"
_QUOTE = "margin:4px 0;padding-left:8px;border-left:3px solid rgba(127,127,127,.5)"
_TABLE = "border-collapse:collapse;margin:4px 0;color:inherit"
_CELL = "padding:2px 8px;border:1px solid rgba(127,127,127,.35);text-align:left;vertical-align:top"
#: A GFM table's delimiter row: ``|---|:--:|``.
_DELIMITER = re.compile(r"^\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?$")


def _e(value: str) -> str:
    return html.escape(value, quote=True)


def _link(url: str, label: str) -> str:
    return f'<a href="{_e(url)}" target="_blank" rel="noopener noreferrer">{_e(label)}</a>'


#: A formula (its TeX kept whole, for the notebook's MathJax), code, bold, a link, italics.
_INLINE = re.compile(
    f"({FORMULA.pattern})" + r"|`([^`]+)`|\*\*([^*]+)\*\*|\[([^\]]+)\]\(([^)\s]+)\)|\*([^*\s][^*]*)\*"
)


def _inline(text: str) -> str:
    out: list[str] = []
    pos = 0
    for m in _INLINE.finditer(text):
        out.append(_e(text[pos : m.start()]))
        formula, code, bold, label, url, italic = m.groups()
        if formula is not None:
            out.append(f'<span class="math">{_e(formula)}</span>')
        elif code is not None:
            out.append(f"<code>{_e(code)}</code>")
        elif bold is not None:
            out.append(f"<strong>{_e(bold)}</strong>")
        elif label is not None:
            # Relative or unsafe targets would not resolve outside the page: keep the label only.
            out.append(_link(url, label) if urlsplit(url).scheme in ("http", "https") else _e(label))
        else:
            out.append(f"<em>{_e(italic)}</em>")
        pos = m.end()
    out.append(_e(text[pos:]))
    return "".join(out)


def _row(line: str) -> list[str]:
    """A table row's cells: split on unescaped ``|``, outer pipes dropped, ``\\|`` kept as ``|``."""
    inner = line.strip()
    inner = inner[1:] if inner.startswith("|") else inner
    inner = inner[:-1] if inner.endswith("|") and not inner.endswith("\\|") else inner
    return [cell.strip().replace("\\|", "|") for cell in re.split(r"(?<!\\)\|", inner)]


def _table(header: list[str], rows: list[list[str]]) -> str:
    head = "".join(f'<th style="{_CELL}">{_inline(c)}</th>' for c in header)
    body = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{_inline(c)}</td>' for c in row) + "</tr>" for row in rows
    )
    return f'<table style="{_TABLE}"><tr>{head}</tr>{body}</table>'


def markdown_to_html(text: str) -> str:
    """A small, safe Markdown subset (headings, paragraphs, lists, quotes, code, links, tables); all
    else escaped."""
    blocks: list[str] = []
    para: list[str] = []
    items: list[str] = []
    list_tag = ""
    lines = (text or "").replace("\r\n", "\n").split("\n")
    i = 0

    def flush() -> None:
        nonlocal list_tag
        if para:
            blocks.append(f"<p>{_inline(' '.join(para))}</p>")
            para.clear()
        if items:
            blocks.append(f"<{list_tag}>" + "".join(f"<li>{x}</li>" for x in items) + f"</{list_tag}>")
            items.clear()
            list_tag = ""

    while i < len(lines):
        line = lines[i]
        stripped = line.strip()
        fence = opening_fence(stripped)  # a list item's fence too, however far it is indented
        if fence:
            flush()
            code: list[str] = []
            i += 1
            while i < len(lines) and not closes(lines[i].strip(), fence):
                code.append(lines[i])
                i += 1
            blocks.append(f'<pre style="{_PRE}">{_e(chr(10).join(code))}</pre>')
        elif not stripped:
            flush()
        elif stripped.startswith("|") and i + 1 < len(lines) and _DELIMITER.match(lines[i + 1].strip()):
            flush()  # a table (CSV and spreadsheets arrive as one): header, delimiter, then its rows
            header, rows = _row(stripped), []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_row(lines[i]))
                i += 1
            blocks.append(_table(header, rows))
            continue
        elif m := re.match(r"(#{1,6})\s+(.*)", stripped):
            flush()
            level = min(len(m.group(1)) + 2, 6)  # page headings sit below the card title
            blocks.append(f'<h{level} style="margin:8px 0 4px 0">{_inline(m.group(2))}</h{level}>')
        elif m := re.match(r"([-*+]|\d+[.)])\s+(.*)", stripped):
            tag = "ol" if m.group(1)[0].isdigit() else "ul"
            if para or (items and tag != list_tag):
                flush()
            list_tag = tag
            items.append(_inline(m.group(2)))
        elif stripped.startswith(">"):
            flush()
            blocks.append(f'<blockquote style="{_QUOTE}">{_inline(stripped.lstrip("> "))}</blockquote>')
        else:
            if items:
                flush()
            para.append(stripped)
        i += 1
    flush()
    return "\n".join(blocks)
