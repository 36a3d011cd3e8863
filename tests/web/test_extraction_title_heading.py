"""An article's title heading at the head of its reading is the document's title, not its text."""

from __future__ import annotations

import json

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.title_heading import drop_title_heading

PROSE = (
    "The committee met on Tuesday to review the harbour plan, and its members asked for a second survey "
    "of the eastern pier before any money is spent on the new breakwater. "
)


@pytest.mark.parametrize(
    ("markdown", "title", "expected"),
    [
        ("# Harbour plan\n\nThe text.", "Harbour plan", "The text."),
        ("\n## Harbour Plan! ##\n\nThe text.", "harbour plan", "The text."),  # cased, punctuated, closed
        ("# The harbour plan review\n\nThe text.", "The harbour plan review | City News", "The text."),
    ],
)
def test_a_heading_saying_the_title_goes(markdown: str, title: str, expected: str) -> None:
    assert drop_title_heading(markdown, title) == (expected, 1)


@pytest.mark.parametrize(
    ("markdown", "title"),
    [
        ("# News\n\nThe text.", "News | City News"),  # fewer than three words: a section's heading
        ("# Harbour plan: the vote\n\nThe text.", "Harbour plan"),  # says more than the title
        ("Harbour plan\n\nThe text.", "Harbour plan"),  # a line of text, not a heading
        ("The text.\n\n# Harbour plan", "Harbour plan"),  # not the reading's first line
        ("# Harbour plan", "Harbour plan"),  # the whole reading
        ("# Harbour plan\n\nThe text.", ""),  # no title to say
    ],
)
def test_other_headings_and_lines_stay(markdown: str, title: str) -> None:
    assert drop_title_heading(markdown, title) == (markdown, 0)


def _article(title: str, heading: str) -> str:
    body = "".join(f"<p>{PROSE * 2}</p>" for _ in range(4))
    return (
        f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a></nav>"
        f"<main><article><h1>{heading}</h1>{body}</article></main></body></html>"
    )


def test_an_article_is_read_without_its_title_heading() -> None:
    page = _article("Harbour plan review | City News", "Harbour plan review")
    doc = content.convert(page, "text/html", url="https://news.example.org/2026/05/harbour-plan")
    assert doc.title == "Harbour plan review" and doc.metadata["page_type"] == "article"  # its headline
    assert doc.content.startswith(PROSE.strip()) and "Harbour plan review" not in doc.content
    assert doc.metadata["title_heading_dropped"] == 1
    # an <h1> that says something else than the page's title is the text's own heading
    other = content.convert(_article("City News", "Harbour plan review"), "text/html", url="https://n.example/a")
    assert other.content.startswith("# Harbour plan review\n")
    assert "title_heading_dropped" not in other.metadata


def test_a_product_keeps_its_name_as_its_heading() -> None:
    product = {
        "@context": "https://schema.org",
        "@type": "Product",
        "name": "Harbour lamp",
        "offers": {"@type": "Offer", "price": "49.00", "priceCurrency": "EUR"},
    }
    page = (
        f"<html><head><title>Harbour lamp</title><script type='application/ld+json'>{json.dumps(product)}"
        f"</script></head><body><main><h1>Harbour lamp</h1><p>{PROSE * 2}</p><p>Price: 49.00 EUR</p>"
        "<button>Add to cart</button></main></body></html>"
    )
    doc = content.convert(page, "text/html", url="https://shop.example.org/products/harbour-lamp")
    assert doc.metadata["page_type"] == "product"
    assert doc.content.startswith("# Harbour lamp\n") and "title_heading_dropped" not in doc.metadata
