"""Page text written into Markdown so that it renders as the page showed it.

A page's text can hold characters that Markdown reads as syntax: ``*args`` turns into emphasis,
``<name>`` (a placeholder a tutorial writes) into an HTML tag that a notebook drops, ``&lt;`` (shown
literally by a page about escaping) into ``<``, ``[1]`` next to a parenthesis into a link, and a
paragraph that opens with "2024." or "#1" into a list or a heading. Each such character gets the
backslash CommonMark gives it, as trafilatura does for its readings; inside code nothing is escaped,
since a code span or block shows its text as it is.

``escaped`` is for a run of inline text, ``escaped_block_start`` for the first characters of a line
of a paragraph, and ``escaped_references`` for text whose other characters are escaped elsewhere
(trafilatura's readings) but whose character references must still show as written.
"""

from __future__ import annotations

import re

__all__ = ["escaped", "escaped_block_start", "escaped_references"]

#: A character reference as CommonMark reads one (``&amp;``, ``&#123;``, ``&#x1F600;``).
_ENTITY = re.compile(r"&(?=(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)")
#: A backslash that CommonMark would read as an escape (before ASCII punctuation), kept as a backslash.
_BACKSLASH = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)")
#: Characters that are syntax anywhere in a line: emphasis, strikethrough, code, links, raw HTML.
_INLINE = re.compile(r"([*_`~\[\]<])")
_SPECIAL = re.compile(r"[\\*_`~\[\]<&]")
#: Characters that are syntax only where a block starts: a heading, a quote, a bullet, a numbered item.
_BLOCK_START = re.compile(r"^( {0,3})(#{1,6}(?=[ \t]|$)|>|[-+](?=[ \t]|$)|\d{1,9}(?=[.)](?:[ \t]|$)))")


def escaped(text: str) -> str:
    """``text`` (a page's words, not code) with its Markdown syntax characters backslash-escaped."""
    if not _SPECIAL.search(text):  # most runs of text: nothing to escape
        return text
    text = _BACKSLASH.sub(r"\\\\", text)
    return escaped_references(_INLINE.sub(r"\\\1", text))


def escaped_references(text: str) -> str:
    """``text`` with the backslash CommonMark needs before each ``&`` that would start a character
    reference (``&lt;`` shown as it is, not as ``<``)."""
    return _ENTITY.sub(r"\\&", text)


def escaped_block_start(line: str) -> str:
    """``line`` with the marker it opens with, if any, escaped (``2024. A year`` → ``2024\\. A year``)."""
    found = _BLOCK_START.match(line)
    if not found:
        return line
    indent, marker = found.groups()
    if marker[0].isdigit():  # the escape goes before the dot or parenthesis after the number
        return f"{indent}{marker}\\{line[found.end():]}"
    return f"{indent}\\{marker}{line[found.end():]}"
