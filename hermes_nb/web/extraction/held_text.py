"""Text trafilatura would mangle, held while it reads the shared tree and given back after.

``hold_for_trafilatura`` writes stand-ins into the tree's texts; ``Held.release`` puts the tree back
as it was (the tree is shared by every candidate), and ``Held.given_back`` turns the stand-ins in
trafilatura's reading back into what the page said.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from .markdown_escapes import escaped_references
from .tree import BLOCK_TAGS, CODE_TAGS, within

__all__ = ["Held", "UNCLOSED_MATH", "hold_for_trafilatura"]


@dataclass
class Held:
    """The texts changed in the tree (element, ``"text"`` or ``"tail"``, the value before), in order."""

    changes: list[tuple[Any, str, str]] = field(default_factory=list)
    stand_ins: bool = False  # whether any of ``_STAND_INS`` or ``_BACKSLASH`` went in

    def release(self) -> None:
        """Put every changed text back, the last change first (a tail held twice gets its first value)."""
        for el, attr, value in reversed(self.changes):
            setattr(el, attr, value)

    def given_back(self, text: str) -> str:
        """trafilatura's reading with the held characters back (a held backslash escaped for Markdown)."""
        text = text.replace(_SPACE_KEEPER, "")
        if not self.stand_ins:
            return text
        for char, stand_in in _STAND_INS.items():
            text = text.replace(stand_in, char)
        return text.replace(_BACKSLASH, "\\\\")


def hold_for_trafilatura(root: Any) -> Held:
    """Write the stand-ins into ``root``'s texts; what changed, to release after trafilatura has read."""
    marks = _hold_spaces_around_marks(root)
    fields = _hold_spaces_between_item_fields(root)
    mangled = _hold_mangled(root)  # after: released first, the texts as they were held
    return Held(marks + fields + mangled, stand_ins=bool(mangled))


#: trafilatura's Markdown drops the space after a bold or italic element that opens a block
#: (``<li><b>Fast</b> setup</li>`` reads ``**Fast**setup``, one word): it trims the tail's leading space;
#: and, in a ``<div>`` of a list item, the space before one (``Verified <b>purchase</b>`` read
#: ``Verified**purchase**``). A character it deletes (a private-use one) put on the far side of such a
#: space keeps it from the trim.
_SPACE_KEEPER = "\ue000"
_MARKS = ("b", "strong", "em", "i", "u", "code", "kbd", "sub", "sup", "del", "s", "mark")


def _hold_spaces_around_marks(root: Any) -> list[tuple[Any, str, str]]:
    """Put ``_SPACE_KEEPER`` before the space after each mark element and after the space before it;
    the texts it changed, to restore."""
    held = []
    for el in root.iter(*_MARKS):
        tail = el.tail
        if tail and tail[0].isspace():
            held.append((el, "tail", tail))
            el.tail = _SPACE_KEEPER + tail
        before = el.getprevious()
        owner, attr = (before, "tail") if before is not None else (el.getparent(), "text")
        text = getattr(owner, attr) if owner is not None else None
        if text and text[-1].isspace() and text.strip():
            held.append((owner, attr, text))
            setattr(owner, attr, text + _SPACE_KEEPER)
    return held


# A list item often holds a card's fields a ``<div>`` each (a label and its value, a title and a price),
# which a browser shows on lines of their own; trafilatura reads the item as one line and joins the
# fields' text with nothing between ("Print length320 pages", "SKU: NKZ5M2K2MFR: 2020"). Each field
# after the first (an innermost ``<div>`` holding text, no block inside it) starts with a held space.
def _hold_spaces_between_item_fields(root: Any) -> list[tuple[Any, str, str]]:
    """Put ``_SPACE_KEEPER`` and a space before the text of each list item's fields but the first;
    the texts it changed, to restore."""
    held = []
    for item in root.iter("li"):
        fields = [
            div for div in item.iterdescendants("div")
            if next(div.iterdescendants(*BLOCK_TAGS), None) is None and div.text_content().strip()
            and next(div.iterancestors("li")) is item  # a nested list's fields are its own items'
        ]
        for div in fields[1:]:
            first = _first_text(div)
            if first is not None:
                el, attr = first
                value = getattr(el, attr)
                held.append((el, attr, value))
                setattr(el, attr, f"{_SPACE_KEEPER} {value}")
    return held


def _first_text(el: Any) -> tuple[Any, str] | None:
    """Where the first words inside ``el`` are: an element's ``"text"`` or a child's ``"tail"``."""
    if (el.text or "").strip():
        return el, "text"
    for child in el:
        if not isinstance(child.tag, str):
            continue
        found = _first_text(child)
        if found is not None:
            return found
        if (child.tail or "").strip():
            return child, "tail"
    return None


#: Text trafilatura mangles, held while it reads the page: each character becomes a stand-in (a
#: printable one, which its filters keep and count as they would the character), given back after.
#:
#: - trafilatura unescapes its finished text once more (``html.unescape``), after the parser already
#:   had: a page about escaping that shows ``&lt;blink&gt;`` read ``<blink>``, and "AT&T &copy" read
#:   "AT&T ©". So each ``&`` is held; one that opens a character reference in prose also gets the
#:   backslash Markdown needs to show it (``\&lt;``), while code shows its text as it is.
#: - it deletes every character that is not printable, the zero-width joiners with the rest: Persian
#:   lost each non-joiner inside its words ("می‌خواهم" read "میخواهم"), Indic scripts the joiners
#:   that choose a letter's form, and emoji sequences fell apart (🧑‍💻 read 🧑💻). Both are held
#:   where they join (between two characters); one alone or by a space (a blank paragraph some editors
#:   write as ``<p>&zwj;</p>``) is left to go.
#: - its search for ``\(…\)`` and ``\[…\]`` formulas takes time in the square of a text's length
#:   when the openers are not closed (100 KB of them took 15 s). A text with more than
#:   ``UNCLOSED_MATH`` unclosed openers has its backslashes held, and given back escaped.
_STAND_INS = {
    "&": "\u2bd2",  # GROUP MARK: symbols no page's text is expected to hold (checked)
    "\u200c": "\u2bd3",  # ZERO WIDTH NON-JOINER: PLUTO FORM TWO
    "\u200d": "\u2bd4",  # ZERO WIDTH JOINER: PLUTO FORM THREE
}
_BACKSLASH = "\u2bd1"  # UNCERTAINTY SIGN: likewise
UNCLOSED_MATH = 50


def _hold_mangled(root: Any) -> list[tuple[Any, str, str]]:
    """Put the stand-ins in the page's text for trafilatura's reading; the texts changed, to restore."""
    found = _texts_to_hold(root)
    if any(_STAND_IN.search(getattr(el, attr)) for el, attr in found):
        return []  # a page that uses a stand-in itself
    held = []
    for el, attr in found:
        value = written = getattr(el, attr)
        holder = el.getparent() if attr == "tail" else el
        in_code = holder is not None and within(holder, CODE_TAGS)
        if not in_code and _unclosed_math(written):  # first: the backslashes below are Markdown's
            written = written.replace("\\", _BACKSLASH)
        if "&" in written and not in_code:
            written = escaped_references(written)
        written = written.replace("&", _STAND_INS["&"])
        written = _JOINING.sub(lambda joiner: _STAND_INS[joiner.group()], written)
        if written != value:
            held.append((el, attr, value))
            setattr(el, attr, written)
    return held


def _unclosed_math(text: str) -> bool:
    return (text.count("\\(") - text.count("\\)") > UNCLOSED_MATH
            or text.count("\\[") - text.count("\\]") > UNCLOSED_MATH)


def _texts_to_hold(root: Any) -> list[tuple[Any, str]]:
    """The texts and tails (not of scripts and styles) holding a character to hold or a stand-in."""
    found = []
    for el in root.iter():
        read = isinstance(el.tag, str) and el.tag not in ("script", "style")
        if read and el.text and _TO_HOLD.search(el.text):
            found.append((el, "text"))
        if el.tail and _TO_HOLD.search(el.tail):
            found.append((el, "tail"))
    return found


_JOINING = re.compile("(?<=\\S)[\u200c\u200d](?=\\S)")
_STAND_IN = re.compile(f"[{''.join(_STAND_INS.values())}{_BACKSLASH}]")
_TO_HOLD = re.compile(f"[{re.escape(''.join(_STAND_INS))}\\\\{''.join(_STAND_INS.values())}{_BACKSLASH}]")

