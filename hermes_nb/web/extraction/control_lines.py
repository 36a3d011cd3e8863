"""Page controls printed as text: skip links, sign-in, menu toggles, sorters, page counters, sign-ups.

A page's controls are links and buttons, and a reading that keeps a run of blocks keeps them as lines
of their own: "Skip to main content", "Sign in", "Open menu", "Back to top", "Sort by", "Page 1 of 8",
"Sign up for our newsletter". A line that is only such a control (a link's text counting as its
text) goes, on every page, unless it is a heading (a restaurant's "Menu" heads its dishes), and never
inside code or a table. On the tune part of WCXB: +0.0001 F1, 28 pages up, 3 down (references that
keep a "Sign in" or a "Back to top"), both halves up; fewer of WCXB's must-not-contain snippets.
"""

from __future__ import annotations

import re

from .formats import linked_text
from .lines import drop_lines

_CONTROL = re.compile(
    r"(?:skip\s+to\s+(?:the\s+)?(?:main\s+)?(?:content|navigation|search)"
    r"|(?:log|sign)\s*(?:in|out|up)(?:\s*(?:/|or|\|)\s*(?:log|sign)\s*(?:in|up)|\s+for\s+free)?"
    r"|register|my\s+account|(?:open|close|toggle)\s+(?:the\s+)?(?:navigation|menu)|main\s+menu|menu"
    r"|(?:back|scroll)\s+to\s+top|reply\s+with\s+quote|sort\s+by|filters?(?:\s+by)?|page\s+\d+\s+of\s+\d+"
    r"|(?:sign\s+up\s+for|get|subscribe\s+to)\s+(?:our|the)(?:\s+\w+){0,3}\s+newsletters?|newsletters?)"
    r"\s*[.!:]?",
    re.I,
)


def drop_control_lines(markdown: str) -> tuple[str, int]:
    """``markdown`` without its lines that are only a page control, and how many went."""
    return drop_lines(markdown, _control)


def _control(line: str) -> bool:
    text = line.strip()
    if text.startswith("#"):
        return False
    return bool(_CONTROL.fullmatch(linked_text(text).strip(" *_>-+")))
