"""Caseless patterns find what ``re.IGNORECASE`` finds in the names authors give elements."""

from __future__ import annotations

import random
import re

import pytest

from hermes_nb.web.extraction import candidates, misnamed, page_type, product_extras, tree
from hermes_nb.web.extraction.caseless import Caseless

#: Every pattern the extraction steps test class, id and style names with.
PATTERNS = [
    candidates._FURNITURE, candidates._POST_FURNITURE, candidates._QA_REMARKS, page_type._POST_CLASS,
    tree._DISCLOSURE, tree._HIDDEN_STYLE, misnamed._MISLEADING, misnamed._FURNITURE, misnamed._COMMENTS,
    product_extras._REVIEW, product_extras._EXTRA_NAME, product_extras._OVERLAY,
]


def _names(rng: random.Random) -> list[str]:
    """Class lists built from the words the patterns look for, in every case, and words they do not."""
    words = ["nav", "Sidebar", "POST", "comment", "commentary", "tab-pane", "Accordion", "display:none",
             "visibility: Hidden", "review", "preview", "related", "modal", "slide", "meta", "x", "-", "_",
             "wp-block", "col-md-6", "is-Expanded", "signature", "Votes", "user-info", "cookie", ";", " "]
    found = []
    for _ in range(3000):
        picked = [rng.choice(words) for _ in range(rng.randint(1, 5))]
        picked = [w.upper() if rng.random() < 0.2 else w.title() if rng.random() < 0.2 else w for w in picked]
        found.append(rng.choice([" ", "-", "_", ""]).join(picked))
    return found


@pytest.mark.parametrize("pattern", PATTERNS, ids=lambda p: p.pattern[:30])
def test_each_pattern_finds_what_ignorecase_finds(pattern: Caseless) -> None:
    folded = re.compile(pattern.pattern, re.I)
    names = _names(random.Random(7))
    assert any(pattern.search(name) for name in names)  # the sample holds matches and misses
    assert [bool(pattern.search(n)) for n in names] == [bool(folded.search(n)) for n in names]


def test_a_pattern_matches_its_words_in_any_case() -> None:
    nav = Caseless(r"(?:^|\s)nav(?:$|\s)")
    assert nav.search("site NAV") and nav.search("Nav") and not nav.search("navigate")


def test_a_pattern_with_an_upper_case_letter_is_refused() -> None:
    with pytest.raises(ValueError, match="lower case"):
        Caseless(r"Nav|menu")
    assert Caseless(r"\S+\Wmenu").pattern == r"\S+\Wmenu"  # escapes are not letters of the pattern
