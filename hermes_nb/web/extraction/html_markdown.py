"""A cleaned HTML fragment (a readability candidate's output) as Markdown: headings, lists, tables, code."""

from __future__ import annotations

import copy
import re
from typing import Any

from .markdown_escapes import escaped, escaped_block_start
from .scripts import word_count

_SPACE = re.compile(r"[ \t\r\n\f\v]+")
_BACKTICKS = re.compile(r"`+")
_BREAK = "\ue040"  # a <br> until its paragraph is written: one is a line break, two or more a new paragraph
_BREAKS = re.compile(" *(?:\ue040 *)+")
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
    # A table's parts where no <table> holds them (readability returns a layout table's row bare):
    # each cell is a block, or the last word of one runs into the first of the next.
    "tbody",
    "thead",
    "tfoot",
    "tr",
    "td",
    "th",
    "caption",
}
#: Block elements with a Markdown form of their own (the rest of the blocks are paragraphs).
_BLOCK_ELSE = {"ul", "ol", "pre", "table", "blockquote"}
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
#: A table cell longer than this is a page column, not a datum: its table is a layout table.
LAYOUT_CELL_WORDS = 150
MAX_SPAN = 50  # columns one cell may take (a colspan of 1,000 would be a row of empty cells)
_SKIP = {"script", "style", "noscript", "template", "button", "svg", "iframe", "head", "select", "input"}


def parse_fragment(html: str) -> Any | None:
    """An HTML fragment (a candidate's output, a structured-data answer) under one ``<div>``; ``None``
    when lxml cannot read it."""
    from lxml import html as lxml_html  # heavy: imported when a page is converted

    try:
        return lxml_html.fragment_fromstring(html, create_parent="div")
    except (ValueError, TypeError, AssertionError):  # lxml asserts one <body> (a frameset has none)
        return None


def fragment_to_markdown(root: Any) -> str:
    """Markdown for an lxml element (block structure kept; links as their text; images dropped; the
    text escaped where Markdown would read it as syntax, ``markdown_escapes``)."""
    out: list[str] = []
    _block(root, out, depth=0)
    text = "\n".join(out)
    text = re.sub(r"[ \t]+\n", "\n", text)
    return re.sub(r"\n{3,}", "\n\n", text).strip()


def _inline(el: Any) -> str:
    """Text of ``el`` and its inline descendants, with bold/italic/code marks and ``<br>`` (as ``_BREAK``)."""
    parts: list[str] = [escaped(el.text or "")]
    for child in el:
        parts.append(_marked(child))
        parts.append(escaped(child.tail or ""))
    return "".join(parts)


def _marked(child: Any) -> str:
    """One inline element as Markdown (its tail excluded)."""
    tag = _tag(child)
    if not tag or tag in _SKIP:
        return ""
    if tag == "br":
        return _BREAK
    if tag == "code":
        return _wrapped(_SPACE.sub(" ", child.text_content()), "`")
    mark = {"strong": "**", "b": "**", "em": "*", "i": "*"}.get(tag)
    if mark:  # on one line: the text format reads emphasis a line at a time
        return _wrapped(_SPACE.sub(" ", _inline(child).replace(_BREAK, " ")), mark)
    return _inline(child)


def _wrapped(text: str, mark: str) -> str:
    """``text`` between ``mark``s, the spaces at its ends moved outside them: Markdown closes no mark
    after a space, and dropped, the space joined two words (``<b>grinded </b>and``: "grindedand")."""
    inner = text.strip()
    if not inner:
        return " " if text else ""
    return f"{' ' if text[0] == ' ' else ''}{mark}{inner}{mark}{' ' if text[-1] == ' ' else ''}"


def _spaced_text(el: Any) -> str:
    """``el``'s text with a space for each ``<br>``: a heading set on two lines ("works<br>as hard") is
    two words there, not "worksas"."""
    parts = [el.text or ""]
    for child in el:
        parts.append(" " if _tag(child) == "br" else _spaced_text(child))
        parts.append(child.tail or "")
    return "".join(parts)


def _block(el: Any, out: list[str], depth: int) -> None:
    """Append the Markdown blocks of ``el``'s content to ``out``."""
    pending: list[str] = [escaped(el.text or "")]

    def flush() -> None:
        text = _BREAKS.sub(_line_breaks, _SPACE.sub(" ", "".join(pending))).strip()
        if text:
            out.extend(("\n".join(escaped_block_start(line) for line in text.split("\n")), ""))
        pending.clear()

    for child in el:
        tag = _tag(child)
        if not tag or tag in _SKIP:
            pending.append(escaped(child.tail or ""))
            continue
        if tag in _HEADINGS:
            flush()
            title = escaped(_SPACE.sub(" ", _spaced_text(child)).strip())
            if title:
                out.extend(("#" * _HEADINGS[tag] + " " + title, ""))
        elif tag in ("ul", "ol"):
            flush()
            _list(child, out, depth, ordered=tag == "ol")
            out.append("")
        elif tag == "pre":
            flush()
            out.extend(_fenced(child))
        elif tag == "table":
            flush()
            _table(child, out, depth)
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
            pending.append(_BREAK)
        else:
            pending.append(_marked(child))
        pending.append(escaped(child.tail or ""))
    flush()


def _line_breaks(run: re.Match[str]) -> str:
    """A run of ``<br>``: a line break, or a paragraph's end where it holds two or more (as a browser
    shows ``<br><br>``: an empty line)."""
    return "\n\n" if run.group(0).count(_BREAK) > 1 else "\n"


def _has_block(el: Any) -> bool:
    tags = (_tag(d) for d in el.iterdescendants())
    return any(tag in _BLOCKS or tag in _HEADINGS or tag in _BLOCK_ELSE for tag in tags)


def _fenced(pre: Any) -> list[str]:
    """A ``<pre>`` as a fenced code block and a blank line (nothing when it holds no code)."""
    code = pre.text_content().strip("\n")
    if not code.strip():
        return []
    # A fence longer than any run of backticks in the code (code that shows a fence).
    fence = "`" * max(3, 1 + max((len(run) for run in _BACKTICKS.findall(code)), default=0))
    return [fence, code, fence, ""]


def _list(el: Any, out: list[str], depth: int, *, ordered: bool) -> None:
    """A list, an item a line; an item's code blocks follow its line, fenced at the margin (a list
    item's line has no room for one)."""
    n = 0
    for item in el:
        if _tag(item) != "li":
            continue
        n += 1
        pres = _item_code(item)
        if pres:  # read from a copy of the item without them
            item = copy.deepcopy(item)
            for pre in _item_code(item):
                pre.drop_tree()
        nested = [c for c in item if _tag(c) in ("ul", "ol")]
        inner: list[str] = []
        _block_without(item, inner, depth, nested)
        body = " ".join(line for line in inner if line).strip()
        marker = f"{n}." if ordered else "-"
        if body:
            out.append("  " * depth + f"{marker} {body}")
        if pres:
            out.append("")
            for pre in pres:
                out.extend(_fenced(pre))
        for sub in nested:
            _list(sub, out, depth + 1, ordered=sub.tag.lower() == "ol")


def _item_code(item: Any) -> list[Any]:
    """A list item's outermost ``<pre>`` elements, not those of its nested lists."""
    return [p for p in item.iter("pre") if not any(_tag(a) in ("ul", "ol", "pre") for a in _up_to(p, item))]


def _up_to(el: Any, top: Any) -> list[Any]:
    """The ancestors of ``el`` below ``top``."""
    chain = []
    for ancestor in el.iterancestors():
        if ancestor is top:
            break
        chain.append(ancestor)
    return chain


def _block_without(item: Any, inner: list[str], depth: int, skip: list[Any]) -> None:
    """A list item's content on one line, its nested lists (``skip``) left out; the blocks inside it
    (a card's title and price ``<div>``s, a heading and its paragraph) are spaced, not run together."""
    parts = [escaped_block_start(escaped((item.text or "").lstrip()))]  # "- 2024. A year" is no sublist
    for child in item:
        tag = _tag(child)
        if child in skip or not tag or tag in _SKIP:
            pass
        elif tag in _HEADINGS:
            parts.append(f" {escaped(_spaced_text(child))} ")
        elif tag == "pre":
            parts.append(f" {escaped(child.text_content())} ")
        elif tag == "table":  # its cells' words, in order (a Markdown table has no place in a list line)
            parts.append(" " + " ".join(_cell_text(c) for row in _rows(child) for c in row) + " ")
        elif tag in _BLOCKS or tag in _BLOCK_ELSE or _has_block(child):
            lines: list[str] = []
            _block(child, lines, depth)
            parts.append(" " + " ".join(line for line in lines if line) + " ")
        elif tag == "br":
            parts.append(" ")
        else:
            parts.append(_marked(child))
        parts.append(escaped(child.tail or ""))
    inner.append(_SPACE.sub(" ", "".join(parts).replace(_BREAK, " ")).strip())


def _table(el: Any, out: list[str], depth: int) -> None:
    """A data table as a Markdown table; a layout table (one column, or a cell holding a table, a
    heading or a long text) as the blocks of its cells, in order. Only the table's own rows count:
    a nested table is rendered once, inside its cell."""
    rows = _rows(el)
    if not rows:
        return
    if max(len(row) for row in rows) == 1 or any(_layout_cell(c) for row in rows for c in row):
        for row in rows:
            for cell in row:
                _block(cell, out, depth)
        return
    texts = [row for row in _grid(rows) if any(row)]
    if not texts:
        return
    width = max(len(row) for row in texts)
    for i, row in enumerate(texts):
        out.append("| " + " | ".join(row + [""] * (width - len(row))) + " |")
        if i == 0:
            out.append("|" + "|".join(["---"] * width) + "|")
    out.append("")


def _grid(rows: list[list[Any]]) -> list[list[str]]:
    """The rows' cell texts with each spanning cell's columns and rows taken up, empty, as a browser
    lines them up: a cell under a ``rowspan`` or beside a ``colspan`` stays in its own column."""
    grid: list[list[str]] = []
    above: dict[int, int] = {}  # column -> how many more rows a cell from a row above covers it
    for row in rows:
        out: list[str] = []
        for cell in row:
            _take_covered(out, above)
            across = _span(cell.get("colspan"), MAX_SPAN)
            down = _span(cell.get("rowspan"), len(rows))
            for k in range(across):
                if down > 1:
                    above[len(out)] = down - 1
                out.append(_cell_text(cell) if k == 0 else "")
        _take_covered(out, above)
        for col in [c for c, left in above.items() if left > 0 and c >= len(out)]:
            above[col] -= 1  # a column past this row's last cell, still covered from above
        grid.append(out)
    # Columns only spans reach, empty in every row (a colspan wider than the table), go.
    width = max((i + 1 for row in grid for i, text in enumerate(row) if text), default=0)
    return [row[:width] for row in grid]


def _take_covered(out: list[str], above: dict[int, int]) -> None:
    """Empty cells in ``out`` for the columns, from the next one on, that cells from above cover."""
    while above.get(len(out), 0) > 0:
        above[len(out)] -= 1
        out.append("")


def _span(value: str | None, most: int) -> int:
    """A ``colspan``/``rowspan`` as a count from 1 to ``most`` (missing, bad or 0: 1)."""
    try:
        return max(1, min(int(str(value).strip()), most))
    except ValueError:
        return 1


def _tag(el: Any) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _rows(table: Any) -> list[list[Any]]:
    """The cells (``<td>``, ``<th>``) of each row of ``table`` that has any: only the rows whose nearest
    table is ``table``, not those of a table nested in a cell."""
    own = (tr for tr in table.iter("tr") if next(tr.iterancestors("table"), None) is table)
    rows = ([c for c in tr if _tag(c) in ("td", "th")] for tr in own)
    return [row for row in rows if row]


def _layout_cell(cell: Any) -> bool:
    if any(_tag(d) == "table" or _tag(d) in _HEADINGS for d in cell.iterdescendants()):
        return True
    return word_count(cell.text_content()) > LAYOUT_CELL_WORDS


def _cell_text(cell: Any) -> str:
    """A data cell's text on one line: its blocks and line breaks become spaces, not run-on words."""
    inner: list[str] = []
    _block(cell, inner, 0)
    return _SPACE.sub(" ", " ".join(inner)).strip().replace("|", "\\|")
