"""A page's quotations (``<blockquote>``) set as quotations in the reading: "> …".

trafilatura reads a blockquote's paragraphs as paragraphs of the text around them, so a reader of
the Markdown cannot tell a testimonial, a quoted post, an embedded tweet or a cited passage from the
author's own words (our own converter, which the sections and posts readings use, marks them).

Each outermost blockquote of the page is found in the reading by its lines (its paragraphs, list
items and line breaks): a paragraph or list item of the reading whose words are one of the
quotation's lines, in page order. A quotation is set when one of its lines of ``QUOTE_WORDS`` words
or more is found; its shorter lines (a "— Ada, London" under a testimonial) only right after its
found ones. A line the page also shows outside the quotation (a pull quote repeats the article's
sentence) does not place it. Headings, table rows, code and a list item's indented lines stay as
they are. The text format, which reads no quotation marks, is the same either way.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from hermes_nb.code_fences import CodeFences
from hermes_nb.markdown_heading import HEADING

from .formats import markdown_to_text
from .tree import CODE_TAGS, UNSEEN, squash, text_with_breaks, within

__all__ = ["set_quotations"]

QUOTE_WORDS = 4  # words a quotation's line needs to place the quotation on its own
NEAR = 3  # lines of the reading after a found line in which a quotation's short line may stand
_WORD = re.compile(r"\w+")
#: Lines no quotation mark goes in front of: quotations already, tables, headings, fences, HTML, and
#: indented lines (a list item's own paragraphs and sub-lists: a mark there would end the list).
_NOT_PROSE = re.compile(r"^(?:\s|>|\||#|```|~~~|<)")
#: A blockquote inside these is no quotation of the reading (or, inside another, part of one).
_OUTSIDE_QUOTES = frozenset((*UNSEEN, *CODE_TAGS, "blockquote"))


def set_quotations(markdown: str, root: Any) -> tuple[str, int]:
    """``markdown`` with the lines of the page's blockquotes set as quotations; how many were set."""
    if root.find(".//blockquote") is None:  # most pages: nothing to look for
        return markdown, 0
    quotes = [
        _quote_lines(el) for el in root.iter("blockquote") if not within(el.getparent(), _OUTSIDE_QUOTES)
    ]
    first_words = {words[0] for quote in quotes for _, words in quote}
    lines = markdown.split("\n")
    where = _prose_lines(lines, first_words)
    if not where:
        return markdown, 0
    page = squash(root.text_content())
    quoted: set[int] = set()
    cursor = 0
    count = 0
    for quote in quotes:
        found = _place(quote, where, page, cursor, quoted)
        if not found:
            continue
        quoted.update(found)
        cursor = found[-1] + 1
        count += 1
        _join(lines, found)
    for i in quoted:
        lines[i] = f"> {lines[i]}"
    return "\n".join(lines), count


def _quote_lines(quote: Any) -> list[tuple[str, tuple[str, ...]]]:
    """A blockquote's lines (paragraphs, list items, line breaks), each with its words."""
    text, _ = text_with_breaks(quote)
    lines = (squash(part) for part in text.split("\n"))
    return [(line, words) for line in lines if (words := tuple(_WORD.findall(line)))]


def _prose_lines(lines: list[str], first_words: set[str]) -> dict[tuple[str, ...], list[int]]:
    """The reading's paragraph lines and list items (outside code) that may show a quotation's line
    (they hold one of its ``first_words``), by their words, in order."""
    where: dict[tuple[str, ...], list[int]] = defaultdict(list)
    fences = CodeFences()
    for i, line in enumerate(lines):
        if fences.read(line) or _NOT_PROSE.match(line) or HEADING.match(line):
            continue
        if first_words.isdisjoint(_WORD.findall(line.replace("\\", ""))):  # most lines: at a glance
            continue
        words = tuple(_WORD.findall(markdown_to_text(line)))
        if words:
            where[words].append(i)
    return where


def _place(
    quote: list[tuple[str, tuple[str, ...]]],
    where: dict[tuple[str, ...], list[int]],
    page: str,
    cursor: int,
    quoted: set[int],
) -> list[int]:
    """The reading's lines that show ``quote``'s lines, in order (each after the one before), or none
    when no line of it places it."""
    found: list[int] = []
    sure = False
    for line, words in quote:
        start = found[-1] + 1 if found else cursor
        places = [i for i in where.get(words, ()) if i >= start and i not in quoted]
        if not places:
            continue
        if len(words) >= QUOTE_WORDS and page.count(line) == 1:
            found.append(places[0])
            sure = True
        elif found and places[0] <= found[-1] + NEAR:
            found.append(places[0])
    return found if sure else []


def _join(lines: list[str], found: list[int]) -> None:
    """Blank lines between a quotation's lines become quotation lines: one quotation, not several."""
    for before, after in zip(found, found[1:], strict=False):
        if all(not lines[i].strip() for i in range(before + 1, after)):
            for i in range(before + 1, after):
                lines[i] = ">"
