"""Unclosed ``<div>``s and ``<table>``s closed where a browser closes them, before lxml parses the page.

A page often forgets to close a ``<div>`` inside a menu button, a navigation list or a header. A
browser (the HTML standard's tree builder) closes it with the first end tag of an element that holds
it — ``</li>``, ``</nav>``, ``</header>``, ``</button>`` — and the page reads as its author meant.
libxml2, which lxml uses, ignores that end tag while the ``<div>`` is open: the rest of the page,
article included, ends up inside the button or the menu, and every extractor then reads the whole
article as one run-on line of a menu, or not at all. ``close_unclosed`` inserts the missing end tags
where the standard's tree builder would close those elements. It only looks at pages with more
``<div`` (or ``<table``) start tags than end tags, and returns every other page as it is (on WCXB's
1,358 pages: 122 looked at, 45 changed, 0.6 ms a page for the counts and 3 ms for a page looked at).
Only the tags of the elements above are read, each in one pass; markup quoted inside an attribute (a
tooltip's ``title='<div>…</div>'``) counts as tags, which is harmless while it is balanced, as it is
in practice, and a tracked tag with a ``<`` inside its attributes is not seen.
"""

from __future__ import annotations

import re

#: Elements whose end tag closes what was opened inside them (those libxml2 leaves open: ``div``,
#: ``table``), and the list and table elements whose start tags close an open sibling.
_TRACKED = frozenset(
    {
        "div", "table", "tbody", "thead", "tfoot", "tr", "td", "th", "li", "ul", "ol", "menu", "dl", "dd",
        "dt", "nav", "header", "footer", "button", "section", "article", "aside", "main", "form", "figure",
        "blockquote", "details", "summary", "fieldset", "center",
    }
)
_LEFT_OPEN = frozenset({"div", "table"})  # what libxml2 does not close for an enclosing end tag
#: A start tag of the key closes an open element of the value's names, up to one of the boundary names.
_SIBLING_CLOSES = {
    "li": ({"li"}, {"ul", "ol", "menu"}),
    "dd": ({"dd", "dt"}, {"dl"}),
    "dt": ({"dd", "dt"}, {"dl"}),
    "tr": ({"tr", "td", "th"}, {"table", "tbody", "thead", "tfoot"}),
    "td": ({"td", "th"}, {"tr", "table"}),
    "th": ({"td", "th"}, {"tr", "table"}),
    "tbody": ({"tbody", "thead", "tfoot", "tr", "td", "th"}, {"table"}),
    "thead": ({"tbody", "thead", "tfoot", "tr", "td", "th"}, {"table"}),
    "tfoot": ({"tbody", "thead", "tfoot", "tr", "td", "th"}, {"table"}),
}
_RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})
#: A comment's start, and the tags of tracked and raw-text elements (no other tag changes what is
#: open). A tag runs to the next ``>`` and never over a ``<``, so a page of broken tags costs one scan.
_NAMES = "|".join(sorted(_TRACKED | _RAW_TEXT, key=len, reverse=True))
_TOKEN = re.compile(rf"<!--|<(/?)({_NAMES})(?![\w:-])([^<>]*)>", re.I)
_RAW_END = {name: re.compile(rf"</{name}\s*>", re.I) for name in _RAW_TEXT}


def needs_closing(html: str) -> bool:
    """True when the page has more ``<div`` or ``<table`` start tags than end tags (four counts; tags
    written in capitals are not counted)."""
    return html.count("<div") > html.count("</div") or html.count("<table") > html.count("</table")


def close_unclosed(html: str) -> str:
    """``html`` with an end tag inserted for each ``<div>`` or ``<table>`` left open inside an element
    whose end tag comes (see above); ``html`` itself when nothing is left open."""
    if not needs_closing(html):
        return html
    stack: list[str] = []
    parts: list[str] = []
    done = 0  # html[:done] is in parts
    pos = 0
    while True:
        m = _TOKEN.search(html, pos)
        if m is None:
            break
        pos = m.end()
        closing, name, rest = m.group(1), (m.group(2) or "").lower(), m.group(3) or ""
        if not name:  # a comment: to its end, or to the end of the page when it has none
            comment_end = html.find("-->", pos)
            if comment_end < 0:
                break
            pos = comment_end + 3
            continue
        if not closing:
            if name in _RAW_TEXT and not rest.rstrip().endswith("/"):
                raw_end = _RAW_END[name].search(html, pos)
                pos = raw_end.end() if raw_end else len(html)
            elif name in _TRACKED and not rest.rstrip().endswith("/"):
                _close_siblings(stack, name)
                stack.append(name)
            continue
        if name not in _TRACKED or name not in stack:
            continue  # libxml2 ignores it too
        at = len(stack) - 1 - stack[::-1].index(name)
        inside = stack[at + 1 :]
        if any(el in _LEFT_OPEN for el in inside):
            parts.append(html[done : m.start()])
            parts.append("".join(f"</{el}>" for el in reversed(inside)))
            done = m.start()
        del stack[at:]
    if not parts:
        return html
    parts.append(html[done:])
    return "".join(parts)


def _close_siblings(stack: list[str], name: str) -> None:
    """Pop what a start tag of ``name`` implicitly closes (an open ``li`` for a new ``li``...)."""
    closes = _SIBLING_CLOSES.get(name)
    if closes is None:
        return
    closed, boundary = closes
    for i in range(len(stack) - 1, -1, -1):
        if stack[i] in boundary:
            return
        if stack[i] in closed:
            del stack[i:]
            return
