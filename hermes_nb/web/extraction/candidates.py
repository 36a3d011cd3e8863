"""Extraction candidates: one page tree, several extractors (trafilatura's modes, readability-lxml)."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Any

from .html_markdown import fragment_to_markdown
from .tree import link_density

#: Candidate names, in the order ``direct`` tries them when the chosen one is not confident enough.
TRAFILATURA = "trafilatura"
READABILITY = "readability"
TRAFILATURA_RECALL = "trafilatura-recall"
TRAFILATURA_PRECISION = "trafilatura-precision"
TRAFILATURA_FALLBACK = "trafilatura-fallback"  # with its own jusText/readability rescue of short results


@dataclass
class Candidate:
    """One extractor's reading of a page."""

    name: str
    markdown: str
    link_density: float = 0.0  # share of the candidate's text that was link text in the page

    @property
    def chars(self) -> int:
        return len(self.markdown)


def trafilatura_candidate(root: Any, url: str | None, mode: str = TRAFILATURA) -> Candidate:
    """trafilatura on the shared tree (it copies it) in one of its modes (see the names above)."""
    import trafilatura  # heavy: imported when a page is converted

    found = trafilatura.bare_extraction(
        root,
        url=url or None,
        fast=mode != TRAFILATURA_FALLBACK,  # its own rescue pass runs only as a later candidate
        favor_recall=mode == TRAFILATURA_RECALL,
        favor_precision=mode == TRAFILATURA_PRECISION,
        with_metadata=False,
        include_formatting=True,
        include_comments=False,
        include_tables=True,
    )
    text = getattr(found, "text", None) or "" if found is not None else ""
    return Candidate(mode, unicodedata.normalize("NFC", text).strip())


def readability_candidate(root: Any) -> Candidate:
    """readability-lxml's main-content block of the shared tree (it cleans a copy), as Markdown."""
    from readability import Document as Readable  # heavy: imported when a page is converted
    from readability.readability import Unparseable

    try:
        summary = Readable(root).summary(html_partial=True)
    except (Unparseable, ValueError, TypeError):
        return Candidate(READABILITY, "")
    from lxml import html as lxml_html

    try:
        fragment = lxml_html.fragment_fromstring(summary, create_parent="div")
    except (ValueError, TypeError):
        return Candidate(READABILITY, "")
    text = unicodedata.normalize("NFC", fragment_to_markdown(fragment))
    return Candidate(READABILITY, text, link_density(fragment))
