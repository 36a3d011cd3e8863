"""Tooltips: the bubble a word shows on hover is not the page's text.

A glossary term, an info icon or a footnote mark opens a bubble when pointed at: "search engine"
shows "Search Engine. A search engine is a website through which users can search internet
content. Learn more". The bubble is in the page, set inline where it opens, and hidden by the style
sheet, which no extractor reads: its text ran into the sentence ("the fastest-growing search
engineSearch Engine A search engine is…"). A bubble is known by what the page tells assistive
technology: another element names it as its description or label (``aria-describedby`` or
``aria-labelledby`` holding its ``id``), and it is a tooltip by role or by class ("tooltip",
"popover", "tippy"). An element that only calls itself a tooltip (Medium marks its author cards so)
stays: nothing points to it.
"""

from __future__ import annotations

from typing import Any

from .caseless import Caseless

_REFERENCES = ("aria-describedby", "aria-labelledby")
_TOOLTIP_CLASS = Caseless(r"tool-?tip|popover|tippy")


def drop_tooltips(root: Any) -> int:
    """Remove each element another names as its description or label that is a tooltip; how many."""
    named: set[str] = set()
    for attribute in _REFERENCES:
        for value in root.xpath(f"//@{attribute}"):
            named.update(str(value).split())
    if not named:
        return 0
    bubbles = [el for el in root.xpath("//*[@id]") if el.get("id") in named and _is_tooltip(el)]
    for bubble in bubbles:
        bubble.drop_tree()  # its tail, the sentence going on after it, stays
    return len(bubbles)


def _is_tooltip(el: Any) -> bool:
    return el.get("role") == "tooltip" or bool(_TOOLTIP_CLASS.search(el.get("class") or ""))
