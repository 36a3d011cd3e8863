"""Whole lines taken out of a reading's Markdown, never inside a code block or a table.

Several steps drop lines that are not text (lines of identifiers, notices asking for JavaScript). They
share the walk: code fences are tracked so that code is never touched, table rows keep their table's
shape, and the blank lines a dropped line leaves are closed up.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from hermes_nb.code_fences import CodeFences


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
