"""Lists whose items hold data tables, read as blocks: trafilatura writes a list item on one line.

A buying guide lays out each product as a list item holding its heading, a table of specifications
and paragraphs of review; trafilatura wrote each item on one line, the table's cells run into it, so
not one of the page's tables read as a table. Such a list (and its items) is re-tagged as blocks
before the extractors read the page. On the tune part of WCXB three guides had such lists: their
tables read as tables 8 of 35 before, 35 of 35 after, at the same word F1 (+0.00002). Lists whose
items hold only headings stay lists: re-tagged, trafilatura took a grid's cards for boilerplate
(−0.0009 F1); ``flattened_headings`` repairs those in the Markdown instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .tree import table_rows

TABLE_ROWS = 2  # a table of this many rows or more in an item makes its list a list of sections


def unlist_sections(root: Any) -> int:
    """Re-tag as ``<div>`` each list any of whose items holds a data table, and its items; how many."""
    lists: dict[Any, None] = {}  # in document order, each once
    for table in data_tables(root):
        for ancestor in table.iterancestors("li"):
            parent = ancestor.getparent()
            if parent is not None and parent.tag in ("ul", "ol"):
                lists.setdefault(parent)
    for listing in lists:
        as_blocks(listing)
    return len(lists)


def data_tables(root: Any) -> Iterator[Any]:
    """The tables below ``root`` of ``TABLE_ROWS`` rows or more, in document order."""
    return (table for table in root.iter("table") if len(table_rows(table)) >= TABLE_ROWS)


def as_blocks(listing: Any) -> None:
    """``listing`` (a ``<ul>`` or ``<ol>``) and its items re-tagged ``<div>``: blocks, no list."""
    listing.tag = "div"
    for item in listing:
        if item.tag == "li":
            item.tag = "div"
