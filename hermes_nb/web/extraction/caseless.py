"""Case-insensitive patterns for the names authors give elements (class, id, role, style), matched fast.

Python's ``re`` with ``IGNORECASE`` folds the case of each character as it tries it, and cannot skip
ahead to a pattern's literal words: the tests run on every named element of a page (is it furniture, a
post, a tab panel?) took three to eight times as long as the same pattern run case-sensitively on the
lower-cased name. A ``Caseless`` pattern is written in lower case and searched that way. The two agree on
ASCII text, which class names are; they differ only where ``IGNORECASE`` equates one of four non-ASCII
letters with an ASCII one (dotted and dotless I, long s, the Kelvin sign), so text in any language stays
with ``re.I``.
"""

from __future__ import annotations

import re

__all__ = ["Caseless"]

_UPPER = re.compile(r"(?<!\\)[A-Z]")  # an upper-case letter that is not an escape's (\S, \W)


class Caseless:
    """A pattern of lower-case letters that matches its text whatever the text's case."""

    __slots__ = ("regex",)

    def __init__(self, pattern: str) -> None:
        if _UPPER.search(pattern):
            raise ValueError(f"a Caseless pattern is written in lower case: {pattern!r}")
        self.regex = re.compile(pattern)

    @property
    def pattern(self) -> str:
        """The pattern's source, to build another from it."""
        return self.regex.pattern

    def search(self, text: str) -> re.Match[str] | None:
        """The first match in ``text`` lower-cased (its positions are the lower-cased text's)."""
        return self.regex.search(text.lower())

