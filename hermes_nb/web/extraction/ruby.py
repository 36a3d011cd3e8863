"""Ruby annotations: the readings a page prints above its characters (Japanese furigana, pinyin).

``<ruby>漢<rt>かん</rt>字<rt>じ</rt></ruby>`` shows 漢字 with its reading in small type above. The
extractors read the annotation into the line, so "漢字の読み方" came out as "漢かん字じの読み方":
words a search for 漢字 no longer finds, with sounds run into them. The base text is the text; the
annotation (``<rt>``, and the ``<rp>`` parentheses that old browsers show round it) is a reading aid,
and goes. Its tail, the text that follows, stays.
"""

from __future__ import annotations

from typing import Any


def drop_ruby_annotations(root: Any) -> int:
    """Remove the ``<rt>``/``<rp>`` annotations of the page's ``<ruby>`` elements; how many went."""
    doomed = [el for ruby in root.iter("ruby") for el in ruby.iter("rt", "rp")]
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()
    return len(doomed)
