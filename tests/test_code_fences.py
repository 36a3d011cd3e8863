"""Fenced code read as CommonMark reads it, by every step that walks Markdown line by line."""

from __future__ import annotations

from markdown_it import MarkdownIt

from hermes_nb.code_fences import CodeFences, closes, opening_fence
from hermes_nb.notebook.markdown import markdown_to_html as card_html
from hermes_nb.web.extraction.formats import markdown_to_text
from hermes_nb.web.extraction.lines import drop_lines
from hermes_nb.web.extraction.markdown_repairs import complete_tables, fences_on_own_lines, repaired
from hermes_nb.web.extraction.repeats import drop_copied_sections, drop_repeats
from hermes_nb.web.results import first_heading

#: Code that shows a fence (a README's example), wrapped in a longer fence as our converter writes it.
SHOWN_FENCE = "\n".join(
    [
        "Install it, then write this in your README:",
        "",
        "````",
        "```python",
        "# Heading inside code",
        "| a | b |",
        "| 1 | 2 |",
        "```",
        "Install it, then write this in your README:",
        "````",
        "",
        "Install it, then write this in your README:",
    ]
)
CODE = SHOWN_FENCE.split("\n")[2:10]


def _commonmark_code_lines(markdown: str) -> list[bool]:
    """Which lines markdown-it (a CommonMark renderer) puts in a fenced code block, fences included."""
    flags = [False] * len(markdown.split("\n"))
    for token in MarkdownIt("commonmark").parse(markdown):
        if token.type == "fence" and token.map:
            start, end = token.map
            flags[start:end] = [True] * (end - start)
    return flags


def test_the_fences_agree_with_a_commonmark_renderer() -> None:
    samples = [
        SHOWN_FENCE,
        "```\ncode\n```python\nstill code\n```\ntext",  # a closing fence has nothing after it
        "Use ```x``` here\n```x``` alone\ntext",  # a code span on one line is no fence
        "~~~\n```\n~~~\ntext",  # only the opening character closes
        "```\n    ```\nstill code\n```\ntext",  # four spaces before it: code, not a fence
        "   ```sh\nls\n   ```\ntext",  # up to three spaces before a fence
        "```\nnever closed\n\n# still code",
    ]
    for sample in samples:
        fences = CodeFences()
        assert [fences.read(line) for line in sample.split("\n")] == _commonmark_code_lines(sample), sample


def test_the_tracker_keeps_the_opening_run() -> None:
    fences = CodeFences()
    assert fences.read("~~~~ text") and fences.opening == "~~~~"
    assert fences.read("~~~") and fences.in_code
    assert fences.read("~~~~~ ") and not fences.in_code
    assert not fences.read("plain") and opening_fence("``` `") == ""
    assert closes("````", "```") and not closes("```", "````") and not closes("``` x", "```")


def test_repeats_and_line_drops_leave_code_that_shows_a_fence_alone() -> None:
    text, dropped = drop_repeats(SHOWN_FENCE)
    assert dropped == 1  # only the repeat after the block
    assert text.split("\n")[2:10] == CODE
    gone, count = drop_lines(SHOWN_FENCE, lambda line: line.startswith(("Install", "#", "|")))
    assert count == 2 and gone.split("\n")[:8] == CODE
    blocks = "\n\n".join(f"Paragraph number {n} says something long enough to be counted." for n in range(12))
    copied, _ = drop_copied_sections(f"{blocks}\n\n````\n```\n\n{blocks}\n````")
    assert copied.endswith("````") and copied.count("Paragraph number 11") == 2  # the copy in code stays


def test_repairs_leave_code_that_shows_a_fence_alone() -> None:
    assert complete_tables(SHOWN_FENCE) == SHOWN_FENCE  # the rows in code get no delimiter row
    assert fences_on_own_lines(SHOWN_FENCE) == SHOWN_FENCE
    assert repaired(SHOWN_FENCE) == SHOWN_FENCE
    # Three backticks a line of code runs into close a block opened by three, not one opened by four.
    assert fences_on_own_lines("```\nls -l```\ntext") == "```\nls -l\n```\ntext"
    assert fences_on_own_lines("````\nls -l```\n````") == "````\nls -l```\n````"


def test_text_format_title_and_card_read_the_block_whole() -> None:
    text = markdown_to_text(SHOWN_FENCE)
    assert "```python\n# Heading inside code\n| a | b |" in text
    assert first_heading("````\n```\n# Not a title\n```\n````\n# Title") == "Title"
    html = card_html(SHOWN_FENCE)
    assert html.count("<pre") == 1 and "Heading inside code" in html and "<table" not in html
