"""Blocks a reading repeats: the second copy of a paragraph the page renders twice goes.

Pages often carry the same text twice — a mobile and a desktop copy of a product description, a
title repeated in a sticky bar, a tab panel that duplicates the visible text — and an extractor that
keeps hidden or repeated regions reads it twice. A block (a line of the Markdown: a paragraph,
heading or list item) is dropped when the same words came before it, or, from ``CONTAINED_WORDS``
words up, when its words run word for word inside what came before. Code blocks and table rows are
never touched: code repeats on purpose, and a table keeps its shape.
"""

from __future__ import annotations

import re

_WORD = re.compile(r"\w+", re.U)
_FENCE = re.compile(r"^\s{0,3}(?:`{3,}|~{3,})")
CONTAINED_WORDS = 8  # a block this long that runs word for word inside the text before it is a copy


def drop_repeats(markdown: str) -> tuple[str, int]:
    """``markdown`` without the blocks it already said, and how many blocks went."""
    kept: list[str] = []
    seen: set[tuple[str, ...]] = set()
    before = " "  # the words kept so far, space-separated and space-padded, for containment tests
    in_code = False
    dropped = 0
    for line in markdown.split("\n"):
        if _FENCE.match(line):
            in_code = not in_code
            kept.append(line)
            continue
        key = tuple(w.lower() for w in _WORD.findall(line))
        if in_code or not key or line.lstrip().startswith("|"):
            kept.append(line)
            continue
        joined = " ".join(key)
        if key in seen or (len(key) >= CONTAINED_WORDS and f" {joined} " in before):
            dropped += 1
            continue
        seen.add(key)
        before += joined + " "
        kept.append(line)
    if not dropped:
        return markdown, 0
    return re.sub(r"\n{3,}", "\n\n", "\n".join(kept)).strip(), dropped
