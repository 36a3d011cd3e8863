"""Cards written as one link: a heading and its blurb inside a single ``<a>``.

Landing and service pages often make each card clickable by wrapping the whole of it — title,
description, "Find out more" — in one link. Every word of the card is then link text, and the
extractors, which take text that is mostly links for navigation, drop the cards: a consultancy's
page of twenty services read as its two-sentence introduction.

A link that holds more than its title (at least ``BLURB_WORDS`` words beside its heading, or beside
its first line of text when it has no heading) is opened: it becomes a plain block and its heading
keeps the link, so the blurb reads as text and the title still points where the card did. A link
that holds only a title (a "more news" strip of headlines) stays a link.

Applied to pages the classifier leaves untyped (typed pages have their own readings): on the tune part
of WCXB, +0.0010 F1 overall, both halves gaining (+0.0006, +0.0014); on typed articles, grids and
listings it added their related-content strips and cost more than it gained.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from .scripts import word_count
from .tree import visible_text

BLURB_WORDS = 8  # words beside a card link's title that make it a card rather than a headline
HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6")
_CARD_LINKS = "//a[@href][.//h1 or .//h2 or .//h3 or .//h4 or .//h5 or .//h6 or .//p]"


def open_block_links(root: Any) -> int:
    """Turn the page's card links into blocks whose heading carries the link; how many were opened."""
    opened = 0
    for link, headings in card_links(root):
        href = link.get("href")
        link.tag = "div"
        link.attrib.clear()
        if headings:
            _link_heading(headings[0], href)
        opened += 1
    return opened


def card_links(root: Any) -> Iterator[tuple[Any, list[Any]]]:
    """The page's card links, each with the headings inside it (none when its title is its first line)."""
    for link in root.xpath(_CARD_LINKS):
        headings = list(link.iter(*HEADINGS))
        if headings:
            title = sum(word_count(visible_text(h)) for h in headings)
        else:
            first = next((t for t in link.xpath(".//text()") if t.strip()), "")
            title = word_count(first)
        if word_count(visible_text(link)) - title >= BLURB_WORDS:
            yield link, headings


def _link_heading(heading: Any, href: str | None) -> None:
    """Wrap ``heading``'s content in a link to ``href``."""
    anchor = heading.makeelement("a", {"href": href or ""})
    anchor.text, heading.text = heading.text, None
    for child in list(heading):
        anchor.append(child)  # moves the child, its tail with it
    heading.append(anchor)
