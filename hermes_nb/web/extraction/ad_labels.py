"""Advertisement labels: the lines a page prints over an advert's slot, never its text.

News and shop pages mark each advert slot with a line of its own ("Advertisement", "Skip
Advertisement", "ADVERTISEMENT - CONTINUE READING BELOW", "Sponsored"); the advert itself is a script
and leaves nothing, but the label reads as a paragraph. A line that is only such a label goes, on
every page, never inside code or a table. On the tune part of WCXB: 11 pages up, none down.
"""

from __future__ import annotations

import re

from .lines import drop_lines

_LABEL = re.compile(
    r"^\s*(?:skip\s+)?(?:advertisements?|sponsored|ads?)"
    r"(?:\s*[-–—:]\s*(?:continue|scroll)\s+(?:reading|down|to\s+continue)(?:\s+below)?)?\s*$",
    re.I,
)


def drop_ad_labels(markdown: str) -> tuple[str, int]:
    """``markdown`` without its lines that only label an advert's slot, and how many went."""
    return drop_lines(markdown, lambda line: bool(_LABEL.match(line.strip(" #*_>-"))))
