"""Choose between candidates by agreement and paragraph structure, and score how sure the choice is."""

from __future__ import annotations

import functools
import re
from collections import Counter
from dataclasses import dataclass

from .candidates import Candidate
from .scripts import FULL_STOPS, UNMARKED_SENTENCE_END, split_words

_MARKUP = re.compile(r"^\s*(?:#{1,6}\s|[-*+]\s|\d+\.\s|>\s?|\|)")
_SENTENCE_END = re.compile(rf"(?:[{FULL_STOPS}:;\"'”’)\]」』）]|{UNMARKED_SENTENCE_END})\s*$")
PROSE_WORDS = 12  # words from which a block that ends like a sentence counts as prose
SUPERSET = 0.97  # share of one candidate's words the other must contain to count as its superset
GROWTH = 1.3  # how much longer a superset must be before its extra text is considered
MAX_LINK_DENSITY = 0.3  # a superset whose text is more link text than this is a link list, not content


@dataclass
class Choice:
    """The chosen candidate, how confident we are in it (0–1), and why it won."""

    candidate: Candidate
    confidence: float
    reason: str


def words(text: str) -> Counter[str]:
    """Lower-case words; a Markdown escape is not a word break (``L\\_geo`` is the word ``l_geo``)."""
    return Counter(w.lower() for w in split_words(text.replace("\\", "")))


def blocks(markdown: str) -> list[str]:
    """Paragraph-level blocks of Markdown text (list items and table rows count one each)."""
    return [line.strip() for line in markdown.split("\n") if line.strip() and line.strip() != "```"]


@functools.lru_cache(maxsize=16)  # asked for the same text by choice, confidence and page type
def prose_share(markdown: str) -> float:
    """Share of the words that sit in prose blocks: long enough and ending like a sentence."""
    total = prose = 0
    for block in blocks(markdown):
        n = len(split_words(block))
        total += n
        if n >= PROSE_WORDS and _SENTENCE_END.search(block) and not block.startswith("|"):
            prose += n
    return prose / total if total else 0.0


def _extra(base: str, other: Counter[str]) -> str:
    """Blocks of ``base`` whose words are mostly missing from ``other``."""
    kept = []
    for block in blocks(base):
        ws = words(block)  # tokenised as ``other`` is
        n = sum(ws.values())
        if n and sum(count for w, count in ws.items() if w in other) / n < 0.5:
            kept.append(block)
    return "\n".join(kept)


def agreement(a: Counter[str], b: Counter[str]) -> float:
    """Token F1 between two candidates (1 when both are empty)."""
    size = sum(a.values()) + sum(b.values())
    return 2 * sum((a & b).values()) / size if size else 1.0


def choose(primary: Candidate, other: Candidate | None) -> Choice:
    """Keep ``primary`` (trafilatura) unless ``other`` (readability) clearly repairs it."""
    if other is None or not other.markdown:
        return Choice(primary, confidence(primary, None), "only candidate")
    if not primary.markdown:
        return Choice(other, confidence(other, None), "primary empty")
    pw, ow = words(primary.markdown), words(other.markdown)
    np_, no = sum(pw.values()), sum(ow.values())
    if not np_:
        return Choice(other, confidence(other, None), "primary has no words")
    common = sum((pw & ow).values())
    agree = agreement(pw, ow)
    if common / np_ >= SUPERSET and no >= GROWTH * np_ and other.link_density < MAX_LINK_DENSITY:
        extra = _extra(other.markdown, pw)
        if prose_share(extra) >= 0.3 or len(split_words(extra)) < 3 * PROSE_WORDS:
            return Choice(other, confidence(other, agree), "second candidate adds missing paragraphs")
    return Choice(primary, confidence(primary, agree), "candidates agree" if agree >= 0.9 else "primary kept")


def confidence(cand: Candidate, agree: float | None) -> float:
    """0–1: agreement between candidates, prose structure, low link density and enough text."""
    text = cand.markdown
    n = len(split_words(text))
    if n == 0:
        return 0.0
    length = min(1.0, n / 150)
    structure = min(1.0, prose_share(text) / 0.6)
    links = 1.0 - min(1.0, cand.link_density / 0.5)
    if agree is None:
        score = 0.2 + 0.35 * length + 0.3 * structure + 0.15 * links
        score = min(score, 0.8)  # one extractor alone never vouches for itself fully
    else:
        score = 0.45 * agree + 0.2 * length + 0.25 * structure + 0.1 * links
    score *= 0.5 + 0.5 * length  # a few words are never a confident extraction, however much agreed
    return round(max(0.0, min(0.99, score)), 2)  # no extraction is ever certain


def contains(base: Candidate, other: Candidate, *, share: float, growth: float) -> bool:
    """True when ``other`` holds ``share`` of ``base``'s words and is ``growth`` times as long.

    The test for a candidate that repairs a short reading: it keeps what the first one found and adds
    the sections it missed. Link lists never qualify (``MAX_LINK_DENSITY``).
    """
    if not other.markdown or other.link_density >= MAX_LINK_DENSITY:
        return False
    bw, ow = words(base.markdown), words(other.markdown)
    nb, no = sum(bw.values()), sum(ow.values())
    if not nb:
        return no > 0
    return sum((bw & ow).values()) / nb >= share and no >= growth * nb
