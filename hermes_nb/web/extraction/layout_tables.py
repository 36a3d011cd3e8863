"""Tables that lay out a page, read as the blocks they hold: trafilatura writes a table cell on one line.

Pages written before style sheets (a weekly's edition, a book's web text, a library's catalogue, a
blog theme of the time) set the whole page in a table and its article in one cell: heading, byline
and fifty paragraphs. The extractors read such a cell as a table's datum, and the reading was a table
of one cell holding the whole article, every paragraph run into one line of up to 80,000 characters.
A cell that holds ``MIN_BLOCKS`` blocks or more, a page column's worth of words
(``LAYOUT_CELL_WORDS``) and most of its table's words (or sits in a table of one column) is no
datum: its table, and the tables around it, are re-tagged as blocks before the extractors read the
page, so that its paragraphs and headings read as paragraphs and headings. The text a cell holds
outside its blocks goes into paragraphs of its own, as a browser shows it (loose in a block,
trafilatura took a story's first paragraph, its words linked to notes, for furniture). A data table
inside such a cell stays a table, and so does a data table with one long cell (a course's schedule
whose reading list fills one row).

A table that only sets data tables side by side (LWN's "most active developers", by changesets and
by changed lines, under one title row) is a layout too: its cells ran into one line of a table, or
the nested tables' cells into one paragraph. Such a grid is re-tagged as well, its title a paragraph
above the tables it holds.
"""

from __future__ import annotations

from itertools import islice
from typing import Any

from .html_markdown import LAYOUT_CELL_WORDS
from .scripts import word_count
from .sectioned_lists import TABLE_ROWS
from .tree import BLOCK_TAGS, table_rows

__all__ = ["unlay_tables"]

MIN_BLOCKS = 2  # blocks in one cell (paragraphs, headings, lists …) that make it a page column
COLUMN_SHARE = 0.5  # of its table's words, that a page column holds
TITLE_WORDS = 8  # a cell of a table of tables that holds no table: its title, or nothing
_CELL_TAGS = ("td", "th")
_TABLE_PARTS = ("tbody", "thead", "tfoot", "tr", "td", "th", "caption", "colgroup", "col")


def unlay_tables(root: Any) -> int:
    """Re-tag as ``<div>`` each table that lays out a page column (and its rows and cells), the
    tables holding it, and each grid of data tables; how many tables."""
    layout: dict[Any, None] = {}  # in document order, each once
    for cell in root.iter(*_CELL_TAGS):
        if not len(cell) or next(islice(cell.iter(*BLOCK_TAGS), MIN_BLOCKS - 1, None), None) is None:
            continue  # fewer than MIN_BLOCKS blocks in it
        words = word_count(cell.text_content())
        if words < LAYOUT_CELL_WORDS:
            continue
        table = next(cell.iterancestors("table"), None)
        if table is None or not _page_column(table, words):
            continue
        layout.setdefault(table)
        for outer in table.iterancestors("table"):
            layout.setdefault(outer)
    for table in root.iter("table"):
        if table not in layout and _grid_of_tables(table):
            layout.setdefault(table)
    for table in layout:
        _unlay(table)
    return len(layout)


def _page_column(table: Any, words: int) -> bool:
    """Whether a cell of ``words`` words makes ``table`` a layout: the cell holds most of the table's
    words (``COLUMN_SHARE``), or the table has one column (a thread laid out a post a row). A data table
    with one long cell (a course's schedule, its reading list in one row) stays a table."""
    rows = table_rows(table)
    if all(len(row.xpath("./td|./th")) <= 1 for row in rows):
        return True
    return words >= COLUMN_SHARE * word_count(table.text_content())


def _grid_of_tables(table: Any) -> bool:
    """Whether ``table`` only sets data tables side by side (a table of figures per column): each of its
    cells holds one data table and no words besides, or a title of at most ``TITLE_WORDS`` words."""
    if table.find(".//table") is None:  # most tables: none nested, no grid
        return False
    held = 0
    for cell in table.xpath("./tr/td|./tr/th|./*/tr/td|./*/tr/th"):
        inner = cell.xpath(".//table")
        if not inner:
            if word_count(cell.text_content()) > TITLE_WORDS:
                return False
            continue
        if len(inner) > 1 or not _data_table(inner[0]):
            return False
        outside = word_count(cell.text_content()) - word_count(inner[0].text_content())
        if outside:
            return False
        held += 1
    return held > 0


def _data_table(table: Any) -> bool:
    """A table of ``TABLE_ROWS`` rows or more, one of them of two cells or more, and no table in it."""
    rows = table_rows(table)
    return (
        len(rows) >= TABLE_ROWS
        and any(len(row.xpath("./td|./th")) >= 2 for row in rows)
        and table.find(".//table") is None
    )


def _unlay(table: Any) -> None:
    """``table`` and its own rows and cells as ``<div>`` (not those of a table nested in it)."""
    parts = [table]
    while parts:
        el = parts.pop()
        if el.tag in _CELL_TAGS:
            _paragraphs(el)
        el.tag = "div"
        for attr in ("colspan", "rowspan"):
            el.attrib.pop(attr, None)
        parts.extend(child for child in el if child.tag in _TABLE_PARTS)


def _paragraphs(cell: Any) -> None:
    """The runs of text and inline elements between ``cell``'s blocks, each in a ``<p>``: the paragraphs
    a browser shows there. Loose text in a block reads to trafilatura as a page's furniture (a story's
    first paragraph, its words linked to notes, was lost) where in a cell it read as the cell's."""
    from lxml import etree

    out: list[Any] = []
    run: Any = None
    if cell.text and cell.text.strip():
        run = etree.Element("p")
        run.text = cell.text
        out.append(run)
    cell.text = None
    for child in list(cell):
        if child.tag in BLOCK_TAGS or child.tag in _TABLE_PARTS:
            tail, child.tail = child.tail, None
            cell.remove(child)
            out.append(child)
            run = None
            if tail and tail.strip():
                run = etree.Element("p")
                run.text = tail
                out.append(run)
            continue
        if run is None:
            run = etree.Element("p")
            out.append(run)
        run.append(child)  # moved, with the text after it
    cell.extend(out)
