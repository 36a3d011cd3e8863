"""Titles a reading lost beside text it kept: FAQ questions in toggles, card titles in card links.

Two kinds of markup put a block's title where extractors do not read text. An accordion writes each
question as a button (``aria-controls`` naming the answer's panel), and extractors drop buttons as
controls: the reading keeps every answer and none of the questions. A card written as one link
(a heading and its blurb inside a single ``<a>``, see ``block_links.py``) loses its heading to the
same link-text test that its blurb passes once it is long enough: the reading keeps the blurbs of a
page of services and none of their names.

Each such pair is found in the page before it is prepared (a title, its heading level, and the
opening words of the text it titles). After a reading is chosen, a title is put back on its own line
before the first line that opens with its text's words, unless the reading already has the title
there or as a line of its own. A title whose text the reading left out stays out: only what the
reading kept gets its title back, so the choice of content is not changed.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .block_links import BLURB_WORDS, HEADINGS, card_links
from .markdown_escapes import escaped, escaped_block_start
from .scripts import split_words, word_count, word_key
from .tree import visible_text

__all__ = ["Label", "page_labels", "restore_labels"]

#: Opening words of a titled text that find it in the reading (fewer would find the wrong line).
BODY_WORDS = 6
#: Words a toggle needs to be a title rather than a control ("Read more", "Show details").
TOGGLE_WORDS = 3
#: Words a title may have: longer text in a toggle is a paragraph, not a title.
TITLE_WORDS = 30
_TOGGLES = "//*[@aria-controls][self::button or @role='button' or @aria-expanded]"
_LINK_TARGET = re.compile(r"\]\([^)]*\)")  # a Markdown link's target: not words of the text


@dataclass(frozen=True)
class Label:
    """A title (``level`` 1–6 for a heading, 0 for a line of its own) and its text's opening words."""

    title: str
    level: int
    opening: str  # the word key of the titled text's first ``BODY_WORDS`` words


def page_labels(root: Any) -> list[Label]:
    """The page's toggle questions and card-link titles, with the opening words of what each titles."""
    return [*_toggle_labels(root), *_card_link_labels(root)]


def restore_labels(markdown: str, labels: list[Label]) -> tuple[str, int]:
    """``markdown`` with each label the reading lost put back before its text; how many were."""
    if not labels:
        return markdown, 0
    lines = markdown.split("\n")
    keys = [word_key(_LINK_TARGET.sub("]", line)) for line in lines]
    own_lines = set(keys)
    inserts: dict[int, list[str]] = {}
    for label in labels:
        title_key = word_key(label.title)
        if title_key in own_lines:
            continue
        at = next((i for i, key in enumerate(keys) if _opens(key, label.opening)), None)
        if at is None or title_key in keys[at] or title_key in _line_before(keys, at):
            continue
        own_lines.add(title_key)
        text = escaped(label.title)
        inserts.setdefault(at, []).append(
            f"{'#' * label.level} {text}" if label.level else escaped_block_start(text)
        )
    if not inserts:
        return markdown, 0
    out: list[str] = []
    for i, line in enumerate(lines):
        for title in inserts.get(i, ()):
            out.extend((title, ""))
        out.append(line)
    return "\n".join(out), sum(len(titles) for titles in inserts.values())


def _opens(key: str, opening: str) -> bool:
    return key == opening or key.startswith(opening + " ")


def _line_before(keys: list[str], at: int) -> str:
    return next((keys[i] for i in range(at - 1, -1, -1) if keys[i]), "")


def _toggle_labels(root: Any) -> Iterator[Label]:
    """Buttons that open a panel (``aria-controls``) holding at least ``BLURB_WORDS`` words."""
    toggles = root.xpath(_TOGGLES)
    if not toggles:
        return
    ids = {el.get("id"): el for el in root.xpath("//*[@id]")}
    for toggle in toggles:
        panel = ids.get((toggle.get("aria-controls") or "").split(" ")[0])
        title = visible_text(toggle)
        if panel is None or not TOGGLE_WORDS <= word_count(title) <= TITLE_WORDS:
            continue
        if toggle in panel.iterancestors():  # a panel around its own toggle is not an answer
            continue
        opening = split_words(visible_text(panel))
        if len(opening) >= BLURB_WORDS:
            yield Label(title, _heading_level(toggle), word_key(" ".join(opening[:BODY_WORDS])))


def _card_link_labels(root: Any) -> Iterator[Label]:
    """Headings of card links, with the opening words of the blurb after the heading."""
    for link, headings in card_links(root):
        if not headings:
            continue
        heading = headings[0]
        title = visible_text(heading)
        if not title or word_count(title) > TITLE_WORDS:
            continue
        opening = _words_after(link, heading)
        if len(opening) >= BODY_WORDS:
            yield Label(title, int(heading.tag[1]), word_key(" ".join(opening[:BODY_WORDS])))


def _heading_level(el: Any) -> int:
    """The level of the heading ``el`` sits in, 0 when it sits in none."""
    for ancestor in el.iterancestors(*HEADINGS):
        return int(ancestor.tag[1])
    return 0


def _words_after(link: Any, heading: Any) -> list[str]:
    """The first ``BODY_WORDS`` words inside ``link`` that come after ``heading``."""
    found: list[str] = []
    for text in heading.xpath("following::text()[not(ancestor::script or ancestor::style)]"):
        owner = text.getparent()
        if text.is_tail and owner is link:  # past the link's end
            break
        if owner is not link and link not in owner.iterancestors():
            break
        found.extend(split_words(text))
        if len(found) >= BODY_WORDS:
            break
    return found
