"""Lists a reading lost between blocks it kept.

trafilatura, when it finds no element named like a content container, reads the page's paragraphs,
quotes, code and tables one by one — and no lists: an article's bullet points went missing from
between the paragraph that announced them ("The most common types include:") and the one after.
(Its headings go the same way; ``lost_labels.py`` puts those back.)

Each list of the page's text (not in its navigation, header, footer or asides, not inside another
list, at least ``LIST_WORDS`` words with at most ``LIST_LINK_DENSITY`` of them link text, and shown)
that follows a paragraph or heading is written as Markdown before the page is prepared. After a
reading is chosen, a list it lacks goes back after the line that ends with the closing words of the
block before it. A list whose neighbour the reading left out stays out, as does a list of links
(a "read more" strip after an article's last paragraph).

On the tune part of WCXB: +0.0009 F1 overall, both halves up (articles +0.0016); Readability's pages
+0.0004.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from .caseless import Caseless
from .html_markdown import fragment_to_markdown
from .lines import BODY_WORDS, compact, line_keys
from .scripts import split_words, word_key
from .tree import inline_text, is_hidden, link_density, names, visible_text

__all__ = ["LostList", "page_lists", "restore_lists"]

LIST_WORDS = 4  # a list of fewer words is a control ("Share · Print"), not text
LIST_LINK_DENSITY = 0.3  # a list more linked than this is a list of links, which readings leave out
ITEM_WORDS = 4  # opening words of an item that tell whether the reading has the list
NEIGHBOUR_WORDS = 4  # words the block before a list needs for its closing words to find it
_NEIGHBOURS = ("p", "h2", "h3", "h4", "h5", "h6")
#: A list of comments or reviews is the page's discussion, not its text (the thread's readings keep it).
_COMMENTS = Caseless(r"comment|(?<![a-z])repl(?:y|ies)|discussion|(?<!p)review")
_FURNITURE = "ancestor::nav or ancestor::header or ancestor::footer or ancestor::aside or ancestor::li"


@dataclass(frozen=True)
class LostList:
    """A list as Markdown, the word key of the closing words before it, and its items' opening words
    (``compact`` keys: the test for a list the reading has, perhaps with its numbers or bullets as text)."""

    markdown: str
    after: str
    items: tuple[str, ...]


def page_lists(root: Any) -> list[LostList]:
    """The page's lists of text that follow a paragraph or heading (see above), as Markdown."""
    found = []
    for lst in root.iter("ul", "ol"):
        before = lst.getprevious()
        if before is None or before.tag not in _NEIGHBOURS:
            continue
        closing = split_words(inline_text(before))
        if len(closing) < NEIGHBOUR_WORDS or link_density(lst) > LIST_LINK_DENSITY:
            continue
        line = (lst, *lst.iterancestors())
        if lst.xpath(_FURNITURE) or any(is_hidden(el) or _COMMENTS.search(names(el)) for el in line):
            continue
        words = split_words(visible_text(lst))
        if len(words) < LIST_WORDS:
            continue
        wrapper = lst.makeelement("div", {})
        wrapper.append(copy.deepcopy(lst))
        wrapper[0].tail = None
        markdown = fragment_to_markdown(wrapper)
        items = tuple(_item_openings(lst)) or (compact(word_key(" ".join(words[:BODY_WORDS]))),)
        if markdown:
            found.append(LostList(markdown, word_key(" ".join(closing[-BODY_WORDS:])), items))
    return found


def _item_openings(lst: Any) -> list[str]:
    """The opening words of each of the list's items that has ``ITEM_WORDS`` or more."""
    openings = []
    for item in lst.iterchildren("li"):
        words = split_words(inline_text(item))
        if len(words) >= ITEM_WORDS:
            openings.append(compact(word_key(" ".join(words[:ITEM_WORDS]))))
    return openings


def restore_lists(markdown: str, lists: list[LostList]) -> tuple[str, int]:
    """``markdown`` with each list the reading lost put back after the block before it; how many were."""
    if not lists:
        return markdown, 0
    lines = markdown.split("\n")
    keys = line_keys(lines)
    said = compact(" ".join(keys))
    taken: set[int] = set()
    inserts: dict[int, str] = {}
    for lost in lists:
        if any(item in said for item in lost.items):
            continue
        at = next((i for i, key in enumerate(keys) if i not in taken and _ends(key, lost.after)), None)
        if at is None:
            continue
        taken.add(at)
        inserts[at] = lost.markdown
    if not inserts:
        return markdown, 0
    out: list[str] = []
    for i, line in enumerate(lines):
        out.append(line)
        if i in inserts:
            out.extend(("", inserts[i]))
            if i + 1 < len(lines) and lines[i + 1].strip():
                out.append("")
    return "\n".join(out), len(inserts)


def _ends(key: str, closing: str) -> bool:
    return key == closing or key.endswith(" " + closing)
