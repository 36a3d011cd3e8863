"""Text decoded twice: UTF-8 read as windows-1252 (or Latin-1) and saved again, read as it was written.

A page whose server or editor decoded its UTF-8 with the wrong charset, then wrote the result out as
UTF-8 again, shows "fÃ¼r" for "für", "â€™" for "’" and "Â " for a no-break space; the bytes are
right, one layer down. A browser shows the garbage, and the readings passed it on: "LastenrÃ¤der" is
no word a search or a reader knows. Each run of characters that a windows-1252 (or Latin-1) reading
of UTF-8 produces, and that decodes as UTF-8 to letters and marks of the kinds such pages hold
(Latin, Greek and Cyrillic letters, punctuation and symbols, CJK, Hangul, emoji), is put back.

A run that is no valid UTF-8 stays, so does one that would decode to anything else: an upper-case
word that ends in an accented letter before an ellipsis ("CAFÉ…") or a quotation mark ("FUß“") is
valid UTF-8 for a letter of another alphabet, and is not touched. Code is left as written (a post
about encodings shows such runs on purpose). The tree is repaired before any reading (trafilatura
deletes the control characters that stand for bytes windows-1252 leaves undefined, so "”" could not
be put back after it); only pages that show one of the signs of the damage are searched, since a
search of every page's text cost a tenth of the extraction's time.
"""

from __future__ import annotations

import re
from typing import Any

from .tree import CODE_TAGS, texts_outside

#: Each character a windows-1252 reading gives a byte from 0x80 up, and Latin-1's control characters
#: for the five bytes windows-1252 leaves undefined: the character, and the byte it was.
_BYTE: dict[str, int] = {}
for _b in range(0x80, 0x100):
    try:
        _BYTE[bytes([_b]).decode("cp1252")] = _b
    except UnicodeDecodeError:
        pass
    _BYTE.setdefault(chr(_b), _b)


def _reading_of(low: int, high: int) -> str:
    return "".join(re.escape(char) for char, byte in _BYTE.items() if low <= byte <= high)


_CONTINUATION = _reading_of(0x80, 0xBF)
#: A run of UTF-8 sequences, each its lead byte and continuation bytes, as windows-1252 shows them.
_RUN = re.compile(
    f"(?:[{_reading_of(0xC2, 0xDF)}][{_CONTINUATION}]|[{_reading_of(0xE0, 0xEF)}][{_CONTINUATION}]{{2}}"
    f"|[{_reading_of(0xF0, 0xF4)}][{_CONTINUATION}]{{3}})+"
)
#: The code points a double-decoded page's runs stand for: Latin-1 and Latin Extended-A letters,
#: Greek and Cyrillic, punctuation and symbols, CJK, Hangul, full-width forms, emoji.
_PLAUSIBLE = re.compile(
    "[\u00a0-\u017f\u0370-\u04ff\u2000-\u2bff\u3000-\u9fff\uac00-\ud7af\uff00-\uffef\U0001f000-\U0001faff]+"
)
#: The characters a run opens with: a text that holds none holds no run (tested before the pattern).
_LEADS = frozenset(char for char, byte in _BYTE.items() if 0xC2 <= byte <= 0xF4)


def repair_mojibake(text: str) -> tuple[str, int]:
    """``text`` with each double-decoded run read as it was written; how many runs."""
    if _LEADS.isdisjoint(text):
        return text, 0
    repaired = 0

    def back(match: re.Match[str]) -> str:
        nonlocal repaired
        run = match.group()
        try:
            original = bytes(_BYTE[char] for char in run).decode("utf-8")
        except UnicodeDecodeError:
            return run
        if not _PLAUSIBLE.fullmatch(original):
            return run
        repaired += 1
        return original

    return _RUN.sub(back, text), repaired


#: What nearly every double-decoded page holds: a lead of a two-byte letter (Ã, Â; Ð, Ñ for Cyrillic)
#: or the start of a quotation mark or dash (â€, or â and a control character where Latin-1 was the
#: charset). A page without any is not searched further.
_SIGNS = ("Ã", "Â", "â€", "â\x80", "Ð", "Ñ")


def may_hold_mojibake(html: str) -> bool:
    """Whether ``html`` holds any sign of double-decoded text (a fast test of the raw page)."""
    return any(sign in html for sign in _SIGNS)


def repair_mojibake_in_tree(root: Any) -> int:
    """``repair_mojibake`` on every text of the tree outside code and on ``<meta>`` contents (the
    title and description are read from them); how many runs."""
    repaired = 0
    for owner, attr, text in texts_outside(root, CODE_TAGS):
        text, n = repair_mojibake(text)
        if n:
            setattr(owner, attr, text)
            repaired += n
    for meta in root.iter("meta"):
        value, n = repair_mojibake(meta.get("content") or "")
        if n:
            meta.set("content", value)
            repaired += n
    return repaired
