"""Repairs to trafilatura's Markdown, so that a renderer (and ``format="text"``/``"html"``) reads
what the page meant.

- **Tables without a delimiter row.** trafilatura writes one only under ``<th>`` cells, so a table
  whose first row is ``<td>`` cells (a bold first row, or no header) came out as bare ``| a | b |``
  rows, which no renderer reads as a table: the notebook showed a paragraph of pipes. On the tune
  part of WCXB 62 of the readings' 231 tables (on 32 pages) lacked the row. The first row becomes
  the header: a delimiter row of as many cells goes under it.
- **Code fences run into a line of text.** trafilatura writes a list item or definition on one line,
  so a code block inside one opens at the end of the line of its lead-in ("For example:" and the
  three backticks) and is no fence: its closing fence then opened one, and the rest of the page read
  as code and its code as prose. On the tune part of WCXB, 10 pages of docs had such lines (58). A
  fence that ends a line of text gets a line of its own, as does text after a closing fence; a line
  that holds both fences of a one-line code span stays.
- **The page source's indentation.** trafilatura keeps the spaces that indent a text node in the
  page's source; four of them past a list item's content make an indented code block, and a card's
  "Sale price" rendered as code. On the tune part of WCXB the trafilatura readings of 98 pages had
  such lines (1,892). Lines of text lose it (list items keep theirs: it nests them).

``tidied`` is the last touch on every reading, whichever extractor made it: trailing spaces, runs of
blank lines and empty list items go, and a list item's text written on the line after its marker
comes back to it. It is also where tables are made whole (the first repair above, and the lone rows,
spacer rows and misplaced delimiter rows ``_table_block`` mends), so that the rows a later step puts
back are mended too.
"""


from __future__ import annotations

import re

from hermes_nb.code_fences import FENCE, CodeFences, closes

from .formats import LIST_ITEM, LIST_MARKER
from .markdown_escapes import escaped_block_start

_ROW = re.compile(r"^\s{0,3}\|.*\|\s*$")
_DELIMITER = re.compile(r"^\s{0,3}\|?\s*:?-+:?\s*(?:\|\s*:?-+:?\s*)*\|?\s*$")
_CELL_SEPARATOR = re.compile(r"(?<!\\)\|")
#: A line of text ending in three backticks: a fence, unless the text holds the span's opening ones.
_TEXT_THEN_FENCE = re.compile(r"^(?P<text>.*\S)\s*```\s*$")
#: A closing fence, then text after a space ("```tasks" in a code block is code: a fence shown).
_FENCE_THEN_TEXT = re.compile(r"^\s{0,3}```\s+(?P<text>\S.*)$")
_QUOTE_MARKS = re.compile(r"\s*(?:>\s*)+")
_ITEM_KIND = re.compile(rf"(\s*)({LIST_MARKER})\s")  # a list item's indent and marker
_EMPTY_ITEM = re.compile(rf"\s*{LIST_MARKER}")  # a list item with nothing in it
#: A line that starts a block of its own: a heading, list item, quote, table row or fence.
_BLOCK_START = re.compile(rf"\s*(?:#{{1,6}}\s|{LIST_MARKER}\s|>|\||```|~~~)")
_EMPTY_HEADING = re.compile(r"\s{0,3}#{1,6}")  # a heading with nothing in it
#: What cannot be a heading's text: another heading, a bullet, a quote, a table row, a fence.
_NO_HEADING_TEXT = re.compile(r"\s*(?:#{1,6}(?:\s|$)|[-*+]\s|>|\||```|~~~)")
#: A line of only the bracket or mark that closed an inline element the extractor set on lines of its
#: own ("(", a link, ")" in a cell of a table; a citation's "."): it goes back on the line before it.
_CLOSING = re.compile(r"[)\]]{0,2}[.,;:!?]?")
#: Characters that take no room: a line of them alone is a blank line to a reader.
_INVISIBLE = " \t\u200b\u200c\u200d\u2060\ufeff"
MAX_HEADING_WORDS = 25  # a longer line after an empty heading is the section's text, not its title
#: A heading whose whole text is bold (``<h3><strong>…</strong></h3>``): a heading is bold already.
_BOLD_HEADING = re.compile(r"^(\s{0,3}#{1,6} )\*\*((?:(?!\*\*).)+)\*\*$")


def repaired(markdown: str) -> str:
    """``markdown`` with its code fences on lines of their own and no text indented into a code block
    (its tables are made whole in ``tidied``, with every reading's)."""
    return source_indents_dropped(fences_on_own_lines(markdown))


def tidied(markdown: str) -> str:
    """``markdown`` without trailing spaces, empty list items or runs of blank lines (code untouched).

    The extractors leave them where a page's source had spaces before a line break, a list item's
    text in a block of its own (trafilatura writes "1." and the step's text on the next line: the
    marker is put back in front of it), an icon as an item's only content, or empty elements between
    blocks. A renderer shows none of them, except two trailing spaces: a line break nobody meant.
    One-line items of a list that trafilatura set a blank line apart (a loose list, each item a
    paragraph to a renderer) come together as a tight list. Pipe rows a step after the extractors put
    back are made whole tables (``complete_tables``). A heading whose text the page set in a block of
    its own (``<h3><div>Step 1: …</div></h3>``) was written "###" with its text a paragraph below: the
    text goes back into it; an empty heading with no such text goes. So does a line of only zero-width
    characters (a site builder's empty paragraph holds a zero-width joiner). A heading all in bold
    loses the marks (``### **Pricing**``: a heading is bold already). A bracket or stop that closed an
    inline element the extractor set on lines of its own (a listing's cell read "(", the site's link,
    ")" on three lines; a citation's "." under its list item) goes back next to its words; a paragraph
    of only a stop goes.
    """
    out: list[str] = []
    fences = CodeFences()
    lines = complete_tables(markdown).split("\n")
    heading = ""  # an empty heading's marks, waiting for its text past blank lines
    marker = ""  # an empty list item's marker, waiting for the text of the line after it
    last_item = (-1, "")  # where in ``out`` the last list item is, and its indent and kind of marker
    paren = False  # a lone "(" waits for the words of the line after it
    text_before = False  # whether ``out[-1]`` is a line of text (not code, a table row or a blank)
    for line in lines:
        inside = fences.in_code
        if fences.read(line):
            if paren:
                out.append("(")
            marker = heading = ""
            paren = False
            out.append(line)
            if inside and not fences.in_code:  # a closing fence: a blank line before what follows
                out.append("")
            text_before = False
            continue
        line = line.rstrip()
        if not line.strip(_INVISIBLE):  # a paragraph of a zero-width joiner (an empty <p>) is none
            line = ""
        if line.strip() and _CLOSING.fullmatch(line.strip()):  # ")" or "." an inline element ended on
            if text_before:
                out[-1] += line.strip()
                continue
            if not (out and out[-1]):  # a paragraph of it: nothing to read
                continue
        if line.strip() == "(":
            if paren:
                out.append("(")
            paren = True
            continue
        if paren:
            if line and not _BLOCK_START.match(line):
                line = f"{line[: len(line) - len(line.lstrip())]}({line.lstrip()}"
            else:
                out.append("(")
            paren = False
        if _EMPTY_HEADING.fullmatch(line):
            heading = line.strip()
            continue
        if heading and line:
            if not _NO_HEADING_TEXT.match(line) and len(line.split()) <= MAX_HEADING_WORDS:
                line = f"{heading} {line.strip()}"
            heading = ""
        line = _BOLD_HEADING.sub(r"\1\2", line)
        if _EMPTY_ITEM.fullmatch(line):
            marker = line
            continue
        if marker and line and not _BLOCK_START.match(line):
            line = f"{marker} {line.lstrip()}"
        marker = ""
        item = _ITEM_KIND.match(line)
        if item:
            kind = item.group(1) + ("1" if item.group(2)[0].isdigit() else "-")
            if out and not out[-1] and last_item == (len(out) - 2, kind):
                out.pop()  # one-line items of one list, a blank line apart: a tight list
            last_item = (len(out), kind)
        if line or (out and out[-1]):
            out.append(line)
        text_before = bool(line) and not _ROW.match(line)
    if paren:
        out.append("(")
    return "\n".join(out).strip()


def source_indents_dropped(markdown: str) -> str:
    """``markdown`` with the page source's indentation taken off its lines of text (code untouched).

    A line of text indented four spaces or more past its list item is an indented code block to a
    renderer; outside a list, any indent is the page source's. Such a line gets its list item's
    content indent (it stays in the item) or none; a list item outside a list goes to the margin and
    one inside a list keeps its indent (it nests) up to one level in; fences go to the margin,
    where trafilatura writes the code lines; lines of spaces become blank.
    """
    out: list[str] = []
    fences = CodeFences()
    item_indent: int | None = None  # the content indent of the list item the lines are in
    for line in markdown.split("\n"):
        inside = fences.in_code
        # A fence however far a list item indents it; it goes to the margin, where trafilatura
        # writes the code lines too.
        if fences.read(line.lstrip()):
            if inside and fences.in_code:
                out.append(line)  # code
            else:
                out.append(line.strip())
                item_indent = None
            continue
        if not line.strip():
            out.append("")
            continue
        text = line.lstrip()
        line = line[: len(line) - len(text)].expandtabs(4) + text  # tabs in the indent only
        lead = len(line) - len(text)
        if LIST_ITEM.match(line):
            # The first item of a list at the margin; a nested one at most one level in.
            if item_indent is None:
                line = line.lstrip()
            elif lead >= item_indent + 4:
                line = " " * item_indent + line.lstrip()
            item = LIST_ITEM.match(line)
            item_indent = len(item.group(0)) if item else None
            out.append(line)
            continue
        if not lead:
            item_indent = None  # a line at the margin: the list is over
        elif item_indent is None or lead >= item_indent + 4:
            line = " " * (item_indent or 0) + line.lstrip()
        out.append(line)
    return "\n".join(out)


def fences_on_own_lines(markdown: str) -> str:
    """``markdown`` with each fence that ends a line of text, or starts one inside a code block (a
    closing fence followed by text), on a line of its own."""
    if "```" not in markdown:
        return markdown
    out: list[str] = []
    fences = CodeFences()
    for line in markdown.split("\n"):
        for piece in _own_line_pieces(line, fences):
            fences.read(piece)
            out.append(piece)
    return "\n".join(out)


def _own_line_pieces(line: str, fences: CodeFences) -> tuple[str, ...]:
    """``line`` as lines of their own: text and a fence it runs into, or a closing fence and text."""
    end = _TEXT_THEN_FENCE.match(line)
    if not fences.in_code:
        if end and not (FENCE.match(line) or _QUOTE_MARKS.fullmatch(end["text"]) or "```" in end["text"]):
            return end["text"].rstrip(), "```"
    elif closes("```", fences.opening):  # three backticks end this block: the ones a line runs into
        if end and not FENCE.match(line):  # code, then the closing fence
            return end["text"].rstrip(), "```"
        after = _FENCE_THEN_TEXT.match(line)
        if after:  # the closing fence, then text
            return "```", after["text"].strip()
    return (line,)


def complete_tables(markdown: str) -> str:
    """``markdown`` with each block of pipe rows made a table a renderer reads (``_table_block``)."""
    if "|" not in markdown:
        return markdown
    lines = markdown.split("\n")
    out: list[str] = []
    fences = CodeFences()
    i = 0
    while i < len(lines):
        line = lines[i]
        if fences.read(line) or not _piped(line):
            out.append(line)
            i += 1
            continue
        end = i + 1
        while end < len(lines) and _piped(lines[end]):
            end += 1
        out += _table_block(lines[i:end])
        i = end
    return "\n".join(out)


def _table_block(rows: list[str]) -> list[str]:
    """Consecutive pipe rows as a table a renderer reads: a delimiter row under the first row where it
    lacks one (above it, trafilatura wrote it where the header row was empty); a lone row of one
    filled cell as that cell's text (a box around a note or a caption); rows of empty cells (a
    spacer table) as the blank line between what stands around them."""
    cells = [_cells(row) for row in rows]
    if not any(any(row) for row in cells):
        return [""]
    if len(rows) == 1 and len(filled := [cell for cell in cells[0] if cell]) == 1:
        indent = rows[0][: len(rows[0]) - len(rows[0].lstrip())]  # inside a list item: still in it
        return ["", indent + escaped_block_start(filled[0]), ""]  # "# 1" in it is no heading
    if len(rows) > 1 and _DELIMITER.match(rows[0]):  # the delimiter above the first row: under it
        rows = [rows[1], rows[0], *rows[2:]]
    if len(rows) == 1 or not _DELIMITER.match(rows[1]):
        rows = [rows[0], "|" + "---|" * len(_CELL_SEPARATOR.split(rows[0].strip().strip("|"))), *rows[1:]]
    return rows


def _piped(line: str) -> bool:
    """Whether ``line`` is a pipe table's row or delimiter row (``---`` alone is a rule or an underline)."""
    return bool(_ROW.match(line) or ("|" in line and _DELIMITER.match(line)))


def _cells(row: str) -> list[str]:
    """A pipe row's cells, stripped (a delimiter row's are empty)."""
    if _DELIMITER.match(row):
        return []
    return [cell.strip() for cell in _CELL_SEPARATOR.split(row.strip().strip("|"))]
