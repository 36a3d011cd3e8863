"""Pages nested deeper than a reader's walk can follow: their deep wrappers are unwrapped.

Markup that never closes its tags (a ``<div>`` or ``<font>`` opened per post of an old forum, a
template that leaves a wrapper open in a loop) nests each block inside the one before it. libxml2
stops reading at 256 levels unless told otherwise, and everything past that point — the rest of the
page, not only the deep part — was lost without a word; past a few hundred levels the extractors'
own recursive walks fail. A browser's parser has a limit too, and there it flattens: an element
deeper than it goes in beside its parent, and the page reads on.

The tree is parsed with libxml2's limit raised (to 2,048 levels), and past ``MAX_DEPTH`` levels the
wrappers go: an element keeps its text and children in place, a block is kept apart from its
neighbours by line breaks, and paragraphs, headings and code blocks stay as they are. A page nested
deeper than libxml2 reads even so is cut off there, and says so.
"""

from __future__ import annotations

from typing import Any

MAX_DEPTH = 200  # levels below <html> the walkers see; the extractors recurse a few frames per level
PARSER_DEPTH = 2048  # libxml2's limit with XML_PARSE_HUGE: it stops reading the page there
#: Elements that keep their place past ``MAX_DEPTH``: blocks of text that do not nest in themselves.
_KEPT = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "pre", "br", "hr", "img"})
#: Inline elements: unwrapped without a break (a word split across them stays one word).
_INLINE = frozenset(
    {"a", "abbr", "b", "bdi", "bdo", "big", "cite", "code", "data", "del", "dfn", "em", "font", "i",
     "ins", "kbd", "label", "mark", "q", "s", "samp", "small", "span", "strike", "strong", "sub", "sup",
     "time", "tt", "u", "var"}
)


def _at_depth(root: Any, depth: int) -> list[Any]:
    """The elements ``depth`` levels below the document element (an XPath step per level, in C)."""
    return list(root.getroottree().xpath("/*" + "/*" * depth))


def flatten_deep_nesting(root: Any) -> tuple[int, bool]:
    """Unwrap the elements more than ``MAX_DEPTH`` levels deep (but ``_KEPT`` ones): how many went, and
    whether the parser stopped at its own limit before the end of the page."""
    tops = _at_depth(root, MAX_DEPTH)
    if not tops:
        return 0, False  # every page of WCXB and Readability's tests: they nest under 200 levels
    cut_off = bool(_at_depth(root, PARSER_DEPTH - 1))
    unwrapped = 0
    for top in tops:
        for el in list(top.iterdescendants()):
            if not isinstance(el.tag, str) or el.tag in _KEPT:
                continue
            if el.tag not in _INLINE:  # a block: its text stays apart from its neighbours'
                el.text = "\n" + (el.text or "")
                el.tail = "\n" + (el.tail or "")
            el.drop_tag()
            unwrapped += 1
    return unwrapped, cut_off
