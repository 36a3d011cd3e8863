"""A byline element's text read as the author's name: dates, counts, "Posted by" and non-bylines go."""

from __future__ import annotations

import pytest

from hermes_nb.web.extraction.byline import author_name, byline
from hermes_nb.web.extraction.tree import parse_html


@pytest.mark.parametrize(
    ("line", "name"),
    [
        ("Ada Lovelace", "Ada Lovelace"),
        ("Posted By: Ada Lovelace", "Ada Lovelace"),
        ("16 December 2025 by Ada Lovelace", "Ada Lovelace"),
        ("ByAda Lovelace", "Ada Lovelace"),  # the words run together by the markup
        ("Ada Lovelace - June 12, 2025", "Ada Lovelace"),
        ("Ada LovelaceDecember 17, 2025", "Ada Lovelace"),
        ("Ada Lovelace | 5 min read", "Ada Lovelace"),
        ("Ada Lovelace • 2025/4/29", "Ada Lovelace"),
        ("Posted by ada on Friday January 12, 2024 @11:40AM", "ada"),
        ("ada_l 6,796 gold badges 34 silver badges", "ada_l"),
        ("Ada LovelacePublished on July 18, 2025", "Ada Lovelace"),
        ("Abby Derby", "Abby Derby"),  # "by" inside a name is no "by"
        ("user3080392", "user3080392"),
    ],
)
def test_the_name_in_a_byline(line: str, name: str) -> None:
    assert author_name(line) == name


@pytest.mark.parametrize(
    "line",
    ["Name *", "Author", "undefined", "DECEMBER 27, 2024", "Sat, 20 Dec, 2025 - 06:36", "By", "x" * 120],
)
def test_a_line_that_names_nobody(line: str) -> None:
    assert author_name(line) == ""


def test_elements_named_for_other_words_and_empty_bylines_are_passed_over() -> None:
    root = parse_html(
        "<html><body><section class='authorization'>Authorization</section>"
        "<span class='authorized-dealer'>Authorized Dealer</span>"
        "<div class='author-date'>March 3, 2025</div>"
        "<p class='byline'>Written by Ada Lovelace | 3 min read</p><p>Text.</p></body></html>"
    )
    assert byline(root) == "Ada Lovelace"
    form = parse_html("<html><body><label class='comment-author'>Name *</label><p>Text.</p></body></html>")
    assert byline(form) == ""
