"""Output formats of an extraction: ``hn.extract(..., format=)`` for URLs (emulator) and local files."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.errors import InvalidInputError
from hermes_nb.testing import Emulator, use_emulator
from hermes_nb.web import content
from hermes_nb.web.extraction.formats import markdown_to_html, markdown_to_text, render
from hermes_nb.web.extraction.html_markdown import fragment_to_markdown
from hermes_nb.web.extraction.tree import parse_html

MARKDOWN = """# Engines

The **analytical** engine, by [Babbage](https://example.org/babbage), was *never* built.

## Parts

- The `mill`
- The store

| part | role |
|---|---|
| mill | compute |

```
x = 1
```

> Quoted line.
"""


def test_text_has_headings_on_their_own_lines_and_blank_lines_between_paragraphs() -> None:
    text = markdown_to_text(MARKDOWN)
    blocks = text.split("\n\n")
    assert blocks[0] == "Engines"
    assert blocks[1] == "The analytical engine, by Babbage, was never built."
    assert "Parts" in blocks and "The mill" in blocks and "The store" in blocks
    assert "mill  compute" in blocks and "x = 1" in blocks and "Quoted line." in blocks
    for mark in ("#", "**", "](", "|", "```", "`", "> "):
        assert mark not in text


def test_a_line_break_inside_a_paragraph_stays_a_line_break() -> None:
    # trafilatura ends each line of a block with one newline (a card's title, year, rating): joined,
    # a page of cards read as one line in the text and one paragraph in the HTML.
    cards = "#1\nScream 7\n2026\n\n#2\nThe Bluff"
    assert markdown_to_text(cards) == "#1\nScream 7\n2026\n\n#2\nThe Bluff"
    assert "<p>#1<br />\nScream 7<br />\n2026</p>" in markdown_to_html(cards)


def test_inline_tags_and_escapes_of_trafilatura_markdown() -> None:
    # Raised and lowered characters join the word they belong to, as a browser's text does.
    assert markdown_to_text("E = mc<sup>2</sup>, H<sub>2</sub>O, snake\\_case and is_eligible_checkout") == (
        "E = mc2, H2O, snake_case and is_eligible_checkout"
    )
    assert "mc<sup>2</sup>" in markdown_to_html("E = mc<sup>2</sup>")
    # Escaped marks are characters, not emphasis or links, whatever follows them.
    assert markdown_to_text("partial(func, /, \\*args, \\*\\*keywords) and **bold**") == (
        "partial(func, /, *args, **keywords) and bold"
    )
    assert markdown_to_text("\\[draft\\](v2) of [the spec](https://example.org/spec)") == (
        "[draft](v2) of the spec"
    )
    # Struck-through text (trafilatura's <del>, <s>) is plain text; an escaped tilde stays one.
    assert markdown_to_text("Was ~~$99~~ now $79, \\~~not struck\\~~") == "Was $99 now $79, ~~not struck~~"


def test_html_is_rendered_and_raw_markup_escaped() -> None:
    html = markdown_to_html(MARKDOWN + "\n<script>alert(1)</script>\n")
    assert "<h1>Engines</h1>" in html and "<strong>analytical</strong>" in html
    assert "<table>" in html and "<pre><code>x = 1" in html and "<li>The <code>mill</code></li>" in html
    assert "<script>" not in html and "&lt;script&gt;" in html


def test_unknown_format_is_refused_with_the_choices() -> None:
    with pytest.raises(ValueError, match="markdown, text, html"):
        render("x", "pdf")
    with pytest.raises(InvalidInputError, match="markdown, text, html"):
        hn.extract(Path("whatever.md"), format="docx")


def test_convert_in_every_format() -> None:
    page = "<html><body><article><h1>Title</h1><p>" + "A sentence about engines. " * 20 + "</p></article>"
    md = content.convert(page, "text/html", url="https://example.org/a")
    text = content.convert(page, "text/html", url="https://example.org/a", format="text")
    html = content.convert(page, "text/html", url="https://example.org/a", format="html")
    assert md.content.startswith("# Title") and "format" not in md.metadata
    assert text.content.startswith("Title\n\nA sentence") and text.metadata["format"] == "text"
    assert html.content.startswith("<h1>Title</h1>") and html.metadata["format"] == "html"


def test_local_file_in_text_and_html(tmp_path: Path) -> None:
    note = tmp_path / "note.md"
    note.write_text(MARKDOWN, encoding="utf-8")
    as_text = hn.extract(note, format="text")[0]
    as_html = hn.extract([note], format="html")[0]
    assert as_text.error is None and as_text.content.startswith("Engines\n\nThe analytical engine")
    assert as_text.metadata["format"] == "text"
    assert as_html.content.startswith("<h1>Engines</h1>")


@pytest.fixture
def emu(hermetic: Path) -> Iterator[Emulator]:
    with Emulator(seed=0) as server, use_emulator(server):
        config.set("web.max_retries", 0)
        yield server


def test_url_formats_share_one_cached_extraction(emu: Emulator) -> None:
    url = emu.page_url("/site/articles/hello-world.html")
    md = hn.extract(url, backend="direct")[0]
    fetched = len([r for r in emu.requests if r.path == "/site/articles/hello-world.html"])
    text = hn.extract(url, backend="direct", format="text")[0]
    html = hn.extract(url, backend="direct", format="html")[0]
    again = len([r for r in emu.requests if r.path == "/site/articles/hello-world.html"])
    assert fetched == again == 1  # the second and third calls were served from the one cached form
    first = md.content.split("\n\n")[0]  # the article's first paragraph: its title is the document's
    assert first.startswith("Table feature image") and "format" not in md.metadata
    assert md.title == text.title == html.title == "Hello, World: a first notebook"
    assert text.content.startswith(first + "\n\n") and html.content.startswith(f"<p>{first}</p>")
    assert text.metadata["format"] == "text" and html.metadata["format"] == "html"
    assert hn.extract(url, backend="direct")[0].content == md.content  # Markdown unchanged by the others


def test_magic_format_option(tmp_path: Path) -> None:
    from IPython.core.interactiveshell import InteractiveShell

    (tmp_path / "report.md").write_text("# Quarterly report\n\nAll **good**.\n", encoding="utf-8")
    shell = InteractiveShell.instance()
    shell.history_manager.enabled = False
    shell.extension_manager.load_extension("hermes_nb")
    try:
        result = shell.run_line_magic("web_extract", f"--format text {tmp_path / 'report.md'}")
    finally:
        shell.extension_manager.unload_extension("hermes_nb")
    assert result[0].content == "Quarterly report\n\nAll good."


def test_a_code_block_that_shows_a_fence_stays_one_block() -> None:
    markdown = "Query:\n\n````\n```tasks\nnot done\n```\n````\n\nAfter.\n\n```python\nx = 1\n```"
    assert markdown_to_text(markdown) == "Query:\n\n```tasks\nnot done\n```\n\nAfter.\n\nx = 1"
    root = parse_html("<html><body><p>Query:</p><pre>```tasks\nnot done\n```</pre></body></html>")
    assert fragment_to_markdown(root.find("body")) == "Query:\n\n````\n```tasks\nnot done\n```\n````"
