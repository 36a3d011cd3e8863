"""The page's links put back into its reading: the words a page links, as Markdown links to their targets.

The extractors read a page's words and drop its links (trafilatura keeps them only when asked, and
then every step after it would have to read around them). A reader in a notebook expects what a
browser shows: "see the [release notes](https://…)". So the reading is made without links, and this
step puts them back at the end, into the Markdown the steps chose.

A link goes back only where its place in the reading is certain: its words are found there, at word
boundaries, with the words the page shows around it in its block (up to ``CONTEXT_WORDS`` on each
side); a link that is a block's first or last words stands at the start or end of a line of the
reading, unless ``SURE_WORDS`` on its other side place it. A menu's "Home" is not linked in a
sentence that says "Home". Links to the page itself (``#section``), to scripts and to anything but
``http``, ``https`` and ``mailto`` stay words, as do links inside code, links holding blocks (a card
written as one link) and links whose words the reading wraps in marks or brackets a link cannot cross.

``text`` and every count of words read the same with or without the links (``formats`` reads a link
as its words).
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from hermes_nb.code_fences import CodeFences

from .tree import BLOCK_TAGS, BREAKS, UNSEEN, document_base, text_with_breaks, within

__all__ = ["link_words"]

CONTEXT_WORDS = 3  # words on each side of a link that must read the same around its place
#: Words on one side that place a link that ends (starts) its block even where the reading runs that
#: block on into the next on one line ("… see [the docs](…). For a card …": two <p> of a list item).
SURE_WORDS = 2
MAX_LINK_CHARS = 300  # a longer "link" is a card or a block written as one link, not a phrase
_SCHEMES = ("http", "https", "mailto")
#: What a Markdown reader would misread in a link's target (whitespace ends it, an unbalanced
#: parenthesis closes it, "|" splits a table row, a backtick opens code): percent-encoded. A reader's
#: own characters (é, ü) stay as written, and so does "%", so an encoded target is not encoded twice.
_MISREAD_IN_TARGET = re.compile(r"[\s()<>|\"\\`\x00-\x1f\x7f]")
_WORD = re.compile(r"\w+")
_SPACE = re.compile(r"\s+")
_NO_LINKS = frozenset((*UNSEEN, "pre", "code"))  # a link in these is no link of the reading
#: A Markdown line's block marks: heading, quote, list item (a bullet or a number), before its words.
_LINE_START = re.compile(r"^\s*(?:>\s?)*(?:#{1,6}\s+|(?:[-*+]|\d{1,9}[.)])\s+)?")
_INLINE_TAG = re.compile(r"</?(?:sup|sub|u)>")
_MARKS = "*_~"  # emphasis and strike-through marks (code spans are read apart)
_ESCAPABLE = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")  # what a backslash escapes (CommonMark)
#: What ``_Reading`` must read character by character: marks, escapes, tags, cell borders, a run of
#: whitespace or whitespace other than a space.
_SPECIAL = re.compile(r"[\\`*_~<|]|\s\s|[^\S ]")
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


@dataclass(frozen=True)
class _Link:
    words: str  # the link's text, whitespace squashed
    target: str  # absolute, as a Markdown link target
    before: tuple[str, ...]  # the words before it in its block (at most CONTEXT_WORDS)
    after: tuple[str, ...]


def link_words(markdown: str, root: Any, url: str | None) -> tuple[str, int]:
    """``markdown`` with the words ``root``'s links show linked to their targets, and how many."""
    if not markdown or next(root.iter("a"), None) is None:
        return markdown, 0
    reading = _Reading(markdown)
    if not reading.plain.strip():
        return markdown, 0
    spans: list[tuple[int, int, str]] = []
    taken = bytearray(len(reading.plain))  # 1 where a character of ``plain`` is linked already
    md_taken = bytearray(len(markdown))  # and of the Markdown, marks around it included
    cursor = 0
    for link in _page_links(root, url, reading):
        place = reading.place(link, cursor, taken)
        if place is None:
            continue
        start, end = place
        md_span = reading.markdown_span(start, end)
        if md_span is None or 1 in md_taken[md_span[0] : md_span[1]]:
            continue
        taken[start:end] = b"\x01" * (end - start)
        md_taken[md_span[0] : md_span[1]] = b"\x01" * (md_span[1] - md_span[0])
        spans.append((*md_span, link.target))
        cursor = end
    if not spans:
        return markdown, 0
    pieces: list[str] = []
    done = 0
    for md_start, md_end, target in sorted(spans):
        pieces += (markdown[done:md_start], "[", markdown[md_start:md_end], "](", target, ")")
        done = md_end
    pieces.append(markdown[done:])
    return "".join(pieces), len(spans)


# --- the page's links, each with the words around it -------------------------------------------------


def _page_links(root: Any, url: str | None, reading: _Reading) -> list[_Link]:
    """The page's links whose words the reading holds, in document order, with their context."""
    base = document_base(root, url or "")
    links: list[_Link] = []
    blocks: dict[Any, tuple[str, dict[Any, tuple[int, int]]]] = {}
    for a in root.iter("a"):
        if not a.get("href"):
            continue
        words = _squash(a.text_content())
        if not words or len(words) > MAX_LINK_CHARS or not reading.holds(words):  # most menus' links
            continue
        target = _target(a.get("href"), base)
        if target is None or within(a, _NO_LINKS):
            continue
        block = _block_of(a)
        if block not in blocks:
            blocks[block] = text_with_breaks(block, spans_of="a")
        text, offsets = blocks[block]
        if a not in offsets:
            continue
        start, end = offsets[a]
        inside = text[start:end].strip()
        if "\n" in inside:  # a link holding blocks (a card): no phrase to link
            continue
        words = _squash(inside)  # what a reader sees of it (a script or style inside it is no word)
        if not words or not reading.holds(words):
            continue
        before = _WORD.findall(_squash(text[:start].rsplit("\n", 1)[-1]))[-CONTEXT_WORDS:]
        after = _WORD.findall(_squash(text[end:].split("\n", 1)[0]))[:CONTEXT_WORDS]
        links.append(_Link(words, target, tuple(before), tuple(after)))
    return links


def _target(href: str | None, base: str) -> str | None:
    """The link's absolute target as a Markdown link target; ``None`` for links a reader cannot follow
    from the reading (the page's own sections, scripts, other schemes, relative ones without a base)."""
    href = (href or "").strip()
    if not href or href.startswith("#"):
        return None
    try:
        absolute = urljoin(base, href)
        parts = urlsplit(absolute)
    except ValueError:  # a malformed target ("http://[x")
        return None
    if parts.scheme.lower() not in _SCHEMES or (parts.scheme.lower() != "mailto" and not parts.netloc):
        return None
    if base and absolute.split("#", 1)[0] == base.split("#", 1)[0] and parts.fragment:
        return None  # this very page, at one of its sections
    return _MISREAD_IN_TARGET.sub(lambda m: quote(m.group(), safe=""), absolute)


def _block_of(el: Any) -> Any:
    for parent in el.iterancestors():
        if parent.tag in BLOCK_TAGS or parent.tag in BREAKS or parent.tag == "body":
            return parent
    return el.getroottree().getroot()


def _squash(text: str) -> str:
    return unicodedata.normalize("NFC", _SPACE.sub(" ", text).strip())


# --- the reading's words, and where each stands in its Markdown --------------------------------------


class _Reading:
    """The reading's words as a reader sees them (``plain``: marks and escapes gone, a newline between
    lines and between table cells, no code blocks), each character mapped to the Markdown that shows
    it: ``starts[i]:ends[i]`` (an escaped character's backslash included), and whether it is code."""

    def __init__(self, markdown: str) -> None:
        self.markdown = markdown
        self.chars: list[str] = []
        self.starts: list[int] = []
        self.ends: list[int] = []
        self.coded: list[bool] = []
        fences = CodeFences()
        offset = 0
        for line in markdown.split("\n"):
            if not fences.read(line) and not fences.in_code:
                self._read_line(line, offset)
            self._add("\n", offset + len(line), offset + len(line))
            offset += len(line) + 1
        self.plain = "".join(self.chars)
        self._word_starts: dict[str, list[int]] = defaultdict(list)
        for match in _WORD.finditer(self.plain):
            self._word_starts[match.group()].append(match.start())

    def _add(self, char: str, start: int, end: int, *, code: bool = False) -> None:
        self.chars.append(char)
        self.starts.append(start)
        self.ends.append(end)
        self.coded.append(code)

    def _read_line(self, line: str, offset: int) -> None:
        """A line's words: block marks, emphasis marks, inline tags and escapes gone; whitespace one
        space; a code span's text as it is; a table's cell borders newlines."""
        i = len(_LINE_START.match(line).group())  # type: ignore[union-attr]  # it matches the empty string
        n = len(line)
        space = True
        while i < n:
            special = _SPECIAL.search(line, i)
            stop = special.start() if special else n
            if space and line[i] == " ":  # a space after whitespace read apart
                i += 1
                continue
            if stop > i:  # words and single spaces: each character itself, read in one go
                self._add_run(line, i, stop, offset)
                space = line[stop - 1] == " "
                i = stop
                continue
            c = line[i]
            if c == "`":
                i = self._code_span(line, i, offset)
                space = False
                continue
            if c == "\\" and i + 1 < n and line[i + 1] in _ESCAPABLE:
                self._add(line[i + 1], offset + i, offset + i + 2)
                i += 2
                space = False
                continue
            if c in _MARKS:
                i += 1
                continue
            if c == "<" and (tag := _INLINE_TAG.match(line, i)):
                i = tag.end()
                continue
            if c == "|":  # a table's cell border: its cells are blocks apart
                self._add("\n", offset + i, offset + i)
                space = True
            elif c.isspace():
                if not space:
                    self._add(" ", offset + i, offset + i + 1)
                space = True
            else:  # a "<" that opens no inline tag, a "\\" that escapes nothing
                self._add(c, offset + i, offset + i + 1)
                space = False
            i += 1

    def _add_run(self, line: str, start: int, end: int, offset: int, *, code: bool = False) -> None:
        self.chars.extend(line[start:end])
        self.starts.extend(range(offset + start, offset + end))
        self.ends.extend(range(offset + start + 1, offset + end + 1))
        self.coded.extend([code] * (end - start))

    def _code_span(self, line: str, i: int, offset: int) -> int:
        """Read the code span (or the lone backticks) at ``line[i]``; where reading goes on."""
        ticks = len(line) - len(line[i:].lstrip("`")) - i
        close = line.find("`" * ticks, i + ticks)
        while close >= 0 and line[close + ticks : close + ticks + 1] == "`":
            close = line.find("`" * ticks, close + ticks + 1)
        if close < 0:  # no closing run: the backticks are shown as they are
            self._add_run(line, i, i + ticks, offset)
            return i + ticks
        self._add_run(line, i + ticks, close, offset, code=True)
        return close + ticks

    def holds(self, words: str) -> bool:
        first = _WORD.search(words)
        return first is not None and first.group() in self._word_starts and words in self.plain

    def place(self, link: _Link, cursor: int, taken: bytearray) -> tuple[int, int] | None:
        """Where ``link`` stands in ``plain``: its first place after ``cursor``, else before it."""
        first = _WORD.search(link.words)
        if first is None:
            return None
        lead = first.start()  # characters before the link's first word ("(see" → 1)
        earliest = None
        for word_start in self._word_starts.get(first.group(), ()):
            start = word_start - lead
            end = start + len(link.words)
            if start < 0 or self.plain[start:end] != link.words or 1 in taken[start:end]:
                continue
            if (earliest is None or start >= cursor) and self._fits(link, start, end):
                if start >= cursor:
                    return start, end
                earliest = start, end
        return earliest

    def _fits(self, link: _Link, start: int, end: int) -> bool:
        """Whether the words around ``plain[start:end]`` are the link's: those it has in its block, or
        the start (end) of a line where it begins (ends) its block."""
        plain = self.plain
        if start and plain[start - 1].isalnum() and link.words[0].isalnum():
            return False
        if end < len(plain) and plain[end].isalnum() and link.words[-1].isalnum():
            return False
        if link.before:
            words = _WORD.findall(plain, max(0, start - 200), start)
            if tuple(words[-len(link.before) :]) != link.before:
                return False
        elif len(link.after) < SURE_WORDS and _WORD.search(plain, plain.rfind("\n", 0, start) + 1, start):
            return False
        if link.after:
            words = _WORD.findall(plain, end, end + 200)
            if tuple(words[: len(link.after)]) != link.after:
                return False
        elif len(link.before) < SURE_WORDS:
            line_end = plain.find("\n", end)
            if _WORD.search(plain, end, len(plain) if line_end < 0 else line_end):
                return False
        return True

    def markdown_span(self, start: int, end: int) -> tuple[int, int] | None:
        """The Markdown that shows ``plain[start:end]``, widened over the marks around it when they pair
        up inside it (``**Bold** rest``); ``None`` when marks, a code span or brackets would cross it."""
        if (start and self._one_code_span(start - 1, start)) or self._one_code_span(end - 1, end):
            return None  # it starts or ends inside a code span
        md = self.markdown
        md_start, md_end = self.starts[start], self.ends[end - 1]
        if self.coded[start]:  # a code span's first characters: its opening backticks go in too
            md_start = len(md[:md_start].rstrip("`"))
        if self.coded[end - 1]:
            md_end = len(md) - len(md[md_end:].lstrip("`"))
        for widen_left, widen_right in ((0, 0), (1, 0), (0, 1), (1, 1)):
            left, right = md_start, md_end
            if widen_left:
                while left and md[left - 1] in _MARKS:
                    left -= 1
            if widen_right:
                while right < len(md) and md[right] in _MARKS:
                    right += 1
            if _paired(md[left:right]):
                return left, right
        return None


    def _one_code_span(self, i: int, j: int) -> bool:
        """Whether the characters ``i`` and ``j`` of ``plain`` stand side by side in one code span."""
        return j < len(self.coded) and self.coded[i] and self.coded[j] and self.ends[i] == self.starts[j]


def _paired(md: str) -> bool:
    """Whether the marks in a piece of Markdown pair up inside it (so a link can wrap it), and it holds
    no bracket: escaped or in code, CommonMark reads "[`a[0]`](…)" as a link, but a reader of the
    Markdown by patterns (the text format's) would not."""
    if "[" in md or "]" in md:
        return False
    bare = _CODE_SPAN.sub("", re.sub(r"\\.", "", md))
    if "`" in bare:
        return False
    for run in ("**", "__", "~~"):
        if bare.count(run) % 2:
            return False
        bare = bare.replace(run, "")
    return all(bare.count(mark) % 2 == 0 for mark in "*_~")
