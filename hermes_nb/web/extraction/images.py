"""The page's figures put back into its reading, where the words around them place them: ``![alt](src)``.

The extractors drop every image, so a chart, a diagram or a photograph the text goes on about was
gone from the Markdown, while Firecrawl's and Jina's Markdown and Readability's HTML keep them. An
image has no words of its own to be found by, so it is placed by the words on each side of it:

- the words the page shows after it (its caption passed over where the reading lacks it: up to
  ``SKIP_LETTERS`` letters, or its ``<figure>``'s whole ``<figcaption>``, which is read from its start
  or from its end, never from a word in its middle) must start a line of the reading; where two lines
  start with them ("Photo: …"; up to ``MAX_ALIKE``), the one whose words go on as the page's;
- the reading's last words before that line must be the page's words shortly before the image (a
  note between them, "Main article: …", passed over) or its caption's, where the reading keeps the
  caption; where those words run into a line the page shows elsewhere, a short line's alone (a
  heading, "Learn more") will do. The reading's first line has no words before it: it takes an image
  that only its caption parts from it (an article's lead picture).

The image then stands on a line of its own before that line, or, in a list, inside the item it
belongs to (so the list goes on). Words are compared as a reader's letters and digits in a row,
whatever the marks, spaces, tags and list numbers between them. An image the reading
does not run across (a menu's logo, a sidebar's thumbnail, a hero picture before the headline the
card shows) stays out, as do icons (a side drawn ``MIN_SIDE_PX`` or smaller, or named as an icon, an
avatar, a logo), images in code or in the page's menus, header, footer and sidebars, images that
would split a table or a quotation, a blurred preview whose real image a ``<noscript>`` holds, and
images with no ``http``/``https`` address (lazy loading's placeholder gives way to the address the
page keeps in ``data-src``, ``srcset`` or its own loader's attribute, or to the picture file the image
links to). A strip of pictures before the reading's first line is no lead picture. A figure the page
shows twice is placed once.

``text`` reads as without them: a line that is only images is no line of text (``formats``).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from os.path import commonprefix
from typing import Any

from hermes_nb.code_fences import CodeFences

from .caseless import Caseless
from .formats import LIST_ITEM, linked_text
from .hyperlinks import link_target
from .markdown_escapes import escaped
from .tree import LANDMARKS, UNSEEN, composed, document_base, names, squash

__all__ = ["place_images"]

#: Letters after a figure (its caption) that the reading may lack before the words it goes on with; and
#: before it, letters between the words that place it and the figure (a note the reading may lack).
SKIP_LETTERS = 120
MAX_CAPTION = 600  # letters of a figure's own <figcaption> passed over (more than SKIP_LETTERS), at most
ANCHOR_CHARS = 16  # a line's first letters and digits: found after a figure, they place it before that line
BEFORE_CHARS = 10  # the reading's letters before that line: the page's too, shortly before the figure
#: Lines that start alike, told apart by what follows, at most (more: a thread's "Posted by …" lines,
#: too many to tell a figure's place among at a cost that stays small).
MAX_ALIKE = 32
MIN_LINE_LETTERS = 4  # letters of a short line that say alone what the page shows before a figure
MIN_SIDE_PX = 48  # an image drawn with a side this small or smaller (width or height attribute): an icon
_NOT_WORD = re.compile(r"\W+")
_MARK = re.compile("\ue020(\\d+)\ue021")
#: An image in these is no figure of the reading: code, what is never shown, the page's furniture (its
#: menus, header, footer and sidebars).
_NO_FIGURES = (*UNSEEN, "pre", "code", *LANDMARKS)
_SIZE = re.compile(r"\s*(\d+)")
#: Names of images that are the page's furniture, not its figures.
_FURNITURE = Caseless(r"avatar|icon|emoji|logo|spinner|loader|badge|sprite|pixel|gravatar")
#: An address whose file is a spacer or a placeholder, not the picture (a transparent pixel, the one
#: image lazy loading shows in every picture's place until scripts put the picture there).
_SPACER = re.compile(
    r"(?:spacer|blank|transparent|pixel|1x1|placeholder)[^/?]*\.(?:gif|png|svg)(?:\?|$)",
    re.I,
)
#: An address of a picture file (a link from a picture to its full size).
_PICTURE_FILE = re.compile(r"\.(?:jpe?g|png|gif|webp|avif)(?:\?|$)", re.I)
#: Where an image's address is written: where lazy loading keeps it aside while ``src`` holds a
#: placeholder, then ``src``, then the first of a set of sizes.
_SOURCES = ("data-src", "data-lazy-src", "data-original", "src", "data-srcset", "srcset")
_SOURCE_NAME_ENDS = ("-src", "-srcset")  # and where lazy loaders of their own keep it
#: A line an image cannot follow without breaking what it belongs to: a table row, a quotation.
_HELD_LINE = re.compile(r"^\s*[|>]")


def place_images(markdown: str, root: Any, url: str | None) -> tuple[str, int]:
    """``markdown`` with ``root``'s figures on lines of their own where the words around them place them;
    how many."""
    if not markdown or next(root.iter("img"), None) is None:
        return markdown, 0
    figures = [img for img in root.iter("img") if _figure(img) and not _placeholder(img)]
    if not figures:
        return markdown, 0
    lines = markdown.split("\n")
    reading = _Reading(lines)
    base: str | None = None
    before_line: dict[int, list[str]] = {}
    from_items: set[int] = set()  # the places whose figures stand in a list item on the page
    shown: set[str] = set()
    captions = [_caption_letters(img) for img in figures]
    around = _text_around(root, figures, captions)
    for img, caption, (before, after) in zip(figures, captions, around, strict=True):
        place = reading.line_before(before, after, caption)
        if place is None or _inside_block(lines, place):
            continue
        base = document_base(root, url or "") if base is None else base
        source = _source(img, base)
        if source is None or source in shown:  # or placed already (a 2nd layout)
            continue
        image = f"![{_alt(img)}]({source})"
        if _copy(image, before_line.get(place, [])):  # the same figure at another size, at its place
            continue
        shown.add(source)
        before_line.setdefault(place, []).append(image)
        if next(img.iterancestors("li"), None) is not None:
            from_items.add(place)
    if len(before_line.get(reading.first, ())) > 1:  # a strip of pictures before the reading: no lead
        del before_line[reading.first]
    if not before_line:
        return markdown, 0
    return _with_figures(lines, before_line, from_items), sum(map(len, before_line.values()))


def _with_figures(lines: list[str], before_line: dict[int, list[str]], from_items: set[int]) -> str:
    """The reading's ``lines`` with the figures each stands before: on lines of their own, or inside the
    list item they belong to (after its first line, indented as its text, so that the list goes on)."""
    out: list[str] = []
    for i, line in enumerate(lines):
        images = before_line.get(i, ())
        indent = _item_indent(lines, i, i in from_items) if images else None
        if images and indent is None:
            if out and out[-1].strip():
                out.append("")
            lead = line[: len(line) - len(line.lstrip(" "))]  # a list item's next paragraph: in the item
            for image in images:
                out += (lead + image, "")
        out.append(line)
        if images and indent is not None:
            out += (indent + image for image in images)
    return "\n".join(out)


def _item_indent(lines: list[str], line: int, from_item: bool) -> str | None:
    """Where ``line`` is a list item that its figures belong in, the indent of the item's text: a figure
    from a list item on the page, or one that would part the list from an item before it, stands in
    the item (on a line of its own before it, it would end the list there); else ``None``."""
    item = LIST_ITEM.match(lines[line])
    if item is None:
        return None
    earlier = next((text for text in reversed(lines[:line]) if text.strip()), "")
    return " " * item.end() if from_item or LIST_ITEM.match(earlier) else None


def _text_around(root: Any, figures: list[Any], captions: list[int]) -> list[tuple[str, str]]:
    """The page's letters and digits before and after each of ``figures`` (as many as placing it looks at).

    The page's text is read once, in C: each figure marked in it for the while (an image has no text
    of its own), the text of scripts and style sheets set aside for the while."""
    from lxml import etree  # heavy: not on %load_ext's path

    unseen = [(el, el.text) for el in root.iter(*UNSEEN) if el.text]
    for el, _ in unseen:
        el.text = ""
    for i, img in enumerate(figures):
        img.text = f"\ue020{i}\ue021"
    try:
        text = etree.tostring(root, method="text", encoding="unicode")
    finally:
        for el, kept in unseen:
            el.text = kept
        for img in figures:
            img.text = None
    # Each figure's neighbourhood, whitespace squashed (in C) so that a page indented deep still shows
    # words there; then only those neighbourhoods read as letters.
    text = " ".join(text.split())
    # Three characters of text for each letter looked at (spaces, marks, digits), and some.
    reach = 3 * (BEFORE_CHARS + SKIP_LETTERS + ANCHOR_CHARS)
    around: list[tuple[str, str]] = [("", "")] * len(figures)
    for mark in _MARK.finditer(text):
        start, end = mark.span()
        i = int(mark.group(1))
        after = ANCHOR_CHARS + max(SKIP_LETTERS, captions[i])  # letters looked at after it
        around[i] = (
            _letters(_MARK.sub("", text[max(0, start - reach) : start]))[-(BEFORE_CHARS + SKIP_LETTERS) :],
            _letters(_MARK.sub("", text[end : end + 3 * (after + BEFORE_CHARS + ANCHOR_CHARS)]))[:after],
        )
    return around


class _Reading:
    """The reading as one run of a reader's letters and digits (code left out), where each line starts
    in it, and the lines known by the letters they start with."""

    def __init__(self, lines: list[str]) -> None:
        fences = CodeFences()
        parts: list[str] = []
        self.starts: list[int] = []  # where each line starts in ``letters``
        size = 0
        for line in lines:
            self.starts.append(size)
            if fences.read(line):  # a fence or a line of code: no words of the reading
                continue
            part = _letters(linked_text(LIST_ITEM.sub("", line, count=1)))  # "10. ": no words of the page
            parts.append(part)
            size += len(part)
        self.letters = "".join(parts)
        #: The first line with letters: what the page shows before it is not the reading's.
        self.first = bisect_right(self.starts, 0) - 1 if self.letters else -1
        self._lines: dict[str, list[int]] = {}  # a line's first letters: the lines that start with them
        for number, start in enumerate(self.starts):
            if number + 1 < len(self.starts) and self.starts[number + 1] == start:
                continue  # a line with no letters
            key = self.letters[start : start + ANCHOR_CHARS]
            if key:
                self._lines.setdefault(key, []).append(number)

    def line_before(self, before: str, after: str, caption: int = 0) -> int | None:
        """The line a figure stands before, from the page's letters ``before`` and ``after`` it and its
        caption's length: a line that starts with letters found at most ``SKIP_LETTERS`` (or the
        caption) into ``after`` and follows what the page shows before them; where lines start alike
        ("Photo: …"), the one whose letters go on as the page's do for longest; else ``None``."""
        for passed in range(min(len(after) - ANCHOR_CHARS, max(SKIP_LETTERS, caption)) + 1):
            if 0 < passed < caption:  # inside its own caption: no line goes on from the figure there
                continue
            lines = self._lines.get(after[passed : passed + ANCHOR_CHARS])
            if lines is None or len(lines) > MAX_ALIKE:
                continue
            page_before = before + after[: min(passed, caption)]  # a caption the reading keeps, too
            fitting = [line for line in lines if self._follows(line, page_before, passed <= caption)]
            if len(fitting) > 1:
                reach = [self._common(line, after[passed:]) for line in fitting]
                longest = max(reach)
                fitting = [line for line, n in zip(fitting, reach, strict=True) if n == longest]
            if len(fitting) == 1:
                return fitting[0]
            if len(lines) == 1:  # the one line that starts so follows other words than the page's
                return None
        return None

    def _follows(self, line: int, page_before: str, next_to: bool) -> bool:
        """Whether the reading's letters before ``line`` are in ``page_before``: its last ``BEFORE_CHARS``
        or, where those reach into a line the page does not show there, all of a short line right
        before it (a heading, "Learn more"). The reading's first line follows a figure ``next_to`` it
        (only its caption between them)."""
        start = self.starts[line]
        if not start:
            return next_to
        if self.letters[max(0, start - BEFORE_CHARS) : start] in page_before:
            return True
        earlier = self.starts[bisect_left(self.starts, start) - 1]  # where the line before it starts
        return start - earlier >= MIN_LINE_LETTERS and self.letters[earlier:start] in page_before

    def _common(self, line: int, after: str) -> int:
        """How many of ``after``'s letters the reading's letters from ``line`` on start with."""
        start = self.starts[line]
        return len(commonprefix([self.letters[start : start + len(after)], after]))


def _copy(image: str, placed: list[str]) -> bool:
    """Whether ``image`` says what one already placed at its place says (``alt`` and all): the same
    figure at another size."""
    words = image[: image.index("](")]
    return words != "![" and any(other.startswith(words + "](") for other in placed)


def _caption_letters(img: Any) -> int:
    """Letters of the caption of the ``<figure>`` holding ``img`` (0 without one), ``MAX_CAPTION`` at most."""
    figure = next(img.iterancestors("figure"), None)
    caption = figure.find(".//figcaption") if figure is not None else None
    return min(len(_letters(caption.text_content())), MAX_CAPTION) if caption is not None else 0


def _inside_block(lines: list[str], line: int) -> bool:
    """Whether ``line`` goes on a table or a quotation from the line before it, which a line of its own
    between them would break in two."""
    earlier = lines[line - 1] if line > 0 else ""
    held, goes_on = _HELD_LINE.match(earlier), _HELD_LINE.match(lines[line])
    return bool(held and goes_on and held.group().strip() == goes_on.group().strip())


def _figure(img: Any) -> bool:
    """Whether ``img`` is drawn as a figure: not an icon by its size or its name, not in code or in the
    page's furniture."""
    for side in ("width", "height"):
        size = _SIZE.match(img.get(side) or "")
        if size and 0 < int(size.group(1)) <= MIN_SIDE_PX:  # 0: no size given (scripts set it)
            return False
    if next(img.iterancestors(*_NO_FIGURES), None) is not None:
        return False
    parent = img.getparent()
    return not _FURNITURE.search(names(img) + (" " + names(parent) if parent is not None else ""))


def _source(img: Any, base: str) -> str | None:
    """The image's absolute ``http``/``https`` address as a Markdown target: the one lazy loading keeps
    aside, or the one a ``<noscript>`` beside a placeholder holds, before ``src``; a spacer's or a
    placeholder's is none, and a placeholder linked to a picture file gives way to that file."""
    for image in (_noscript_twin(img), img):
        if image is None:
            continue
        for attr in (*_SOURCES, *_other_sources(image)):
            value = (image.get(attr) or "").strip()
            if attr.endswith("srcset"):
                value = value.split(",")[0].strip().split(" ")[0]
            if not value or value.startswith(("data:", "{", "[")):  # inline data; a script's settings (JSON)
                continue
            target = _address(value, base)
            if target is not None:
                return target
    link = next(img.iterancestors("a"), None)
    target = _address(link.get("href") or "", base) if link is not None else None
    return target if target is not None and _PICTURE_FILE.search(target) else None


def _other_sources(img: Any) -> list[str]:
    """Where a lazy loader of its own keeps the address aside (``nitro-lazy-src``, ``data-hi-res-src``,
    ``lazy-srcset``): attributes named so, after the usual ones. A template's binding (``:data-src``) is
    an expression, not an address."""
    named = (name for name in img.attrib if name.endswith(_SOURCE_NAME_ENDS) and name[0].isalpha())
    return [name for name in named if name not in _SOURCES]


def _address(value: str, base: str) -> str | None:
    """``value`` as an absolute ``http``/``https`` address of a picture (no spacer's, no placeholder's)."""
    target = link_target(value, base)
    if target is None or not target.lower().startswith(("http://", "https://")) or _SPACER.search(target):
        return None
    return target


def _placeholder(img: Any) -> bool:
    """Whether ``img`` stands in for the image of a ``<noscript>`` in its figure, which is not its own:
    a blurred preview that scripts were to replace."""
    figure = next(img.iterancestors("figure", "picture"), None)
    return figure is not None and _noscript_twin(img) is None and figure.find(".//noscript//img") is not None


def _noscript_twin(img: Any) -> Any:
    """The one image of the ``<noscript>`` right after ``img`` (or after the element it alone fills):
    what a browser without scripts shows instead of a lazy placeholder."""
    for el in (img, img.getparent()):
        if el is None:
            return None
        twin = el.getnext()
        if twin is not None and twin.tag == "noscript":
            found = list(twin.iter("img"))
            return found[0] if len(found) == 1 else None
        if el is not img and len(el) > 1:
            return None
    return None


def _letters(text: str) -> str:
    """A reader's letters and digits of ``text`` in a row, lower case and composed."""
    return composed(_NOT_WORD.sub("", text).lower())


def _alt(img: Any) -> str:
    return escaped(squash(img.get("alt") or ""))
