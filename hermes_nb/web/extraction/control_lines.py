"""Page controls printed as text: skip links, sign-in, menu toggles, sorters, page counters, sign-ups,
reaction counts.

A page's controls are links and buttons, and a reading that keeps a run of blocks keeps them as lines
of their own: "Skip to main content", "Sign in", "Open menu", "Back to top", "Sort by", "Page 1 of 8",
"Sign up for our newsletter", "Share", "Subscribe", "Back to blog". So are the labels a page prints
round its text: the reading time ("6 min read"), a "Tags" or "Table of contents" label whose list
was left out, "Was this helpful?". A line that is only such a control or label (a link's text
counting as its text) goes, on every page, unless it is a heading (a restaurant's "Menu" heads its
dishes) — a newsletter call and a "Table of contents" go as headings too, as they head no text of
the page — and never inside code or a table. On the tune part of WCXB: +0.0001 F1, 28 pages up, 3
down (references that keep a "Sign in" or a "Back to top"), both halves up; fewer of WCXB's
must-not-contain snippets. The labels (round 13): each kind absent from the references wherever the
readings had it as a line (reading times 19 of 19, newsletter headings 5, "Subscribe" 5, "Back
to" 4, "Tags" 3; "Share" 6 of 7; "Table of contents" 15 of 16). The counts printed on a post's
reaction, reply and comment buttons ("1 Like", "12 Replies", "941 comments") as lines of their own
(round 16): 43 such lines in the tune readings, none in any tune reference; +0.0001, both halves up.
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
    r"|(?:sign\s+up\s+for|get|subscribe\s+to)\s+(?:our|the)(?:\s+\w+){0,3}\s+newsletters?|newsletters?"
    r"|subscribe(?:\s+(?:now|today|to\s+us))?|share(?:\s+(?:this|on|via)(?:\s+\w+){0,2})?"
    r"|(?:back|return)\s+to\s+(?:all\s+)?(?:blogs?|posts?|articles?|news|home(?:page)?|results|search|overview"
    r"|selection|navigation|shop|store|categor(?:y|ies))"
    r"|\d+\s*min(?:ute)?s?\.?\s+read|tags?|was\s+this\s+(?:page\s+|article\s+)?helpful\s*\?"
    r"|table\s+of\s+contents|\d+\s+(?:likes?|reactions?|repl(?:y|ies)|comments?))"
    r"\s*[.!:]?",
    re.I,
)
#: Controls and labels that head nothing of the page's text, and go as headings too.
_HEADING = re.compile(
    r"#{1,6}\s+(?:(?:join|sign\s+up\s+for|get|subscribe\s+to)\s+)?(?:(?:our|the)\s+)?(?:\w+\s+){0,2}"
    r"newsletters?\s*[.!:]?|#{1,6}\s+table\s+of\s+contents\s*:?",
    re.I,
)


def drop_control_lines(markdown: str) -> tuple[str, int]:
    """``markdown`` without its lines that are only a page control, and how many went."""
    return drop_lines(markdown, _control)


def _control(line: str) -> bool:
    text = line.strip()
    shown = linked_text(text).strip(" *_>-+")
    return bool((_HEADING if text.startswith("#") else _CONTROL).fullmatch(shown))
