"""A Markdown heading line ("## Title", "## Title ##"), read the way CommonMark reads it.

Writing plain text, dropping a reading's title line, naming a Markdown document and titling a
provider's result all need a heading's text; one pattern serves them, so they agree on what a heading
is: up to three spaces, one to six ``#``, a space, the text, and an optional closing run of ``#`` that
a space sets apart ("## C#" is titled "C#"; "## Title ##" is titled "Title").
"""

from __future__ import annotations

import re

__all__ = ["HEADING", "HEADINGS"]

_LINE = r"^ {0,3}#{1,6}[ \t]+(.*?)[ \t]*(?:(?<=[ \t])#+)?[ \t]*$"
#: A heading line, matched at its start; group 1 its text ("" for an empty heading).
HEADING = re.compile(_LINE)
#: The same, for ``search`` over a whole text (each line tried as a heading).
HEADINGS = re.compile(_LINE, re.M)
