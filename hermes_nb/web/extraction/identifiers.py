"""Lines of machine identifiers: text a page hides with its style sheet, which a reading without CSS shows.

Some shops spell a label ("Sponsored") one letter at a time between spans of random UUIDs that a style
sheet hides, so that scripts cannot read it. An extractor sees no style sheet and reads the UUIDs: a
line of hundreds of hex fragments. A line that is mostly UUIDs (``UUID_SHARE`` of its characters, at
least ``UUID_RUN`` of them) is not text and goes. Code blocks and table rows are never touched.
"""

from __future__ import annotations

import re

from .lines import drop_lines

_UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", re.I)
UUID_RUN = 3  # fewer UUIDs in a line may be an identifier quoted in prose
UUID_SHARE = 0.5  # share of the line's non-space characters that the UUIDs fill


def drop_identifier_lines(markdown: str) -> tuple[str, int]:
    """``markdown`` without its lines of UUIDs (see above), and how many lines went."""
    return drop_lines(markdown, _identifiers)


def _identifiers(line: str) -> bool:
    found = _UUID.findall(line)
    if len(found) < UUID_RUN:
        return False
    return sum(map(len, found)) >= UUID_SHARE * len("".join(line.split()))
