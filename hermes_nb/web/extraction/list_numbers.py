"""An ordered list the page numbers from N (``<ol start="N">``) numbered from N in the reading, and a
list the page counts down (``<ol reversed>``) counted down.

Extractors number every ordered list from 1: trafilatura and our own converter alike. A how-to that
breaks its steps around a picture (``<ol>`` 1–3, a figure, ``<ol start="4">``) then reads "1. 2. 3.
… 1. 2.", and a page that writes each item as a list of its own (``<ol start="2">``, ``<ol
start="3">`` …) reads "1." five times. Each such list of the page is found in the reading by the
first words of its first item, in page order, where the reading starts a list with "1." (a list
already numbered from elsewhere is left alone), and its items at that indent are numbered on from
the page's number. The text format, which reads no list markers, is the same either way.

A countdown (``<ol reversed>``: a top ten from 10 to 1) is numbered down from its ``start``, else from
its number of items, as a browser numbers it. CommonMark has no such list: a Markdown renderer shows
"10. 9. 8." from 10 upwards, so the HTML the SDK renders from the Markdown (the ``html`` format, a
notebook's card) marks a list whose numbers go down by one ``reversed`` (``formats.py``); the
Markdown itself says the page's numbers. A countdown that would go below 0 is left as read.
"""

from __future__ import annotations

import re
from typing import Any

from hermes_nb.code_fences import CodeFences

from .formats import markdown_to_text

__all__ = ["number_lists"]

FIRST_WORDS = 6  # words of a list's first item that must read the same to find it in the reading
_WORD = re.compile(r"\w+")
_FIRST_ITEM = re.compile(r"^(?P<indent>\s*)1(?P<mark>[.)])(?P<space>\s+)(?P<text>\S.*)$")
_MAX_START = 999_999_999  # CommonMark's largest list number has nine digits


def number_lists(markdown: str, root: Any) -> tuple[str, int]:
    """``markdown`` with each list the page numbers from N (N ≠ 1) numbered from N; how many lists."""
    wanted = _numbered_lists(root)
    if not wanted:
        return markdown, 0
    lines = markdown.split("\n")
    fences = CodeFences()
    in_code = [fences.read(line) for line in lines]
    numbered = 0
    for i, line in enumerate(lines):
        first = None if in_code[i] else _FIRST_ITEM.match(line)
        if first is None or not wanted:
            continue
        words = tuple(_WORD.findall(markdown_to_text(first["text"]))[:FIRST_WORDS])
        found = next((k for k, (*_, start_words) in enumerate(wanted) if _same_start(words, start_words)), -1)
        if found < 0:
            continue
        start, step, _ = wanted[found]
        del wanted[: found + 1]  # page order: a later list is never an earlier one
        numbered += _renumber(lines, i, first["indent"], first["mark"], start, step, in_code)
    return ("\n".join(lines), numbered) if numbered else (markdown, 0)


def _same_start(words: tuple[str, ...], other: tuple[str, ...]) -> bool:
    """Whether two items open with the same words (as many as the shorter has; at least one)."""
    n = min(len(words), len(other))
    return n > 0 and words[:n] == other[:n]


def _numbered_lists(root: Any) -> list[tuple[int, int, tuple[str, ...]]]:
    """Each ``<ol>`` of the page that starts at a number other than 1 or counts down, as ``(its first
    number, +1 or -1, its first item's first words)``."""
    found = []
    for ol in root.iter("ol"):
        items = [child for child in ol if child.tag == "li"]
        start = (ol.get("start") or "").strip()  # "²" is a digit to str.isdigit, and no number
        given = int(start) if start.isascii() and start.isdigit() and int(start) <= _MAX_START else None
        if ol.get("reversed") is not None:
            first, step = (len(items) if given is None else given), -1
            if first == 1 and len(items) == 1:
                continue
        elif given is None or given == 1:
            continue
        else:
            first, step = given, 1
        words = tuple(_WORD.findall(items[0].text_content())[:FIRST_WORDS]) if items else ()
        if words:
            found.append((first, step, words))
    return found


def _renumber(
    lines: list[str], first: int, indent: str, mark: str, start: int, step: int, in_code: list[bool]
) -> int:
    """Number the items of the list whose first item is ``lines[first]`` from ``start`` by ``step``;
    1 when numbered, 0 when a countdown would go below 0 (left as it is)."""
    item = re.compile(rf"^{re.escape(indent)}(\d{{1,9}}){re.escape(mark)}(?=\s)")
    at = []  # the list's item lines
    for i in range(first, len(lines)):
        line = lines[i]
        if in_code[i] or not line.strip() or (line[: len(indent) + 1].isspace() and len(line) > len(indent)):
            continue  # a code block, a blank line or a line indented under an item: the list goes on
        found = item.match(line)
        if not found or (i > first and found.group(1) == "1"):
            break  # a line that is no item of the list, or the first of the next list: it is over
        at.append(i)
    if start + step * (len(at) - 1) < 0:
        return 0
    for n, i in enumerate(at):
        lines[i] = item.sub(f"{indent}{start + step * n}{mark}", lines[i], count=1)
    return 1
