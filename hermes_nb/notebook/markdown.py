"""Extracted pages' Markdown as the HTML of a notebook card: CommonMark read in full, raw HTML escaped.

The page is parsed as ``format="html"`` parses it (``hermes_nb.web.extraction.formats``: escapes,
nested lists, an ordered list's first number, ``<sup>``/``<sub>``, formulas), then styled for a card
that GitHub's and nbviewer's sanitisers leave as it is: inline styles, no classes, no scripts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from hermes_nb.web.extraction.formats import markdown_to_html as page_html

if TYPE_CHECKING:
    from markdown_it.token import Token

__all__ = ["markdown_to_html"]

_PRE = "white-space:pre-wrap;background:rgba(127,127,127,.12);padding:6px;border-radius:4px"
_QUOTE = "margin:4px 0;padding-left:8px;border-left:3px solid rgba(127,127,127,.5)"
_TABLE = "border-collapse:collapse;margin:4px 0;color:inherit"
_CELL = "padding:2px 8px;border:1px solid rgba(127,127,127,.35);vertical-align:top"
_HEADING = "margin:8px 0 4px 0"
_STYLES = {"blockquote_open": _QUOTE, "table_open": _TABLE}
_LINKED_SCHEMES = ("http", "https")  # a relative or other target would not resolve outside the page


def markdown_to_html(text: str) -> str:
    """HTML of extracted Markdown for a card: headings two levels down (below the card's title), links
    that open in a new tab (http and https only; any other keeps its words), an image as a link to it
    (a card loads nothing from the page's servers), code, quotes and tables styled inline."""
    # A code block's tokens style its <code>; the style belongs on the <pre> around it.
    return page_html(text or "", adjust=_card).replace("<pre><code", f'<pre style="{_PRE}"><code')


def _card(tokens: list[Token]) -> None:
    for token in tokens:
        if token.type in _STYLES:
            token.attrSet("style", _STYLES[token.type])
        elif token.type in ("th_open", "td_open"):  # a column's own alignment, or left
            token.attrSet("style", f"{_CELL};{token.attrGet('style') or 'text-align:left'}")
        elif token.type in ("heading_open", "heading_close"):
            token.tag = f"h{min(int(token.tag[1]) + 2, 6)}"
            if token.type == "heading_open":
                token.attrSet("style", _HEADING)
        elif token.type == "inline" and token.children:
            token.children = _inline(token.children)


def _inline(children: list[Token]) -> list[Token]:
    """Links opened in a new tab or unlinked, images turned into links to them."""
    out: list[Token] = []
    unlinked = 0  # link_open tokens dropped and not yet closed
    for token in children:
        if token.type == "link_open":
            if _linkable(str(token.attrGet("href") or "")):
                token.attrSet("target", "_blank")
                token.attrSet("rel", "noopener noreferrer")
            else:
                unlinked += 1
                token.meta["unlinked"] = True
                continue
        elif token.type == "link_close" and unlinked:
            unlinked -= 1
            continue
        elif token.type == "image":
            out.extend(_image_link(token))
            continue
        out.append(token)
    return out


def _image_link(image: Token) -> list[Token]:
    """An image as a link to it labelled with its description (``🖼`` alone when it has none)."""
    from markdown_it.token import Token

    src = str(image.attrGet("src") or "")
    label = Token("text", "", 0, content=f"🖼 {image.content}".rstrip())
    if not _linkable(src):
        return [label]
    link = Token("link_open", "a", 1, attrs={"href": src, "target": "_blank", "rel": "noopener noreferrer"})
    return [link, label, Token("link_close", "a", -1)]


def _linkable(href: str) -> bool:
    return urlsplit(href).scheme.lower() in _LINKED_SCHEMES
