"""Blockquotes holding data tables, read as blocks: trafilatura writes a quotation's table as one line.

Pages indent a table by setting it in a ``<blockquote>`` (LWN sets every release history and
table of figures so); trafilatura reads a quotation's children as text and ran the table's cells into
one line ("Release Date 4.2.3 April 2014 4.1.6 …"), so not one such table read as a table. A
blockquote holding a data table (``TABLE_ROWS`` rows or more) is re-tagged ``<div>`` before the
extractors read the page: its table reads as a table, its paragraphs as paragraphs, and the reading
no longer sets them as a quotation (a quotation of a table is rare; an indented table is not).
"""

from __future__ import annotations

from typing import Any

from .sectioned_lists import data_tables


def unquote_tables(root: Any) -> int:
    """Re-tag as ``<div>`` each blockquote that holds a data table; how many."""
    quotes: dict[Any, None] = {}  # each once
    for table in data_tables(root):
        for quote in table.iterancestors("blockquote"):
            quotes.setdefault(quote)
    for quote in quotes:
        quote.tag = "div"
    return len(quotes)
