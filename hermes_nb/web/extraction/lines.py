"""Lines of a reading's Markdown: whole lines taken out (never inside a code block or a table), and the
words by which what a reading lost finds its place again.

Several steps drop lines that are not text (lines of identifiers, notices asking for JavaScript). They
share the walk: code fences are tracked so that code is never touched, table rows keep their table's
shape, and the blank lines a dropped line leaves are closed up. The steps that put back titles and
lists a reading lost (``lost_labels.py``, ``lost_lists.py``) find their place by the words of the
lines round it, read alike by both.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hermes_nb.code_fences import CodeFences

from .formats import linked_text
from .scripts import word_key

#: Opening (or closing) words of a block that find it in a reading (fewer would find the wrong line).
BODY_WORDS = 6


def drop_lines(markdown: str, doomed: Callable[[str], bool]) -> tuple[str, int]:
    """``markdown`` without the lines outside code and tables for which ``doomed`` is true; how many."""
    kept: list[str] = []
    fences = CodeFences()
    dropped = 0
    for line in markdown.split("\n"):
        if not fences.read(line) and not line.lstrip().startswith("|") and doomed(line):
            dropped += 1
            continue
        kept.append(line)
    if not dropped:
        return markdown, 0
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), dropped


def line_keys(lines: list[str]) -> list[str]:
    """The word key of each line of Markdown, its links and images as their text (``formats``);
    ``""`` for a line of fenced code, where nothing is put back (a title there would read as code)."""
    fences = CodeFences()
    return ["" if fences.read(line) else word_key(linked_text(line)) for line in lines]


def compact(key: str) -> str:
    """A word key without its spaces: the test for text a reading already has, which a page's markup
    may split inside a word ("<b>S</b><b>aving</b>") or run together across two."""
    return key.replace(" ", "")
