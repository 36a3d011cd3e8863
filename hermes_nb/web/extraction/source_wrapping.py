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

#: Text nodes with words and a newline, where a browser collapses white space.
_WRAPPED = (
    "//text()[contains(., '\n') and normalize-space(.) != ''"
    " and not(ancestor::pre or ancestor::code or ancestor::textarea or ancestor::script or ancestor::style"
    " or ancestor::*[contains(@style, 'white-space')])]"
)
_BREAKING_SPACE = re.compile(r"[ \t\r\f]*\n\s*")


def unwrap_source_lines(root: Any) -> int:
    """Replace each newline (and the white space round it) in the page's shown text with a space;
    how many text nodes changed."""
    changed = 0
    for text in root.xpath(_WRAPPED):
        owner = text.getparent()
        if owner is None:
            continue
        if text.is_text:
            owner.text = _BREAKING_SPACE.sub(" ", owner.text)
        elif text.is_tail:
            owner.tail = _BREAKING_SPACE.sub(" ", owner.tail)
        changed += 1
    return changed
