"""The page's tags mended where libxml2 and a browser disagree, before lxml parses the page.

Two repairs, both what the HTML standard's tree builder (every browser's) does:

- **A ``<div>`` or ``<table>`` left open inside a menu is closed by the end tag that holds it.** A
  page often forgets to close a ``<div>`` inside a menu button, a navigation list or a header; a
  browser closes it with the first end tag of an element around it (``</li>``, ``</nav>``,
  ``</header>``, ``</button>``). libxml2, which lxml uses, ignores that end tag while the ``<div>`` is
  open: the rest of the page, article included, ended up inside the button or the menu, and the
  extractors read the article as one run-on line of a menu, or not at all.
- **A page goes on after an early ``</body>`` or ``</html>``.** A template that closes the page after
  its header and prints the article after it reads whole in a browser; libxml2 dropped everything after
  ``</html>``. Those end tags are taken out (the parser closes both at the end).

Only pages with more ``<div`` (or ``<table``) start tags than end tags, or with a visible tag after
their first ``</body>`` or ``</html>``, are scanned; every other page is returned as it is. On WCXB's
1,358 pages: 163 scanned, 161 changed, 1.2 ms a page on average. Only the tags of the elements named
below are read, each in one pass (a page of broken tags costs one scan); markup quoted inside an
attribute (a tooltip's ``title='<div>…</div>'``) counts as tags, which is harmless while it is
balanced, as it is in practice, and a named tag with a ``<`` inside its attributes is not seen.
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
#: Elements whose content is text to their end tag, never tags (``<script>`` holding ``"<div>"``).
RAW_TEXT = frozenset({"script", "style", "textarea", "title", "xmp", "iframe", "noembed", "noframes"})
_DOCUMENT = frozenset({"body", "html"})  # end tags a page may send before its content ends
#: A tag after the first </body> or </html> that a reader could see (not a script, style or link).
_GOES_ON = re.compile(r"<(?!/|!|(?:script|style|link|meta|noscript|iframe|img)(?![\w-]))[A-Za-z]", re.I)
#: A comment's start, and the tags of tracked and raw-text elements (no other tag changes what is
#: open). A tag runs to the next ``>`` and never over a ``<``, so a page of broken tags costs one scan.
_NAMES = "|".join(sorted(_TRACKED | RAW_TEXT | _DOCUMENT, key=len, reverse=True))
_TOKEN = re.compile(rf"<!--|<(/?)({_NAMES})(?![\w:-])([^<>]*)>", re.I)
_RAW_END = {name: re.compile(rf"</{name}\s*>", re.I) for name in RAW_TEXT}


def needs_closing(html: str) -> bool:
    """True when the page has more ``<div`` or ``<table`` start tags than end tags (four counts; tags
    written in capitals are not counted), or goes on after its first ``</body>`` or ``</html>``."""
    if html.count("<div") > html.count("</div") or html.count("<table") > html.count("</table"):
        return True
    ends = [at for at in (html.find("</body"), html.find("</html")) if at >= 0]
    return bool(ends) and _GOES_ON.search(html, min(ends)) is not None


def close_unclosed(html: str) -> str:
    """``html`` with an end tag inserted for each ``<div>`` or ``<table>`` left open inside an element
    whose end tag comes, and without its ``</body>`` and ``</html>`` end tags (see above); ``html``
    itself when it needs neither."""
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
        if name in _DOCUMENT:
            if closing:  # dropped: libxml2 would drop what follows it; the parser closes both at the end
                parts.append(html[done : m.start()])
                done = m.end()
            continue
        if not closing:
            if name in RAW_TEXT and not rest.rstrip().endswith("/"):
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
