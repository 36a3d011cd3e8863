"""A table's ``<caption>`` as the paragraph above the table, where a browser shows it.

trafilatura writes a caption as the table's first row, so the caption became the table's header and
the real header row a body row, under a delimiter row of its own (a row of dashes in the rendered
table); our converter dropped the caption's words. Before the extractors read the page, each
caption with text becomes a paragraph right before its table.
"""

from __future__ import annotations

from typing import Any


def captions_before_tables(root: Any) -> int:
    """Move each table's caption out to a paragraph before the table; how many moved."""
    moved = 0
    for caption in list(root.iter("caption")):
        table = caption.getparent()
        if table is None or table.tag != "table" or table.getparent() is None:
            continue
        if not caption.text_content().strip():
            table.remove(caption)  # its tail, whitespace between table parts, goes with it
            continue
        paragraph = caption.makeelement("p", {})
        paragraph.text = caption.text
        paragraph.extend(list(caption))
        table.remove(caption)
        table.addprevious(paragraph)
        moved += 1
    return moved
