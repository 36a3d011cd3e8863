"""Emoji drawn as images, read as the emoji they show.

WordPress, Twitter's embeds and many forums draw each emoji of a post as an ``<img>`` whose ``alt``
is the emoji itself (``<img class="emoji" alt="👍" src="…/1f44d.png">``). The extractors drop images,
so "Great idea 👍" read "Great idea", and a reply that was only a thumbs-up read as nothing. An image
whose ``alt`` is nothing but emoji (one to a few, with their joiners, variation selectors and skin
tones) becomes that text, in its place.
"""

from __future__ import annotations

import re
from typing import Any

MAX_EMOJI_CHARS = 16  # a longer alt text is a description, not an emoji
_EMOJI_ONLY = re.compile(
    "[\U0001f000-\U0001faff\u2190-\u21ff\u2300-\u23ff\u2460-\u24ff\u25a0-\u27bf\u2900-\u297f"
    "\u2b00-\u2bff\u3030\u303d\u3297\u3299\u00a9\u00ae\u203c\u2049\u2122\u2139"
    "\u200d\ufe0e\ufe0f\u20e3\U000e0020-\U000e007f]+"
)


def emoji_as_text(root: Any) -> int:
    """Replace each image whose ``alt`` is only emoji with that emoji; how many."""
    changed = 0
    for img in root.xpath(f"//img[@alt][string-length(@alt) <= {MAX_EMOJI_CHARS}]"):
        alt = img.get("alt").strip()
        if not alt or not _EMOJI_ONLY.fullmatch(alt) or img.getparent() is None:
            continue
        img.tail = alt + (img.tail or "")
        img.drop_tree()  # its tail, the emoji first, joins the text before it
        changed += 1
    return changed
