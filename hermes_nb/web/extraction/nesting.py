"""Pages nested deeper than a reader's walk can follow: their deep wrappers are unwrapped.

Markup that never closes its tags (a ``<div>`` or ``<font>`` opened per post of an old forum, a
template that leaves a wrapper open in a loop) nests each block inside the one before it. libxml2
stops reading at 256 levels unless told otherwise, and everything past that point — the rest of the
page, not only the deep part — was lost without a word; past a few hundred levels the extractors'
own recursive walks fail. A browser's parser has a limit too, and there it flattens: an element
deeper than it goes in beside its parent, and the page reads on.

The tree is parsed with libxml2's limit raised (to 2,048 levels), and past ``MAX_DEPTH`` levels the
wrappers go: an element keeps its text and children in place, a block is kept apart from its
neighbours by line breaks, and paragraphs, headings and code blocks stay as they are.

A page nested deeper than libxml2 reads even so (it stops at 2,048 levels and drops the rest) is
parsed again from ``shallow_markup``: the same unwrapping done on the markup's tags, before the
parser sees them, so the tree never gets that deep. Only such pages pay for it (none of the
benchmark corpora's 1,488). What the tags alone cannot tell (a tag the parser would have ignored or
closed early) may leave a page cut off even so; it then says so.
"""

from __future__ import annotations

import re
from typing import Any

from .unclosed import RAW_TEXT

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


#: Elements with no end tag: they never hold what follows them.
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source", "track",
     "wbr"}
)
#: Elements whose content is text, never tags: to their end tag (``unclosed.RAW_TEXT``), or to the
#: page's end (``<plaintext>``).
_RAW_TEXT = RAW_TEXT | {"plaintext"}
_RAW_END = {name: re.compile(rf"</{name}(?![\w:-])", re.I) for name in _RAW_TEXT}
#: A comment, or a start or end tag (a tag runs to the next ``>`` and never over a ``<``).
_TAG = re.compile(r"<!--|<(/?)([A-Za-z][\w:-]*)([^<>]*)>")
#: Start tags that close an open ``<p>``, as the parser does (a paragraph holds no block).
_CLOSES_P = frozenset({"p", "div", "ul", "ol", "dl", "table", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
                       "blockquote", "section", "article", "aside", "header", "footer", "nav", "form",
                       "figure", "hr", "li", "main", "details", "fieldset", "address", "menu"})


def parser_cut_off(root: Any) -> bool:
    """True when the parser stopped at its depth limit: the rest of the page is not in ``root``."""
    return bool(_at_depth(root, MAX_DEPTH)) and bool(_at_depth(root, PARSER_DEPTH - 1))


def shallow_markup(html: str) -> str:
    """``html`` with the tags of the elements more than ``MAX_DEPTH`` levels deep taken out (but
    ``_KEPT`` ones): an inline element's tags go, a block's become a newline, so its words stay
    apart from its neighbours' (as ``flatten_deep_nesting`` does in the tree). Depth is counted from
    the tags as written, closing a ``<p>`` where the parser would; an end tag closes the elements
    left open inside it. One pass: each tag is pushed and popped once."""
    stack: list[tuple[str, bool]] = []  # (name, unwrapped) of each open element
    open_count: dict[str, int] = {}  # how many of each name are open: a stray end tag costs nothing
    parts: list[str] = []
    done = pos = 0  # html[:done] is in parts
    while (m := _TAG.search(html, pos)) is not None:
        pos = m.end()
        if m.group(2) is None:  # a comment: to its end
            end = html.find("-->", pos)
            pos = len(html) if end < 0 else end + 3
            continue
        closing, name, rest = m.group(1), m.group(2).lower(), m.group(3)
        unwrap = False
        if not closing:
            if name in _VOID or rest.rstrip().endswith("/"):
                continue
            if name in _RAW_TEXT:
                raw_end = _RAW_END[name].search(html, pos)
                pos = len(html) if raw_end is None else raw_end.start()
            if stack and stack[-1][0] == "p" and name in _CLOSES_P:
                open_count["p"] -= 1
                stack.pop()
            unwrap = len(stack) > MAX_DEPTH and name not in _KEPT  # a page's <html> is level 0
            stack.append((name, unwrap))
            open_count[name] = open_count.get(name, 0) + 1
        else:
            if not open_count.get(name):
                continue  # an end tag nothing opened: the parser ignores it
            while True:  # it closes what was left open inside its element
                top, unwrap = stack.pop()
                open_count[top] -= 1
                if top == name:
                    break
        if unwrap:
            parts.append(html[done : m.start()])
            parts.append("" if name in _INLINE else "\n")
            done = m.end()
    if not parts:
        return html
    parts.append(html[done:])
    return "".join(parts)


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
