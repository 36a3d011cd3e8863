"""Blocks a reading repeats: the second copy of a paragraph the page renders twice goes.

Pages often carry the same text twice — a mobile and a desktop copy of a product description, a
title repeated in a sticky bar, a tab panel that duplicates the visible text — and an extractor that
keeps hidden or repeated regions reads it twice. A block (a line of the Markdown: a paragraph,
heading or list item) is dropped when the same words came before it, or, from ``CONTAINED_WORDS``
words up, when its words run word for word inside what came before (``drop_repeats``: products,
grids, listings and threads). Every other page keeps single repeats — a refrain, a pull quote, the
same fine print under each offer — and loses only a whole section rendered twice
(``drop_copied_sections``).
Code blocks and table rows are never touched: code repeats on purpose, and a table keeps its shape.

A thread's reply that quotes an earlier post repeats it, and the copy goes; the quotation around it
would stay behind as empty quote marks under its attribution ("> ryshab:" over a lone ">"), which
Markdown renders as an empty quotation bar. A quotation that lost lines here and keeps no more than
such an attribution (``ATTRIBUTION_WORDS`` words, ending in a colon) goes whole.
"""

from __future__ import annotations

import re

from hermes_nb.code_fences import CodeFences, opening_fence

from .scripts import split_words

CONTAINED_WORDS = 8  # a block this long that runs word for word inside the text before it is a copy
#: A run of at least this many different paragraphs, each the same words as one before it, is a copied
#: section (a responsive layout's second rendering of the article); shorter runs on the tune part of
#: WCXB were offers' fine print and pricing plans' feature lists, which the reference keeps.
COPIED_RUN_BLOCKS = 10
ATTRIBUTION_WORDS = 4  # "Pippin06 said:", "TatyanaBol:": what a quotation emptied of its copy keeps
_QUOTE_MARK = re.compile(r"^\s{0,3}>")


def drop_repeats(markdown: str, *, keep_values: bool = False) -> tuple[str, int]:
    """``markdown`` without the blocks it already said, and how many blocks went.

    With ``keep_values`` (a grid's or listing's cards), a short line holding a figure stays however
    often it comes: each card's price, rating or date is that card's, not a copy of the one before.
    """
    kept: list[str | None] = []  # None: a quotation's line that went (see _emptied_quotes)
    seen: set[tuple[str, ...]] = set()
    before = " "  # the words kept so far, space-separated and space-padded, for containment tests
    fences = CodeFences()
    dropped = 0
    for line in markdown.split("\n"):
        if fences.read(line):
            kept.append(line)
            continue
        key = tuple(w.lower() for w in split_words(line))
        if not key or line.lstrip().startswith("|"):
            kept.append(line)
            continue
        joined = " ".join(key)
        if keep_values and _value(key):
            kept.append(line)
            continue
        if key in seen or (len(key) >= CONTAINED_WORDS and f" {joined} " in before):
            dropped += 1
            if _QUOTE_MARK.match(line):
                kept.append(None)
            continue
        seen.add(key)
        before += joined + " "
        kept.append(line)
    if not dropped:
        return markdown, 0
    return re.sub(r"\n{3,}", "\n\n", "\n".join(_emptied_quotes(kept))).strip(), dropped


def _emptied_quotes(lines: list[str | None]) -> list[str]:
    """``lines`` without the quotations that lost lines (``None``) and keep at most an attribution."""
    out: list[str] = []
    run: list[str | None] = []

    def close() -> None:
        text = [line for line in run if line is not None and split_words(line)]
        emptied = None in run and (not text or (len(text) == 1 and _attribution(text[0])))
        if not emptied:
            out.extend(line for line in run if line is not None)
        run.clear()

    for line in lines:
        if line is None or _QUOTE_MARK.match(line):
            run.append(line)
            continue
        close()
        out.append(line)
    close()
    return out


def _attribution(line: str) -> bool:
    """A quotation's opening line naming who is quoted ("Pippin06 said:", "> TatyanaBol:")."""
    return len(split_words(line)) <= ATTRIBUTION_WORDS and line.rstrip().endswith(":")


def _value(key: tuple[str, ...]) -> bool:
    """A figure with at most a word around it ("$599+", "7.9", "13 colors", "4.5 (120)")."""
    figures = sum(1 for w in key if any(ch.isdigit() for ch in w))
    return bool(figures) and len(key) - figures <= 1


def drop_copied_sections(markdown: str) -> tuple[str, int]:
    """``markdown`` without the sections it says twice, and how many paragraphs went.

    A copied section is a run of paragraphs (blocks between blank lines) that each repeat an earlier
    one word for word, holding at least ``COPIED_RUN_BLOCKS`` different paragraphs of
    ``CONTAINED_WORDS`` words or more: a responsive layout's second rendering of the whole text.
    Milder than ``drop_repeats``: a repeated line, a refrain, the same fine print under each offer or
    one paragraph said over and over stays. Short new paragraphs inside a run (a heading only one copy
    has) neither extend nor break it; code blocks and tables break it.
    """
    blocks = _paragraphs(markdown)
    seen: set[str] = set()
    run: list[int] = []  # indexes of the current run's repeated paragraphs, short ones included
    long_blocks: set[str] = set()  # the different ones CONTAINED_WORDS long or more
    dropped: list[int] = []

    def close_run() -> None:
        if len(long_blocks) >= COPIED_RUN_BLOCKS:
            dropped.extend(run)
        run.clear()
        long_blocks.clear()

    for i, block in enumerate(blocks):
        if opening_fence(block) or block.lstrip().startswith("|"):
            close_run()
            continue
        words = split_words(block)
        if not words:
            continue
        key = " ".join(words).lower()  # the words, lower-cased whole (one call, not one a word)
        if key in seen:
            run.append(i)
            if len(words) >= CONTAINED_WORDS:
                long_blocks.add(key)
        else:
            seen.add(key)
            if len(words) >= CONTAINED_WORDS:
                close_run()
    close_run()
    if not dropped:
        return markdown, 0
    gone = set(dropped)
    return "\n\n".join(b for i, b in enumerate(blocks) if i not in gone), len(gone)


def _paragraphs(markdown: str) -> list[str]:
    """The blocks of ``markdown`` between blank lines, a fenced code block whole even with blank lines."""
    blocks: list[str] = []
    current: list[str] = []
    fences = CodeFences()
    for line in markdown.split("\n"):
        if not fences.read(line) and not line.strip():
            if current:
                blocks.append("\n".join(current))
                current = []
            continue
        current.append(line)
    if current:
        blocks.append("\n".join(current))
    return blocks
