"""Headings trafilatura ran into the text of a list item, put back on a line of their own.

trafilatura writes a list item on one line, whatever blocks it holds: a listing's card
``<li><h3>The Best Monitor Arms</h3><span>by …</span><p>We tested …</p></li>`` comes out as
``- ### The Best Monitor Arms by … We tested …``, which Markdown renders as one long heading (and
the text format printed with its ``###``). Re-tagging such lists as blocks before trafilatura reads
them costs the tune part of WCXB 0.0009 F1 (it then takes the cards for boilerplate), so the repair
is on the Markdown: the headings inside list items are read from the page, and where a line holds
one followed by more text, the heading keeps its line and the rest goes on the next, indented into
the same list item. On the tune part of WCXB that splits 618 lines on 38 pages, at the same word F1.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .formats import LIST_MARKER

MAX_HEADINGS = 2000  # headings looked at on one page
#: A line: its indent and list marker, any text before the first heading marks, the marks, the rest.
_LINE = re.compile(
    rf"^(?P<lead>\s*(?:{LIST_MARKER}\s+)?)(?P<before>(?:.*?\s)??)(?P<marks>#{{1,6}}) (?P<rest>\S.*)$"
)
_SPACE = re.compile(r"\s+")
_HEADINGS = "//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6]"


class Headings(NamedTuple):
    """The whitespace-squashed texts of a page's headings: those inside list items, and all."""

    in_items: set[str]
    every: set[str]


def page_headings(root: Any) -> Headings:
    """The texts of the page's headings (``MAX_HEADINGS`` at most), and which sit in list items."""
    in_items: set[str] = set()
    every: set[str] = set()
    for heading in root.xpath(_HEADINGS)[:MAX_HEADINGS]:
        text = _SPACE.sub(" ", heading.text_content()).strip()
        if text:
            every.add(text)
            if next(heading.iterancestors("li"), None) is not None:
                in_items.add(text)
    return Headings(in_items, every)


def unflatten_headings(markdown: str, headings: Headings) -> tuple[str, int]:
    """``markdown`` with each heading of a list item run into a line's text put on a line of its own
    (a line that is one whole heading of the page stays); how many lines were split."""
    if not headings.in_items or "#" not in markdown:
        return markdown, 0
    by_first_word: dict[str, list[str]] = {}
    for text in headings.in_items:
        by_first_word.setdefault(text.split(" ", 1)[0], []).append(text)
    for texts in by_first_word.values():
        texts.sort(key=len, reverse=True)  # the longest heading that fits wins
    out: list[str] = []
    split = 0
    for line in markdown.split("\n"):
        match = _LINE.match(line)
        whole = match is not None and not match["before"].strip() and match["rest"].strip() in headings.every
        pieces = [line] if whole else _split(line, by_first_word)
        split += len(pieces) - 1
        out.extend(pieces)
    return "\n".join(out), split


def _split(line: str, by_first_word: dict[str, list[str]]) -> list[str]:
    match = _LINE.match(line)
    if match is None:
        return [line]
    rest = match["rest"]
    heading = next(
        (
            text
            for text in by_first_word.get(rest.split(" ", 1)[0], ())
            if rest.startswith(text) and rest[len(text) : len(text) + 1] in ("", " ")
        ),
        None,
    )
    after = rest[len(heading) :].strip() if heading else ""
    before = match["before"].strip()
    if heading is None or not (after or before):
        return [line]  # not a known heading, or one alone on its line already
    lead = match["lead"]
    indent = " " * len(lead)
    pieces = [lead + before] if before else []
    pieces.append((indent if before else lead) + f"{match['marks']} {heading}")
    if after:
        pieces.extend(_split(indent + after, by_first_word))
    return pieces
