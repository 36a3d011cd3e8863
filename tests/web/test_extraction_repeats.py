"""Repeated blocks: the second copy of what a reading already said goes, on the page types that repeat."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.repeats import CONTAINED_WORDS, drop_repeats

DESCRIPTION = (
    "A wheel thrown stoneware mug with a matte speckled glaze outside and a clear glazed interior, "
    "safe in dishwashers and microwave ovens."
)


def test_an_exact_repeat_goes_and_the_first_copy_stays() -> None:
    text, dropped = drop_repeats(f"# Mug\n\n{DESCRIPTION}\n\nSize: 9 cm\n\n{DESCRIPTION}\n\nSize: 9 cm")
    assert dropped == 2
    assert text == f"# Mug\n\n{DESCRIPTION}\n\nSize: 9 cm"


def test_a_long_block_inside_earlier_text_goes_a_short_one_stays() -> None:
    quote = "A wheel thrown stoneware mug with a matte speckled glaze"
    assert len(quote.split()) >= CONTAINED_WORDS
    text, dropped = drop_repeats(f"{DESCRIPTION}\n\n> {quote}\n\nI love it.\n\nmatte speckled glaze")
    assert dropped == 1
    assert f"> {quote}" not in text and "I love it." in text and text.endswith("matte speckled glaze")


def test_code_blocks_and_table_rows_are_never_touched() -> None:
    markdown = (
        "```\nclient = Client()\n\nclient = Client()\n```\n\n| Yes | No |\n| --- | --- |\n| Yes | No |\n\n"
        "```python\nclient = Client()\n```"
    )
    assert drop_repeats(markdown) == (markdown, 0)


def test_nothing_repeated_is_returned_unchanged() -> None:
    markdown = f"# Title\n\n\n{DESCRIPTION}\n"
    assert drop_repeats(markdown) == (markdown, 0)


def test_a_product_page_that_renders_its_description_twice_reads_it_once() -> None:
    head = '<script type="application/ld+json">{"@type": "Product", "name": "Mug"}</script>'
    details = f"<h2>Details</h2><p>{DESCRIPTION}</p><p>Size: approx. 9.5 x 13 x 7 cm.</p>"
    body = (  # one copy for small screens, one for large ones, both in the markup
        f"<main><h1>Mug</h1><p>$60.00</p><div class='product-mobile'>{details}</div>"
        f"<div class='product-desktop'>{details}</div></main>"
    )
    doc = content.convert(
        f"<html><head><title>Mug</title>{head}</head><body>{body}</body></html>",
        "text/html",
        url="https://shop.example.org/products/mug",
    )
    assert doc.metadata["page_type"] == "product"
    assert doc.content.count("wheel thrown stoneware") == 1 and doc.content.count("Size: approx.") == 1
    assert doc.metadata["repeated_blocks_dropped"] == 3


def test_an_article_keeps_its_repeats() -> None:
    # Only pages that keep hidden copies, and threads, drop repeats: an article's refrain stays.
    refrain = "Row, row, row your boat, gently down the stream, merrily merrily merrily."
    prose = " ".join([DESCRIPTION] * 3)
    body = (
        f"<article><h1>Song</h1><p>{prose}</p><p>{refrain}</p><p>{prose} Again.</p><p>{refrain}</p></article>"
    )
    doc = content.convert(
        f"<html><head><title>Song</title></head><body>{body}</body></html>",
        "text/html",
        url="https://example.org/2024/05/song",
    )
    assert doc.content.count("Row, row, row") == 2
    assert "repeated_blocks_dropped" not in doc.metadata
