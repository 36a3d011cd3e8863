"""Page text that looks like Markdown syntax renders as the page showed it, in every reading."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.html_markdown import fragment_to_markdown
from hermes_nb.web.extraction.markdown_escapes import escaped, escaped_block_start
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)
#: Text a page shows (its source escapes it), and what a reader sees.
SHOWN = (
    "Escape &amp;lt; as &lt;name&gt; shows, call f(*args, **kwargs) with snake_case names, "
    "AT&amp;T &amp;copy 2020, a [note](here) and a back\\slash\\*.",
    "Escape &lt; as <name> shows, call f(*args, **kwargs) with snake_case names, "
    "AT&T &copy 2020, a [note](here) and a back\\slash\\*.",
)


def _trafilaturas_reading(title: str, *blocks: str) -> str:
    """The Markdown of an article of ``blocks`` between paragraphs of prose, as trafilatura reads it."""
    body = f"<h1>{title}</h1><p>{PROSE}</p>{''.join(blocks)}<p>{PROSE}</p>"
    page = f"<html><body><article>{body}</article></body></html>"
    doc = convert(page, "text/html", url=f"https://example.org/{title.lower()}")
    assert doc.metadata["extractor"].startswith("trafilatura")
    return doc.content


def _rendered_text(markdown: str) -> str:
    """What a notebook shows for ``markdown``: its text, the tags taken off the rendered HTML."""
    html = MarkdownIt("commonmark").enable("table").render(markdown)
    root = parse_html(f"<div>{html}</div>")
    return " ".join(root.xpath("string(//div)").split())


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("*args and **kwargs", "\\*args and \\*\\*kwargs"),
        ("a <name> tag", "a \\<name> tag"),
        ("Use &lt; and AT&T", "Use \\&lt; and AT&T"),
        ("C:\\dir and a\\*b", "C:\\dir and a\\\\\\*b"),
        ("[1](x) ~x~ `x`", "\\[1\\](x) \\~x\\~ \\`x\\`"),
    ],
)
def test_inline_syntax_is_escaped(text: str, expected: str) -> None:
    assert escaped(text) == expected
    assert _rendered_text(escaped(text)) == text


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("2024. A year", "2024\\. A year"),
        ("1) one", "1\\) one"),
        ("# 1 hit", "\\# 1 hit"),
        ("> quoted", "\\> quoted"),
        ("- dash", "\\- dash"),
        ("#hashtag", "#hashtag"),
        ("-5 degrees", "-5 degrees"),
        ("12 monkeys", "12 monkeys"),
    ],
)
def test_a_block_marker_is_escaped_only_where_a_block_starts(line: str, expected: str) -> None:
    assert escaped_block_start(line) == expected
    assert _rendered_text(escaped_block_start(line)) == line


def test_our_converter_escapes_prose_but_not_code() -> None:
    root = parse_html(
        f"<div><p>{SHOWN[0]}</p><p>2024. A year.</p><ul><li>1. first</li></ul>"
        "<pre>a &amp;amp; b &lt;p&gt; *x*</pre><p>inline <code>&amp;nbsp; *x*</code> here</p>"
        "<h2>The &lt;head&gt; element</h2></div>"
    )
    markdown = fragment_to_markdown(root.find(".//div"))
    assert "```\na &amp; b <p> *x*\n```" in markdown and "`&nbsp; *x*`" in markdown
    shown = _rendered_text(markdown)
    for text in (SHOWN[1], "2024. A year.", "1. first", "The <head> element", "inline &nbsp; *x* here"):
        assert text in shown


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
    from lxml import etree

    from hermes_nb.web.extraction.candidates import trafilatura_candidate

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
    from hermes_nb.web.extraction.candidates import UNCLOSED_MATH

    openers = "\\( " * (UNCLOSED_MATH + 1)
    content = _trafilaturas_reading(
        "Regex",
        f"<p>Inline \\(x^2\\) stays a formula. {PROSE}</p>",
        f"<p>Escaped parentheses: {openers}{PROSE}</p>",
    )
    assert "Inline $x^2$ stays a formula." in content
    assert f"Escaped parentheses: {openers.strip()}" in _rendered_text(content)
