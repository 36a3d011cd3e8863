"""A page's quotations read as quotations ("> …") in Markdown; the text format reads the same words."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.quotations import set_quotations
from hermes_nb.web.extraction.tree import parse_html

PROSE = "The service has run for two years and has needed less care than anyone on the team expected. "
URL = "https://example.org/reviews"


def _quoted(markdown: str, body: str) -> tuple[str, int]:
    return set_quotations(markdown, parse_html(f"<html><body>{body}</body></html>"))


def test_a_testimonial_and_its_signature_are_one_quotation() -> None:
    page = (
        f"<html><body><article><h1>Classes</h1><p>{PROSE * 3}</p>"
        "<blockquote><p>Olivia is a fantastic teacher, and a lovely person.</p>"
        "<p>— Sam, London</p></blockquote>"
        f"<p>{PROSE}</p></article></body></html>"
    )
    doc = convert(page, "text/html", url=URL)
    assert "\n\n> Olivia is a fantastic teacher, and a lovely person.\n>\n> — Sam, London\n\n" in doc.content
    assert doc.metadata["quotations_set"] == 1
    text = convert(page, "text/html", url=URL, format="text").content
    assert "\n\nOlivia is a fantastic teacher, and a lovely person.\n\n— Sam, London\n\n" in text
    assert ">" not in text


def test_a_list_in_a_quotation_and_links_inside_it() -> None:
    body = (
        "<p>Before it.</p><blockquote><p>Read what the <a href='/guide'>guide</a> says about it here.</p>"
        "<ul><li>first point</li><li>second point</li></ul></blockquote><p>After it.</p>"
    )
    markdown = "Before it.\n\nRead what the guide says about it here.\n\n- first point\n- second point"
    out, n = _quoted(f"{markdown}\n\nAfter it.", body)
    assert out == (
        "Before it.\n\n> Read what the guide says about it here.\n>\n> - first point\n> - second point"
        "\n\nAfter it."
    )
    assert n == 1


def test_short_lines_alone_and_repeated_sentences_do_not_place_a_quotation() -> None:
    # A pull quote repeats a sentence of the article: where the reading has it, it is the article's.
    sentence = "Every team we spoke to said the same thing about it."
    body = f"<p>{sentence}</p><blockquote><p>{sentence}</p></blockquote><blockquote><p>Yes.</p></blockquote>"
    assert _quoted(f"{sentence}\n\nYes.", body) == (f"{sentence}\n\nYes.", 0)


def test_headings_tables_code_and_indented_lines_stay_as_they_are() -> None:
    body = (
        "<blockquote><h3>A heading in a quote</h3><p>Words of the quotation that place it here.</p>"
        "<pre>code in the quote line</pre></blockquote>"
        "<ul><li>Item<blockquote><p>Quoted words inside a list item.</p></blockquote></li></ul>"
    )
    markdown = (
        "### A heading in a quote\n\nWords of the quotation that place it here.\n\n"
        "```\ncode in the quote line\n```\n\n- Item\n\n  Quoted words inside a list item."
    )
    out, _ = _quoted(markdown, body)
    assert out == markdown.replace("\n\nWords", "\n\n> Words")
