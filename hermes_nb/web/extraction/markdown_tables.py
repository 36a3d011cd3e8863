"""Pipe tables without a delimiter row made whole: trafilatura writes one only under ``<th>`` cells.

A table whose first row is ``<td>`` cells (a bold first row, or no header at all) comes out of
trafilatura's Markdown as bare ``| a | b |`` rows, which no Markdown renderer reads as a table: the
notebook showed a paragraph of pipes, and ``format="html"`` a ``<p>``. On the tune part of WCXB
62 of the readings' 231 tables (on 32 pages) lacked the row. The first row becomes the header: a
delimiter row of as many cells goes under it. Rows inside code blocks are left alone.
"""

from __future__ import annotations

import re

from .repeats import FENCE

_ROW = re.compile(r"^\s{0,3}\|.*\|\s*$")
_DELIMITER = re.compile(r"^\s{0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")


def complete_tables(markdown: str) -> str:
    """``markdown`` with a delimiter row under the first row of each pipe table that lacks one."""
    if "|" not in markdown:
        return markdown
    lines = markdown.split("\n")
    out: list[str] = []
    in_code = False
    for i, line in enumerate(lines):
        out.append(line)
        if FENCE.match(line):
            in_code = not in_code
            continue
        if in_code or not _ROW.match(line) or (i and _ROW.match(lines[i - 1])):
            continue  # not the first row of a table
        after = lines[i + 1] if i + 1 < len(lines) else ""
        if _ROW.match(after) and not _DELIMITER.match(after):
            cells = len(_CELL_SEPARATOR.split(line.strip().strip("|")))
            out.append("|" + "---|" * cells)
    return "\n".join(out)
