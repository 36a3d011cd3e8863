"""Words and sentence ends, counted alike in every script: what the thresholds and agreement measure.

Chinese and Japanese are written without spaces between words, so ``\\w+`` (or ``str.split``) read a
whole clause as one word: a Chinese article of 2,000 characters counted as a few dozen words, too few
to be confident in and too few to be prose, and it was typed a listing. Each Han, Hiragana or
Katakana character counts as a word here (what word counters and search engines' unigrams do); other
scripts count runs of word characters, as before.

Sentences end with other marks than ``.!?`` in much of the world: Chinese and Japanese ``。``, Hindi
``।``, Urdu ``۔``, Arabic ``؟``, Amharic ``።``, Khmer ``។``, Burmese ``။``. Thai and Lao mark no
sentence end at all (a space ends one), so a block of theirs ends a sentence where it ends. Without
these, no paragraph in those languages read as prose, and every article in them was read with low
confidence and typed a listing.
"""

from __future__ import annotations

import re

__all__ = [
    "FULL_STOPS", "SPACELESS_FULL_STOPS", "UNMARKED_SENTENCE_END", "WORD", "split_words", "word_count",
]

#: Kana, CJK ideographs (and their extensions and compatibility forms): one word a character.
_UNSPACED = "\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"
WORD = re.compile(rf"[{_UNSPACED}]|[^\W{_UNSPACED}]+")
_UNSPACED_CHAR = re.compile(rf"[{_UNSPACED}]")
_SPACED_WORD = re.compile(r"\w+")  # the same words where no Han or Kana is, found faster
_OTHER_WORD = re.compile(rf"[^\W{_UNSPACED}]")
#: Marks that end a sentence: Latin, CJK (full and half width), Devanagari, Arabic script, Ethiopic,
#: Khmer and Myanmar.
FULL_STOPS = ".!?…。！？｡．।॥۔؟።፧។៕။"
#: Those of them that end a sentence with no space after it (all but ``.!?``, which also sit inside
#: numbers, abbreviations and addresses).
SPACELESS_FULL_STOPS = FULL_STOPS[3:]
#: The last letter of a block in a script that marks no sentence end (Thai, Lao).
UNMARKED_SENTENCE_END = "[\u0e01-\u0e5b\u0e81-\u0edf]"


def split_words(text: str) -> list[str]:
    """The words of ``text`` by ``WORD`` (``\\w+`` runs, and a Han or Kana character each)."""
    return (WORD if _UNSPACED_CHAR.search(text) else _SPACED_WORD).findall(text)


def word_key(text: str) -> str:
    """The lower-cased words of ``text``, space-separated: the same wording however it was spaced,
    cased or punctuated."""
    return " ".join(split_words(text)).lower()  # lower-cased whole: the same, spaces never change case


def word_count(text: str) -> int:
    """How many words ``text`` holds: its space-separated words, a Han or Kana character each.

    On text without such characters this is ``len(text.split())``, the count the thresholds were
    tuned with.
    """
    if not _UNSPACED_CHAR.search(text):
        return len(text.split())
    count = 0
    for token in text.split():
        unspaced = len(_UNSPACED_CHAR.findall(token))
        count += unspaced + (1 if not unspaced or _OTHER_WORD.search(token) else 0)
    return count
