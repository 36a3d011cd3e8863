"""A cleaned HTML fragment (a readability candidate's output) as Markdown: headings, lists, tables, code."""

from __future__ import annotations

import re
from typing import Any

_SPACE = re.compile(r"[ \t\r\n\f\v]+")
_BLOCKS = {
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "figure",
    "figcaption",
    "dl",
    "dt",
    "dd",
    "address",
    "details",
    "summary",
    "center",
    "form",
    "fieldset",
    "body",
    "html",
}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_SKIP = {"script", "style", "noscript", "template", "button", "svg", "iframe", "head", "select", "input"}


def fragment_to_markdown(root: Any) -> str:
    """Markdown for an lxml element (block structure kept; links as their text; images dropped)."""
    out: list[str] = []
    _block(root, out, depth=0)
    text = "\n".join(out)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _inline(el: Any) -> str:
    """Text of ``el`` and its inline descendants, with bold/italic/code marks and ``<br>`` kept."""
    parts: list[str] = [el.text or ""]
    for child in el:
        parts.append(_marked(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _marked(child: Any) -> str:
    """One inline element as Markdown (its tail excluded)."""
    tag = child.tag.lower() if isinstance(child.tag, str) else ""
    if not tag or tag in _SKIP:
        return ""
    if tag == "br":
        return "\n"
    if tag == "code":
        inner = _SPACE.sub(" ", child.text_content()).strip()
        return f"`{inner}`" if inner else ""
    mark = {"strong": "**", "b": "**", "em": "*", "i": "*"}.get(tag)
    if mark:
        inner = _SPACE.sub(" ", _inline(child)).strip()
        return f"{mark}{inner}{mark}" if inner else ""
    return _inline(child)


def _block(el: Any, out: list[str], depth: int) -> None:
    """Append the Markdown blocks of ``el``'s content to ``out``."""
    pending: list[str] = [el.text or ""]

    def flush() -> None:
        text = _SPACE.sub(" ", "".join(pending)).strip()
        if text:
            out.extend((text, ""))
        pending.clear()

    for child in el:
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if not tag or tag in _SKIP:
            pending.append(child.tail or "")
            continue
        if tag in _HEADINGS:
            flush()
            title = _SPACE.sub(" ", child.text_content()).strip()
            if title:
                out.extend(("#" * _HEADINGS[tag] + " " + title, ""))
        elif tag in ("ul", "ol"):
            flush()
            _list(child, out, depth, ordered=tag == "ol")
            out.append("")
        elif tag == "pre":
            flush()
            code = child.text_content().strip("\n")
            if code.strip():
                out.extend(("```", code, "```", ""))
        elif tag == "table":
            flush()
            _table(child, out)
        elif tag == "blockquote":
            flush()
            inner: list[str] = []
            _block(child, inner, depth)
            quoted = "\n".join(inner).strip()
            if quoted:
                out.extend(["> " + line if line else ">" for line in quoted.split("\n")] + [""])
        elif tag == "hr":
            flush()
            out.extend(("---", ""))
        elif tag in _BLOCKS or tag == "li" or _has_block(child):
            flush()
            _block(child, out, depth)
        elif tag == "br":
            pending.append("\n")
        else:
            pending.append(_marked(child))
        pending.append(child.tail or "")
    flush()


def _has_block(el: Any) -> bool:
    return any(
        isinstance(d.tag, str)
        and (
            d.tag.lower() in _BLOCKS
            or d.tag.lower() in _HEADINGS
            or d.tag.lower() in ("ul", "ol", "pre", "table", "blockquote")
        )
        for d in el.iterdescendants()
    )


def _list(el: Any, out: list[str], depth: int, *, ordered: bool) -> None:
    n = 0
    for item in el:
        if not isinstance(item.tag, str) or item.tag.lower() != "li":
            continue
        n += 1
        nested = [c for c in item if isinstance(c.tag, str) and c.tag.lower() in ("ul", "ol")]
        inner: list[str] = []
        _block_without(item, inner, depth, nested)
        body = " ".join(line for line in inner if line).strip()
        marker = f"{n}." if ordered else "-"
        if body:
            out.append("  " * depth + f"{marker} {body}")
        for sub in nested:
            _list(sub, out, depth + 1, ordered=sub.tag.lower() == "ol")


def _block_without(item: Any, inner: list[str], depth: int, skip: list[Any]) -> None:
    parts = [item.text or ""]
    for child in item:
        if child in skip:
            parts.append(child.tail or "")
            continue
        tag = child.tag.lower() if isinstance(child.tag, str) else ""
        if tag and tag not in _SKIP:
            parts.append(_SPACE.sub(" ", _inline(child)))
        parts.append(child.tail or "")
    inner.append(_SPACE.sub(" ", "".join(parts)).strip())


def _table(el: Any, out: list[str]) -> None:
    rows = []
    for tr in el.iter("tr"):
        cells = [
            _SPACE.sub(" ", c.text_content()).strip().replace("|", "\\|")
            for c in tr
            if isinstance(c.tag, str) and c.tag.lower() in ("td", "th")
        ]
        if any(cells):
            rows.append(cells)
    if not rows:
        return
    width = max(len(r) for r in rows)
    if width == 1:  # a layout table: its cells are paragraphs
        out.extend(x for r in rows for x in (r[0], ""))
        return
    for i, row in enumerate(rows):
        out.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
        if i == 0:
            out.append("|" + "|".join(["---"] * width) + "|")
    out.append("")
