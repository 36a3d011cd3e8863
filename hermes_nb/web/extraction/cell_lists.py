"""Lists inside table cells, read as the cell's text: trafilatura leaves such a cell empty.

A course's schedule lists each week's readings in its last column, a comparison table lists each
plan's features, a specification table lists a part's uses: a ``<ul>`` or ``<ol>`` in a ``<td>``.
trafilatura writes the table and leaves every such cell empty, so a schedule read as dates and
topics without one of its readings. A Markdown table cell holds no list either. The lists in the
cells of the page's tables are re-tagged as blocks before the extractors read the page, so that
their items read as the cell's text, one after another (``format="text"`` reads them so too).
Tables that lay out a page are read as blocks already (``layout_tables.py``) and their lists stay.
"""

from __future__ import annotations

from typing import Any

from .sectioned_lists import as_blocks

__all__ = ["unlist_cells"]


def unlist_cells(root: Any) -> int:
    """Re-tag as ``<div>`` each list (and its items) inside a table cell; how many lists."""
    lists = root.xpath("//td//ul|//td//ol|//th//ul|//th//ol")
    for listing in lists:
        as_blocks(listing)
    return len(lists)
