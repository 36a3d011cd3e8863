"""Line breaks of a page's source, which a browser shows as spaces, taken out of its text.

HTML text wraps wherever its author's editor did ("which\\n      is repeatedly resetting"), and a
browser collapses every run of white space outside preformatted text into one space. trafilatura
keeps those newlines in its readings, so a paragraph came out broken mid-sentence: harmless in the
rendered Markdown (a soft break), but a hard line break in the ``text`` and ``html`` formats, which
keep a reading's line breaks because ``<br>`` is the only other source of them. Before the
extractors read the page, white space with a newline in it becomes one space in every text node
that shows words, except inside ``<pre>``, ``<code>``, ``<textarea>`` and elements whose style sets
``white-space`` (where a newline is shown).
"""

from __future__ import annotations

import re
from typing import Any

#: Where a newline is shown: preformatted elements, and those that are not text at all.
_SHOWN_AS_IS = frozenset({"pre", "code", "textarea", "script", "style"})
_BREAKING_SPACE = re.compile(r"[ \t\r\f]*\n\s*")


def unwrap_source_lines(root: Any) -> int:
    """Replace each newline (and the white space round it) in the page's shown text with a space;
    how many text nodes changed."""
    changed = 0
    for el in root.iter():
        text, tail = el.text, el.tail
        if text and "\n" in text and not text.isspace() and _collapses(el):
            el.text = _BREAKING_SPACE.sub(" ", text)
            changed += 1
        if tail and "\n" in tail and not tail.isspace() and _collapses(el.getparent()):
            el.tail = _BREAKING_SPACE.sub(" ", tail)
            changed += 1
    return changed


def _collapses(el: Any) -> bool:
    """Whether a browser collapses white space in ``el``'s own text: nothing round it keeps it."""
    while el is not None:
        if isinstance(el.tag, str) and (el.tag in _SHOWN_AS_IS or "white-space" in (el.get("style") or "")):
            return False
        el = el.getparent()
    return True
