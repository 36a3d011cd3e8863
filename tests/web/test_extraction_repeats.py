"""Repeated blocks: the second copy of what a reading already said goes, on the page types that repeat;
on every other page only a whole section said twice goes."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.repeats import (
    CONTAINED_WORDS,
    COPIED_RUN_BLOCKS,
    drop_copied_sections,
    drop_repeats,
)

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


def test_a_quotation_emptied_of_its_copy_goes_with_its_attribution() -> None:
    post = "Does this mean the preferred chain setting stops working for our older clients next month?"
    thread = (
        f"Posted by tatyana\n\n{post}\n\nmike\n\n> tatyana:\n>\n> {post}\n\nIt depends on your client.\n\n"
        f"ana\n\n> Pippin06 said:\n>\n> {post}\n>\n> And one more line of my own.\n\nAgreed."
    )
    text, dropped = drop_repeats(thread)
    assert dropped == 2
    # The first quotation kept only its attribution: it goes whole, no empty quote bar is left.
    assert "> tatyana:" not in text and "mike\n\nIt depends on your client." in text
    # The second keeps words of its own: it stays, without the copy.
    assert "> Pippin06 said:\n>\n>\n> And one more line of my own." in text
    assert text.count(post) == 1


def test_quotations_that_lost_nothing_stay_whole() -> None:
    markdown = "> Ana said:\n>\n> A line that is nowhere else.\n\n> Bo:\n>"
    text = f"{DESCRIPTION}\n\n{markdown}"
    assert drop_repeats(f"{text}\n\n{DESCRIPTION}") == (text, 1)


def test_a_grids_cards_keep_their_own_prices_and_ratings() -> None:
    # Two lamps at the same price: the second card's "$49" is its own price, not a copy of the first.
    grid = "Arc lamp\n\n$49\n\n4.5 (120)\n\nAdd to cart\n\nDesk lamp\n\n$49\n\n4.5 (120)\n\nAdd to cart"
    text, dropped = drop_repeats(grid, keep_values=True)
    assert dropped == 1 and text.count("$49") == 2 and text.count("4.5 (120)") == 2
    assert text.count("Add to cart") == 1  # a repeated button is still a repeat
    assert drop_repeats(grid)[0].count("$49") == 1  # a product page's repeated figure goes


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
    # Only pages that keep hidden copies, and threads, drop single repeats: an article's refrain stays.
    refrain = "Row, row, row your boat, gently down the stream, merrily merrily merrily."
    prose = " ".join([DESCRIPTION] * 3)
    body = (
        f"<article><h1>Song</h1><p>{prose}</p><p>{refrain}</p><p>{prose} Again.</p><p>{refrain}</p></article>"
    )
    doc = _article("Song", body)
    assert doc.content.count("Row, row, row") == 2
    assert "repeated_blocks_dropped" not in doc.metadata


def _article(title: str, body: str) -> content.Document:
    html = f"<html><head><title>{title}</title></head><body>{body}</body></html>"
    return content.convert(html, "text/html", url="https://example.org/2024/05/" + title.replace(" ", "-"))


def _paragraph(n: int) -> str:
    return f"Paragraph {n} of the story tells what happened on day {n} of the long walk north to the sea."


def test_a_section_said_twice_goes_once_the_run_is_long_enough() -> None:
    story = [_paragraph(n) for n in range(COPIED_RUN_BLOCKS)]
    copied = "\n\n".join(["# Walk", *story, "## Share this", *story, "Footer text."])
    text, dropped = drop_copied_sections(copied)
    assert dropped == COPIED_RUN_BLOCKS
    assert text == "\n\n".join(["# Walk", *story, "## Share this", "Footer text."])
    # One paragraph fewer is no longer a copied section: it stays as the page has it.
    short = "\n\n".join([*story[1:], *story[1:]])
    assert drop_copied_sections(short) == (short, 0)


def test_the_same_paragraph_over_and_over_or_in_code_stays() -> None:
    said_again = "\n\n".join([_paragraph(1)] * (COPIED_RUN_BLOCKS * 2))
    assert drop_copied_sections(said_again) == (said_again, 0)
    story = [_paragraph(n) for n in range(COPIED_RUN_BLOCKS)]
    fenced = "```\n" + "\n\n".join(story) + "\n```"
    in_code = "\n\n".join([*story, fenced, *[f"| {p} |" for p in story]])
    assert drop_copied_sections(in_code) == (in_code, 0)


def test_an_article_rendered_twice_reads_once() -> None:
    story = "".join(f"<p>{_paragraph(n)}</p>" for n in range(COPIED_RUN_BLOCKS + 2))
    body = (  # a mobile and a desktop copy of the same article, both in the markup
        f"<article><h1>The walk</h1><div class='mobile'>{story}</div>"
        f"<div class='desktop'>{story}</div></article>"
    )
    doc = _article("The walk", body)
    assert doc.content.count("day 3 of the long walk") == 1
    assert doc.metadata["repeated_blocks_dropped"] == COPIED_RUN_BLOCKS + 2


def test_a_listing_that_renders_each_card_twice_reads_it_once() -> None:
    # A blog's front page: each card's title and byline once on its front, with its reading time,
    # and once more in its body.
    card = (
        "<div class='card'><div class='card-front'><p>Story {i}: how the analytical engine read its "
        "programs from punched cards, by Ada · Engineering · {i} min read</p></div><div class='card-body'>"
        "<p>Story {i}: how the analytical engine read its programs from punched cards, by Ada</p></div>"
        "<a href='/story/{i}'>Open</a></div>"
    )
    body = "<h1>Blog</h1><div class='grid'>" + "".join(card.format(i=i) for i in range(8)) + "</div>"
    doc = content.convert(
        f"<html><head><title>Blog</title></head><body>{body}</body></html>",
        "text/html",
        url="https://blog.example.org/category/engineering",
    )
    assert doc.metadata["page_type"] == "listing"
    assert doc.content.count("Story 3: how the analytical engine") == 1
    assert "3 min read" in doc.content
