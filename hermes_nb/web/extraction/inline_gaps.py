"""Words a page sets apart that an extractor joins: sibling inline elements, and a break inside one.

A product card's brand and title, an API field's name and type, a badge and its label are often
sibling ``<span>``s with nothing between them, which the page's style sheet shows as separate
lines or columns. An extractor reads no style sheet, joins their text and makes one word of two
("ScarpaDrago", "descriptionstring"). A space goes between two such siblings when nothing separates
them, both end and start with a word character, each holds at least ``MIN_CHARS`` characters, and
their tags or classes differ: a run of spans of one class splits a paragraph into styling runs,
often inside a word ("includin" + "g"), and a letter in a span of its own is a drop cap or an
animation. Two of one tag and class are spaced too when they are links to different places (a row
of tags: "DifficultTrading"), two ``<code>`` spans (a value beside its encoding; in Markdown two
code spans with nothing between them run into one), or two phrases of several words each, the second
capitalised ("Henry ModisettHead of Design"). Text inside code or preformatted text is never touched,
and neither is text in scripts that do not space their words (Chinese, Japanese). A line break that
ends an inline element (``<em>aureum<br></em>Low``), which trafilatura drops, moves out after it.
"""

from __future__ import annotations

import re
from typing import Any

MIN_CHARS = 2
_INLINE = ("span", "a", "b", "strong", "em", "i", "small", "label", "u", "mark", "abbr", "cite", "code")
_WORD_END = re.compile(r"\w$")
_WORD_START = re.compile(r"^\w")
_UNSPACED = 0x2E80  # from the CJK radicals on, scripts write words without spaces between them


def space_adjacent_inlines(root: Any) -> int:
    """Put a space between each pair of sibling inline elements a reader sees apart, and move a line
    break that ends an inline element out of it (above); how many."""
    spaced = _breaks_moved_out(root)
    for el in root.iter(*_INLINE):
        if el.tail:
            continue
        after = el.getnext()
        if after is None or after.tag not in _INLINE:
            continue
        first, second = el.text_content().strip(), after.text_content().strip()
        same_kind = after.tag == el.tag and after.get("class") == el.get("class")
        if same_kind and not _apart(el, after, first, second):
            continue  # styling runs of one kind
        if len(first) < MIN_CHARS or len(second) < MIN_CHARS:
            continue
        if not (_WORD_END.search(first) and _WORD_START.search(second)):
            continue
        if ord(first[-1]) >= _UNSPACED or ord(second[0]) >= _UNSPACED:
            continue
        if any(a.tag in ("pre", "code") for a in el.iterancestors()):
            continue
        el.tail = " "
        spaced += 1
    return spaced


def _apart(el: Any, after: Any, first: str, second: str) -> bool:
    """Whether two sibling inline elements of one tag and class are two things, not a word's parts: links
    to different places (a row of tags or chips), or two phrases of more than one word each, the second
    capitalised (a name and a role); a styling run that splits a word goes on in lower case ("digital
    tools includin" + "g a CRM")."""
    if el.tag == "a" and el.get("href") and after.get("href") and el.get("href") != after.get("href"):
        return True
    if el.tag == "code":  # two code spans: a value beside its encoding ("U+00DF" "0x C3 9F"), never a word
        return True
    return " " in first and " " in second and (second[0].isupper() or second[0].isdigit())


def _breaks_moved_out(root: Any) -> int:
    """``<em>Epipremnum aureum<br></em>Low light``: trafilatura drops a line break that ends an inline
    element and joins the words round it ("aureumLow"); moved after the element, the break stays."""
    moved = 0
    for br in list(root.iter("br")):
        parent = br.getparent()
        if parent is None or parent.tag not in _INLINE or br.getnext() is not None or (br.tail or "").strip():
            continue
        if not (parent.tail and _WORD_START.search(parent.tail)):
            continue
        br.tail, parent.tail = parent.tail, None
        parent.addnext(br)
        moved += 1
    return moved
