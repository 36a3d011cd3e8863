"""Titles a reading lost beside text it kept: section headings, FAQ questions, card titles.

Three kinds of markup put a block's title where an extractor does not read it.

- trafilatura, when it finds no element named like a content container, reads the page's paragraphs
  one by one and leaves every heading out: an article came back as its paragraphs without one of its
  section headings.
- An accordion writes each question as a button (``aria-controls`` naming the answer's panel), and
  extractors drop buttons as controls: the reading kept every answer and none of the questions.
- A card written as one link (a heading and its blurb inside a single ``<a>``, see ``block_links.py``)
  loses its heading to the link-text test that its longer blurb passes: a page of services read as
  their blurbs without their names.

Each such pair is found in the page before it is prepared (the title, its heading level, and the
opening words of the text it titles). After a reading is chosen, a title goes back on a line of its
own before the first line that opens with its text's words, unless the reading has it there already,
or as a line of its own, or it is the page's title (which readings leave out on purpose). A title
whose text the reading left out stays out: the reading's choice of content does not change. Linked
headings (teasers' headlines, whose blurbs are a "more stories" strip on an article) count only on a
listing or grid, where the teasers are the content.

On the tune part of WCXB: +0.0010 F1 overall, both halves up (service +0.0033, collection +0.0016,
article +0.0008); Readability's pages unchanged (0.9603).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from .block_links import BLURB_WORDS, HEADINGS, card_links
from .lines import BODY_WORDS, compact, line_keys
from .markdown_escapes import escaped, escaped_block_start
from .scripts import split_words, word_count, word_key
from .tree import UNSEEN, inline_text

__all__ = ["Label", "page_labels", "restore_labels"]

#: Words a toggle needs to be a title rather than a control ("Read more", "Show details").
TOGGLE_WORDS = 3
#: Words a title may have: longer text in a toggle is a paragraph, not a title.
TITLE_WORDS = 30
#: Levels up from a heading its text is looked for after (a heading that ends its wrapper).
FOLLOWING_LEVELS = 3
SECTION_HEADINGS = HEADINGS[1:]  # the h1 is the page's title, which a reading leaves out on purpose
_TOGGLES = "//*[@aria-controls][self::button or @role='button' or @aria-expanded]"


@dataclass(frozen=True)
class Label:
    """A title (``level`` 1–6 for a heading, 0 for a line of its own) and its text's opening words."""

    title: str
    level: int
    opening: str  # the word key of the titled text's first ``BODY_WORDS`` words


def page_labels(root: Any, *, headlines: bool = False) -> list[Label]:
    """The page's section headings, toggle questions and card-link titles, with the opening words of
    what each titles; with ``headlines`` (a listing's or grid's page), linked headings too."""
    found = [*_section_labels(root, headlines), *_toggle_labels(root), *_card_link_labels(root)]
    return list(dict.fromkeys(found))  # a question in a heading is found as both


def restore_labels(markdown: str, labels: list[Label], *, title: str = "") -> tuple[str, int]:
    """``markdown`` with each label the reading lost put back before its text; how many were.

    A label that says the page's ``title`` stays out: a reading leaves the title out on purpose.
    """
    if not labels:
        return markdown, 0
    lines = markdown.split("\n")
    keys = line_keys(lines)
    own_lines = {compact(key) for key in keys}
    page_title = compact(word_key(title))
    # The lines that open with each run of ``BODY_WORDS`` words, in order; labels come in page order,
    # so texts that open alike take their titles in turn, a title that stays out (the page's, or one
    # the reading has) holding its text's line all the same.
    opening_lines: dict[str, list[int]] = {}
    for i, key in enumerate(keys):
        opening_lines.setdefault(" ".join(key.split(" ")[:BODY_WORDS]), []).append(i)
    inserts: dict[int, list[str]] = {}
    for label in labels:
        title_key = compact(word_key(label.title))
        waiting = opening_lines.get(label.opening)
        if not waiting:
            continue
        at = waiting.pop(0)
        if title_key in own_lines or (page_title and title_key in page_title):
            continue
        if title_key in compact(keys[at]) or title_key in compact(_line_before(keys, at)):
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


def _line_before(keys: list[str], at: int) -> str:
    return next((keys[i] for i in range(at - 1, -1, -1) if keys[i]), "")


def _section_labels(root: Any, headlines: bool) -> Iterator[Label]:
    """Headings below the page's title, with the opening words of the text that follows each; linked
    headings (teasers' headlines) only with ``headlines``."""
    for heading in root.iter(*SECTION_HEADINGS):
        title = inline_text(heading)
        if not title or word_count(title) > TITLE_WORDS or (not headlines and _linked(heading, title)):
            continue
        opening = _words_following(heading)
        if len(opening) >= BODY_WORDS:
            yield Label(title, int(heading.tag[1]), word_key(" ".join(opening[:BODY_WORDS])))


def _linked(heading: Any, title: str) -> bool:
    """True when the heading's text is a link's: a teaser's headline, whose blurb is not its section."""
    if next(heading.iterancestors("a"), None) is not None:
        return True
    return any(inline_text(a) == title for a in heading.iter("a"))


def _words_following(el: Any, *, within: Any = None) -> list[str]:
    """The first ``BODY_WORDS`` words after ``el``: its tail, its next siblings' text, then the same
    for its parent — up to ``FOLLOWING_LEVELS`` levels, or up to ``within`` when given."""
    found = split_words(el.tail or "")
    levels = 0
    while len(found) < BODY_WORDS:
        for sibling in el.itersiblings():
            if isinstance(sibling.tag, str) and sibling.tag not in UNSEEN:
                for text in sibling.itertext("*"):
                    found.extend(split_words(text))
                    if len(found) >= BODY_WORDS:
                        return found
            found.extend(split_words(sibling.tail or ""))
        el, levels = el.getparent(), levels + 1
        if el is None or el is within or el.tag == "body" or (within is None and levels >= FOLLOWING_LEVELS):
            break
        found.extend(split_words(el.tail or ""))
    return found


def _toggle_labels(root: Any) -> Iterator[Label]:
    """Buttons that open a panel (``aria-controls``) holding at least ``BLURB_WORDS`` words."""
    toggles = root.xpath(_TOGGLES)
    if not toggles:
        return
    ids = {el.get("id"): el for el in root.xpath("//*[@id]")}
    for toggle in toggles:
        panel = ids.get((toggle.get("aria-controls") or "").split(" ")[0])
        title = inline_text(toggle)
        if panel is None or not TOGGLE_WORDS <= word_count(title) <= TITLE_WORDS:
            continue
        if toggle in panel.iterancestors():  # a panel around its own toggle is not an answer
            continue
        opening = _first_words(panel, BLURB_WORDS)
        if len(opening) >= BLURB_WORDS:
            yield Label(title, _heading_level(toggle), word_key(" ".join(opening[:BODY_WORDS])))


def _card_link_labels(root: Any) -> Iterator[Label]:
    """Headings of card links, with the opening words of the blurb after the heading."""
    for link, headings in card_links(root):
        if not headings:
            continue
        heading = headings[0]
        title = inline_text(heading)
        if not title or word_count(title) > TITLE_WORDS:
            continue
        opening = _words_following(heading, within=link)
        if len(opening) >= BODY_WORDS:
            yield Label(title, int(heading.tag[1]), word_key(" ".join(opening[:BODY_WORDS])))


def _first_words(el: Any, n: int) -> list[str]:
    """The first ``n`` or more words of ``el``'s text (read no further than needed)."""
    found: list[str] = []
    for text in el.itertext():
        found.extend(split_words(text))
        if len(found) >= n:
            break
    return found


def _heading_level(el: Any) -> int:
    """The level of the heading ``el`` sits in, 0 when it sits in none."""
    for ancestor in el.iterancestors(*HEADINGS):
        return int(ancestor.tag[1])
    return 0
