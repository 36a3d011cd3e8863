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
from bisect import bisect_right
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

from hermes_nb.code_fences import CodeFences

from .tree import BLOCK_TAGS, BREAKS, UNSEEN, composed, document_base, squash, text_with_breaks, within

__all__ = ["link_target", "link_words"]

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
    href: str  # as the page writes it
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
    targets: dict[str, str | None] = {}  # each href's target, resolved once, for links placed only
    base: str | None = None  # the page's base address, found when the first link is placed
    cursor = 0
    for link in _page_links(root, reading):
        place = reading.place(link, cursor, taken)
        if place is None:
            continue
        start, end = place
        md_span = reading.markdown_span(start, end)
        if md_span is None or 1 in md_taken[md_span[0] : md_span[1]]:
            continue
        if link.href not in targets:
            base = document_base(root, url or "") if base is None else base
            targets[link.href] = link_target(link.href, base)
        target = targets[link.href]
        if target is None:
            continue
        taken[start:end] = b"\x01" * (end - start)
        md_taken[md_span[0] : md_span[1]] = b"\x01" * (md_span[1] - md_span[0])
        spans.append((*md_span, target))
        cursor = end  # the next link is looked for where the reading goes on from this one
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


def _page_links(root: Any, reading: _Reading) -> list[_Link]:
    """The page's links whose words the reading holds, in document order, with their context."""
    links: list[_Link] = []
    blocks: dict[Any, tuple[str, dict[Any, tuple[int, int]]]] = {}
    worth: dict[str, bool] = {}  # a link's text: whether the reading has every word of it
    for a in root.iter("a"):
        href = (a.get("href") or "").strip()
        if not href or href.startswith(("#", "javascript:")):  # no link a reader follows from the reading
            continue
        shown = (a.text or "") if len(a) == 0 else a.text_content()  # most links: a text and no child
        if shown not in worth:  # menus say "Home" twice or more: looked at once
            worth[shown] = len(shown) <= 2 * MAX_LINK_CHARS and reading.has_words(shown)
        if not worth[shown]:  # most menus' links: a word the reading lacks
            continue
        if within(a, _NO_LINKS):
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
        if not words or len(words) > MAX_LINK_CHARS or words not in reading.plain:
            continue
        line_start, line_end = text.rfind("\n", 0, start) + 1, text.find("\n", end)
        before = _words(text[max(line_start, start - 300) : start])[-CONTEXT_WORDS:]
        after = _words(text[end : min(end + 300, len(text) if line_end < 0 else line_end)])[:CONTEXT_WORDS]
        links.append(_Link(words, href, tuple(before), tuple(after)))
    return links


def link_target(href: str, base: str) -> str | None:
    """The link's absolute target as a Markdown link target; ``None`` for links a reader cannot follow
    from the reading (the page's own sections, scripts, other schemes, relative ones without a base)."""
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


def _words(text: str) -> list[str]:
    """The words of ``text`` as the reading has them (composed; spacing makes no word)."""
    return _WORD.findall(composed(text))


def _squash(text: str) -> str:
    return composed(squash(text))  # as the reading is


# --- the reading's words, and where each stands in its Markdown --------------------------------------


class _Reading:
    """The reading's words as a reader sees them (``plain``: marks and escapes gone, a newline between
    lines and between table cells, no code blocks), each character mapped to the Markdown that shows
    it (``start`` and ``end``: an escaped character's backslash included) and known as code or not.

    ``plain`` is built of runs, each a stretch of the Markdown read as it is (most lines are one), an
    escaped character, a newline that stands for no character, or a code span's text.
    """

    _TEXT, _ESCAPED, _VIRTUAL, _CODE = range(4)

    def __init__(self, markdown: str) -> None:
        self.markdown = markdown
        self._pieces: list[str] = []
        self._run_starts: list[int] = []  # where each run starts in ``plain``
        self._run_md: list[int] = []  # and in the Markdown
        self._run_kind: list[int] = []
        self._size = 0
        fences = CodeFences()
        offset = 0
        for line in markdown.split("\n"):
            if not fences.read(line):  # a fence, or a line of code: no words of the reading
                self._read_line(line, offset)
            self._add("\n", offset + len(line), self._VIRTUAL)
            offset += len(line) + 1
        self.plain = "".join(self._pieces)
        self._vocabulary: set[str] | None = None

    def _add(self, text: str, md_start: int, kind: int = 0) -> None:
        self._pieces.append(text)
        self._run_starts.append(self._size)
        self._run_md.append(md_start)
        self._run_kind.append(kind)
        self._size += len(text)

    def _run(self, i: int) -> int:
        return bisect_right(self._run_starts, i) - 1

    def start(self, i: int) -> int:
        """Where the Markdown that shows ``plain[i]`` starts."""
        run = self._run(i)
        return self._run_md[run] + (i - self._run_starts[run])

    def end(self, i: int) -> int:
        """Where it ends."""
        kind = self._run_kind[self._run(i)]
        return self.start(i) + (2 if kind == self._ESCAPED else 0 if kind == self._VIRTUAL else 1)

    def coded(self, i: int) -> bool:
        return 0 <= i < self._size and self._run_kind[self._run(i)] == self._CODE

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
                self._add(line[i + 1], offset + i, self._ESCAPED)
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
                self._add("\n", offset + i, self._VIRTUAL)
                space = True
            elif c.isspace():
                if not space:
                    self._add(" ", offset + i)
                space = True
            else:  # a "<" that opens no inline tag, a "\\" that escapes nothing
                self._add(c, offset + i)
                space = False
            i += 1

    def _add_run(self, line: str, start: int, end: int, offset: int, *, code: bool = False) -> None:
        self._add(line[start:end], offset + start, self._CODE if code else self._TEXT)

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

    def has_words(self, text: str) -> bool:
        """Whether ``text`` has words and ``plain`` each of them (a quick test before the search)."""
        if self._vocabulary is None:
            self._vocabulary = set(_WORD.findall(self.plain))
        words = _WORD.findall(text)
        return bool(words) and self._vocabulary.issuperset(words)

    def place(self, link: _Link, cursor: int, taken: bytearray) -> tuple[int, int] | None:
        """Where ``link`` stands in ``plain``: its first place after ``cursor``, else before it."""
        for begin, stop in ((cursor, len(self.plain)), (0, cursor + len(link.words) - 1)):
            start = self.plain.find(link.words, begin, stop)
            while start >= 0:
                end = start + len(link.words)
                if 1 not in taken[start:end] and self._fits(link, start, end):
                    return start, end
                start = self.plain.find(link.words, start + 1, stop)
        return None

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
        md_start, md_end = self.start(start), self.end(end - 1)
        while self.coded(start) and md_start and md[md_start - 1] == "`":  # a whole code span: its
            md_start -= 1  # backticks go in too
        while self.coded(end - 1) and md_end < len(md) and md[md_end] == "`":
            md_end += 1
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
        return self.coded(i) and self.coded(j) and self.end(i) == self.start(j)


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
