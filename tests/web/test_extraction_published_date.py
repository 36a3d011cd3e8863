"""A page's date: declared ones as ISO 8601, and one shown on an article or a thread when none is declared."""

from __future__ import annotations

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.published_date import iso_date

PROSE = "<p>The committee met on Tuesday to review the harbour plan before any money is spent on it.</p>" * 8


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2025-12-19T12:59:51+00:00", "2025-12-19T12:59:51+00:00"),  # ISO 8601 stays as declared
        ("2025-06-17", "2025-06-17"),
        ("2013-08-22 21:43:53 UTC", "2013-08-22 21:43:53 UTC"),
        ("2025-06-17 (updated weekly)", "2025-06-17"),  # what follows the day and its time goes
        ("Jan 17, 2025", "2025-01-17"),
        ("Thu, 09/25/2025 - 11:38", "2025-09-25"),
        ("Dec 19th 2025", "2025-12-19"),
        ("1766222982", "2025-12-20"),  # seconds since 1970
        (" 2024-02-30 ", ""),  # no such day
        ("Dec 23", ""),  # no year
        ("March 2025", ""),  # no day
        ("0001-01-01", ""),
        ("soon", ""),
    ],
)
def test_a_declared_date_as_iso_8601(value: str, expected: str) -> None:
    assert iso_date(value) == expected


def _page(head: str, body: str) -> str:
    return f"<html><head>{head}</head><body><main><article>{body}{PROSE}</article></main></body></html>"


def test_a_date_in_words_is_read_as_its_day_and_the_next_source_stands_in_for_one_without_a_year() -> None:
    head = "<meta name='date' content='Dec 23'><meta property='og:updated_time' content='March 3, 2025'>"
    doc = content.convert(_page(head, "<h1>Harbour plan</h1>"), "text/html", url="https://news.example.org/harbour")
    assert doc.metadata["date"] == "2025-03-03"


def test_an_article_that_declares_no_date_gets_the_one_it_shows() -> None:
    body = "<h1>Harbour plan</h1><time datetime='2025-07-02'>July 2, 2025</time>"
    head = "<meta property='og:type' content='article'>"  # typed an article before it is read
    doc = content.convert(_page(head, body), "text/html", url="https://news.example.org/harbour")
    assert doc.metadata["page_type"] == "article" and doc.metadata["date"] == "2025-07-02"
    # a page that cannot be typed until it is read is not searched: on WCXB's tune part that lost
    untyped = content.convert(_page("", body), "text/html", url="https://news.example.org/harbour")
    assert "date" not in untyped.metadata


def test_a_page_of_another_kind_is_not_searched_for_a_date() -> None:
    cards = "".join(
        f"<li class='product-card'><a href='/p/{i}'>Lamp {i}</a><span class='price'>${i}9.00</span></li>"
        for i in range(12)
    )
    page = (
        "<html><head><title>Lamps</title></head><body><main><h1>Lamps</h1><ul>" + cards + "</ul>"
        "<time datetime='2025-07-02'>July 2, 2025</time></main></body></html>"
    )
    doc = content.convert(page, "text/html", url="https://shop.example.org/collections/lamps")
    assert doc.metadata["page_type"] != "article" and "date" not in doc.metadata
