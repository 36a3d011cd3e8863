"""Note references, read apart from the word they follow.

A footnote or citation is marked by a raised number linked to the note: ``daily<sup><a
href="#fn-2">2</a></sup>`` (GitHub's and most Markdown renderers' footnotes, WordPress footnote
plugins), ``<a href="#fn1" role="doc-noteref"><sup>1</sup></a>`` (pandoc). The readings drop the
raising, and the number ran into the word before it: "queries daily2", a word no reader wrote and
no search finds, while the word itself went missing. Wikipedia writes its marks in brackets
(``[1]``); a mark without them gets them here, so the text reads "queries daily[2]". Raised text that
links nowhere in the page (``km<sup>2</sup>``, ``1<sup>st</sup>``) is not a note and is left as it is.
"""

from __future__ import annotations

import re
from typing import Any

#: What a note's mark says: a number, a letter or two, or a typographer's mark (*, †, ‡, §, ¶).
_MARK = re.compile(r"^(?:\d{1,4}|[A-Za-z]{1,2}|[*†‡§¶]{1,3})$")


def bracket_note_marks(root: Any) -> int:
    """Put in brackets the text of each raised link to a note in the page; how many marks."""
    marked = 0
    for link in root.iter("a"):
        if not (link.get("href") or "").startswith("#"):
            continue
        holder = _mark_holder(link)
        if holder is None or len(holder) or not _MARK.match((holder.text or "").strip()):
            continue
        holder.text = f"[{holder.text.strip()}]"
        marked += 1
    return marked


def _mark_holder(link: Any) -> Any | None:
    """The element whose text is the mark: the ``<sup>`` a link wraps alone, or a link without children
    that is raised or says it is a note reference; else None."""
    inner = [el for el in link if isinstance(el.tag, str)]
    if not inner:
        parent = link.getparent()
        raised = parent is not None and parent.tag == "sup"
        return link if raised or link.get("role") == "doc-noteref" else None
    alone = not (link.text or "").strip() and not (inner[0].tail or "").strip()
    return inner[0] if len(inner) == 1 and inner[0].tag == "sup" and alone else None
