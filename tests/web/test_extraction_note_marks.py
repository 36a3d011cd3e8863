"""Note references read apart from the word they follow: "daily[2]", never "daily2"."""

from __future__ import annotations

from hermes_nb.web.content import convert

PROSE = "The service has run for two years and has needed less care than anyone on the team expected. "


def _page(paragraph: str) -> str:
    return f"<html><body><article><h1>Notes</h1><p>{PROSE * 3}</p><p>{paragraph}</p></article></body></html>"


def test_a_markdown_renderers_footnote_mark_is_not_glued_to_its_word() -> None:
    # GitHub's footnotes (and most Markdown renderers'): a raised link to the note.
    page = _page(
        'It answers thousands of queries daily<sup><a href="#user-content-fn-5" id="user-content-fnref-5" '
        'data-footnote-ref="true">2</a></sup>. I expected more trouble.'
    )
    text = convert(page, "text/html", url="https://example.org/notes", format="text")
    assert "queries daily[2]." in text.content and "daily2" not in text.content
    markdown = convert(page, "text/html", url="https://example.org/notes")
    assert "daily<sup>\\[2\\]</sup>." in markdown.content  # rendered raised: daily[2]
    assert markdown.metadata["note_marks_bracketed"] == 1


def test_pandocs_note_reference_and_a_typographers_mark() -> None:
    page = _page(
        'Tides run higher in spring<a href="#fn1" class="footnote-ref" role="doc-noteref"><sup>1</sup></a> '
        'and lower in neap weeks<sup><a href="#dagger">†</a></sup>. ' + PROSE
    )
    text = convert(page, "text/html", url="https://example.org/tides", format="text").content
    assert "spring[1] and lower in neap weeks[†]." in text


def test_raised_text_that_is_no_note_stays_as_it_was() -> None:
    page = _page(
        'The field is 12 km<sup>2</sup>, the 1<sup>st</sup> of its kind; Wikipedia cites it.'
        '<sup class="reference"><a href="#cite_note-1">[1]</a></sup> '
        'See <sup><a href="/notes/3">3</a></sup>, '
        '<a href="#top">Back to top</a>. ' + PROSE
    )
    doc = convert(page, "text/html", url="https://example.org/field", format="text")
    assert "12 km2, the 1st of its kind; Wikipedia cites it.[1]" in doc.content
    assert "[[1]]" not in doc.content and "[3]" not in doc.content and "[Back to top]" not in doc.content
    assert "note_marks_bracketed" not in doc.metadata
