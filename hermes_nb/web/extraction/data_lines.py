"""Lines of data: an object a page's scripts read, written into the page as text.

Widgets carry their settings as text in an element the script reads and the style sheet hides: a
grid's JSON of product identifiers and sort orders (33 KB on one line), a language switcher's Python
``dict`` of sites by locale, printed by a template. A reading without scripts or style sheets shows
them as a paragraph. A line of the reading (outside code and tables) that is, once its Markdown
escapes are undone, a JSON object, a JSON array of objects or a Python literal of one, with at least
``MIN_MEMBERS`` members and ``MIN_CHARS`` characters, is not text and goes. So does a long line
(``LONG_CHARS``) that a reading has cut or mangled out of JSON, once it reads as one: it opens an
object with a quoted key, closes it, and names a quoted key every ``KEY_EVERY`` characters or fewer.
Documentation keeps them: a reference page may show an example object in a paragraph of its own.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from .lines import drop_lines

MIN_MEMBERS = 3  # an object with fewer members may be a value the text quotes: {"ok": true}
MIN_CHARS = 80
LONG_CHARS = 1000
KEY_EVERY = 60
MAX_CHARS = 1_000_000  # a longer line is not parsed (it is not data a reader would want either way)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")  # a Markdown backslash escape (CommonMark's punctuation)
_QUOTED_KEY = re.compile(r'"[^"\\\s]{1,80}"\s*:')
_OBJECT_LIKE = re.compile(r"^\s*(?:\{.*\}|\[\s*\{.*\}\s*\])\s*$", re.S)


def drop_data_lines(markdown: str) -> tuple[str, int]:
    """``markdown`` without its lines of data (see above), and how many lines went."""
    if "{" not in markdown:
        return markdown, 0
    return drop_lines(markdown, is_data)


def is_data(line: str) -> bool:
    """Whether the line of Markdown is an object a script reads (see above), not text."""
    if not MIN_CHARS <= len(line) <= MAX_CHARS or not _OBJECT_LIKE.match(line):
        return False
    text = _ESCAPED.sub(r"\1", line.strip())
    value = _parsed(text)
    if value is None and len(text) >= LONG_CHARS and text.startswith('{"'):
        return len(_QUOTED_KEY.findall(text)) * KEY_EVERY >= len(text)
    if isinstance(value, list):
        return len(value) >= 2 and all(isinstance(item, dict) for item in value)
    return isinstance(value, dict) and len(value) >= MIN_MEMBERS


def _parsed(text: str) -> Any:
    """The JSON value or Python literal ``text`` spells, or ``None``."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError):
        return None
