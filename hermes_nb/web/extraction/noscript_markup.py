"""``<noscript>`` blocks saved as text: their markup read as markup.

A browser with scripts on parses what is inside ``<noscript>`` as raw text, and a page saved from its
DOM (a serialiser that escapes that text, as jsdom does, and archives and test fixtures made with it)
writes the block's markup escaped: ``<noscript>&lt;img src="…/pixel.gif"&gt;</noscript>``. libxml2
then reads ``<img src="…">`` as the block's words. The extractors skip ``<noscript>``, but
trafilatura's fallback for a page it cannot read (one cut short) printed a tracking pixel's tag as the
first line of the text, and the ``<noscript>`` reading measured such a block by the length of its
markup. A block whose only content is text that opens with a tag is parsed again as the HTML it holds.
"""

from __future__ import annotations

from typing import Any


def parse_noscript_markup(root: Any) -> int:
    """Replace the text of each ``<noscript>`` that holds only escaped markup by that markup's elements;
    how many were parsed."""
    import lxml.html  # already loaded: the page was parsed with it

    parsed = 0
    for block in root.iter("noscript"):
        text = (block.text or "").strip()
        if len(block) or not text.startswith("<"):
            continue
        try:
            holder = lxml.html.fragment_fromstring(text, create_parent="div")
        except (lxml.etree.ParserError, ValueError):  # nothing it can read as markup: left as it is
            continue
        block.text = holder.text
        block.extend(list(holder))
        parsed += 1
    return parsed
