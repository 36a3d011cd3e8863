"""Text trafilatura would mangle is held from it and given back: references, joiners, formula openers."""

from __future__ import annotations

from lxml import etree
from test_extraction_markdown_escapes import PROSE, SHOWN, _rendered_text  # tests/web is on the path

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.candidates import trafilatura_candidate
from hermes_nb.web.extraction.held_text import UNCLOSED_MATH
from hermes_nb.web.extraction.tree import parse_html


def _trafilaturas_reading(title: str, *blocks: str) -> str:
    """The Markdown of an article of ``blocks`` between paragraphs of prose, as trafilatura reads it."""
    body = f"<h1>{title}</h1><p>{PROSE}</p>{''.join(blocks)}<p>{PROSE}</p>"
    page = f"<html><body><article>{body}</article></body></html>"
    doc = convert(page, "text/html", url=f"https://example.org/{title.lower()}")
    assert doc.metadata["extractor"].startswith("trafilatura")
    return doc.content


def test_trafilaturas_reading_shows_character_references_as_the_page_does() -> None:
    # trafilatura unescapes its text a second time: "&lt;blink&gt;" on a page about escaping read "<blink>".
    page = (
        f"<html><body><article><h1>Escaping</h1><p>{PROSE}</p><p>{SHOWN[0]} {PROSE}</p>"
        "<pre>Markup('&amp;lt;blink&amp;gt;') if a &amp;&amp; b</pre>"
        f"<p>{PROSE}</p></article></body></html>"
    )
    doc = convert(page, "text/html", url="https://docs.example.org/escaping")
    assert doc.metadata["extractor"].startswith("trafilatura")
    assert "Markup('&lt;blink&gt;') if a && b" in doc.content
    assert SHOWN[1] in _rendered_text(doc.content)
    text = convert(page, "text/html", url="https://docs.example.org/escaping", format="text").content
    assert SHOWN[1] in " ".join(text.split())


def test_a_page_holding_the_stand_in_keeps_it() -> None:
    # The stand-in trafilatura reads in place of each "&" is a symbol no page is expected to use; a
    # page that does use it keeps it, and its "&" (the old double unescape is the lesser harm).
    content = _trafilaturas_reading("Marks", f"<p>The group mark \u2bd2 and AT&amp;T. {PROSE}</p>")
    assert "The group mark \u2bd2 and AT&T." in content


def test_the_shared_tree_is_left_as_it_was() -> None:
    # A tail both holds touch: the space after a bold word, and an ampersand.
    root = parse_html(
        f"<html><body><article><p>{PROSE}</p><ul><li><b>Fast</b> AT&amp;T &amp;lt; setup</li></ul>"
        f"<pre>a &amp;&amp; b</pre><p>{PROSE}</p></article></body></html>"
    )
    before = etree.tostring(root)
    text = trafilatura_candidate(root, None).markdown
    assert "**Fast** AT&T \\&lt; setup" in text and "a && b" in text
    assert etree.tostring(root) == before


def test_unclosed_formula_openers_are_held_from_trafilaturas_formula_search() -> None:
    # Its search for \( … \) takes time in the square of the text's length when the openers are not
    # closed (100 KB of them took 15 s); such a text is read as text, its backslashes shown.
    openers = "\\( " * (UNCLOSED_MATH + 1)
    content = _trafilaturas_reading(
        "Regex",
        f"<p>Inline \\(x^2\\) stays a formula. {PROSE}</p>",
        f"<p>Escaped parentheses: {openers}{PROSE}</p>",
    )
    assert "Inline $x^2$ stays a formula." in content
    assert f"Escaped parentheses: {openers.strip()}" in _rendered_text(content)


def test_joiners_inside_words_and_emoji_stay_and_a_blank_paragraph_of_one_goes() -> None:
    # trafilatura deletes characters that do not print: Persian lost the non-joiner inside its words,
    # emoji sequences their joiners. A joiner alone (<p>&zwj;</p>, an editor's blank line) still goes.
    persian = "من می\u200cخواهم این کتاب\u200cها را بخوانم زیرا نویسنده\u200cی آن\u200cها دانشمند است."
    content = _trafilaturas_reading(
        "Joiners",
        f"<p>{persian} {PROSE}</p><p>&zwj;</p>",
        "<p>A family \U0001f468\u200d\U0001f469\u200d\U0001f467 and a teacher "
        f"\U0001f9d1\u200d\U0001f3eb. {PROSE}</p>",
    )
    assert persian in content
    assert "\U0001f468\u200d\U0001f469\u200d\U0001f467" in content and "\U0001f9d1\u200d\U0001f3eb" in content
    assert not [line for line in content.split("\n") if line.strip("\u200d ") == "" and line]


def test_a_list_items_fields_are_read_apart_and_the_tree_is_left_as_it_was() -> None:
    # trafilatura reads a list item as one line and joined its <div>s' text: "Print length320 pages".
    items = (
        "<ul><li class='card'><div class='card'><div class='label'><span>Print length</span></div>"
        "<div><span class='icon'></span></div><div class='value'><span>320 pages</span></div></div></li>"
        "<li><div>Language</div><div>English</div></li><li><div>Past month</div><div>Verified <b>purchase"
        "</b></div><div>Fast shipping</div></li><li>Hardcover, <div>one field</div></li></ul>"
    )
    text = _trafilaturas_reading("Details", items)
    assert "- Print length 320 pages\n- Language English\n" in text
    assert "- Past month Verified **purchase** Fast shipping\n" in text
    assert "- Hardcover, one field" in text
    assert "\ue000" not in text
    root = parse_html(f"<html><body>{items}</body></html>")
    before = etree.tostring(root)
    trafilatura_candidate(root, "https://example.org/details")
    assert etree.tostring(root) == before


def test_the_space_before_a_bold_word_in_a_list_items_block_stays() -> None:
    item = "<div>Verified <b>purchase</b>, packed <em>well</em></div>"
    text = _trafilaturas_reading("Review", f"<ul><li>{item}</li></ul>")
    assert "- Verified **purchase**, packed *well*" in text
