"""One reading of a Markdown heading line for every step that needs a heading's text."""

from __future__ import annotations

import pytest

from hermes_nb.markdown_heading import HEADING, HEADINGS
from hermes_nb.web.content import convert
from hermes_nb.web.extraction.formats import render
from hermes_nb.web.extraction.title_heading import drop_title_heading
from hermes_nb.web.results import first_heading


@pytest.mark.parametrize(
    ("line", "text"),
    [
        ("# Title", "Title"),
        ("## Title ##", "Title"),  # a closing run of #
        ("## C#", "C#"),  # a # the text ends with is the text's
        ("## Title #x", "Title #x"),
        ("   ### Indented  ", "Indented"),
        ("##\tTabbed", "Tabbed"),
        ("## ##", ""),  # an empty heading
    ],
)
def test_a_heading_line_reads_as_its_text(line: str, text: str) -> None:
    match = HEADING.match(line)
    assert match is not None
    assert match.group(1) == text


@pytest.mark.parametrize("line", ["#hashtag", "    # indented code", "####### seven", "text # not"])
def test_other_lines_are_not_headings(line: str) -> None:
    assert HEADING.match(line) is None


def test_every_reader_of_headings_keeps_a_closing_hash_that_is_text() -> None:
    markdown = "## ##\n\n## C#\n\nGenerics in C#."
    assert render(markdown, "text") == "C#\n\nGenerics in C#."
    assert first_heading(markdown) == "C#"  # the empty heading names nothing
    assert convert(markdown.encode(), "text/markdown", url="https://example.test/a.md").title == "C#"
    assert drop_title_heading("## C#\n\nGenerics.", "C#") == ("Generics.", 1)
    assert HEADINGS.search("text\n## Second line\n").group(1) == "Second line"  # type: ignore[union-attr]
