"""Which lines of a Markdown text are fenced code, read the way CommonMark reads them.

Every step that walks Markdown line by line (dropping repeats, mending trafilatura's output, writing
plain text, rendering a card, finding a title) must leave code alone, so each needs to know where a
code block starts and ends. Toggling at every line that starts with three backticks gets it wrong
where a renderer does not: code that itself shows a fence is wrapped in a longer one, a line such as
```` ```python ```` inside a block is code (a closing fence has nothing after it), and
```` ```x``` ```` on one line is an inline code span. ``CodeFences`` follows the rules instead:

- a block opens at a line that starts, after at most three spaces, with three or more backticks or
  tildes (a backtick fence's info string holds no backtick);
- it closes only at a line of the same character, at least as long as the opening run, with nothing
  but spaces around it (up to three spaces before);
- a block left open runs to the end of the text.
"""

from __future__ import annotations

import re

#: A line that can open a code block: its fence run, after at most three spaces.
FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_MAY_OPEN = (" ", "`", "~")  # the first character of a line that opens a fence


class CodeFences:
    """Reads a Markdown text a line at a time and says which lines belong to fenced code."""

    __slots__ = ("opening",)

    def __init__(self) -> None:
        self.opening = ""  # the fence run of the open code block; "" outside code

    @property
    def in_code(self) -> bool:
        """Whether the lines read so far left a code block open."""
        return bool(self.opening)

    def read(self, line: str) -> bool:
        """Whether ``line`` is fenced code: an opening or closing fence, or a line between them."""
        if self.opening:
            if closes(line, self.opening):
                self.opening = ""
            return True
        if line[:1] not in _MAY_OPEN:  # most lines: no fence can start there (checked without a regex)
            return False
        run = opening_fence(line)
        if run:
            self.opening = run
            return True
        return False


def opening_fence(line: str) -> str:
    """The fence run that ``line`` opens a code block with, or "" when it opens none."""
    match = FENCE.match(line)
    if not match:
        return ""
    run = match.group(1)
    if run[0] == "`" and "`" in line[match.end() :]:
        return ""  # ```x``` is a code span, not a fence: a backtick fence's info string has no backtick
    return run


def closes(line: str, opening: str) -> bool:
    """Whether ``line`` closes a code block opened by the fence run ``opening``."""
    if len(line) - len(line.lstrip(" ")) > 3:
        return False
    stripped = line.strip()
    return len(stripped) >= len(opening) and stripped == opening[0] * len(stripped)

