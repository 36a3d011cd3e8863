"""Page text that looks like Markdown syntax renders as the page showed it, in every reading."""

from __future__ import annotations

import pytest
from markdown_it import MarkdownIt

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
