"""``<noscript>`` blocks a page saved from its DOM wrote as escaped text are read as the markup they hold."""

from __future__ import annotations

from hermes_nb.web.content import convert

PIXEL = (
    '<noscript>&lt;img height="1" width="1" style="display:none" '
    'src="https://px.example/tr?id=1&amp;ev=PageView"/&gt;</noscript>'
)
ANSWER = "Fill it with equal parts water and white vinegar, boil it, and leave it an hour before rinsing. "


def test_an_escaped_tracking_pixel_is_not_read_as_the_pages_first_line() -> None:
    # A page too short for the extractors: the fallback reading printed the pixel's tag as text.
    page = (
        f"<html><head><title>Markets</title></head><body>{PIXEL}<div>Markets</div><div>Tech</div>"
        "<div>Wilbur Ross pledges not to intimidate climate scientists</div></body></html>"
    )
    for fmt in ("markdown", "text"):
        doc = convert(page, "text/html", url="https://example.org/markets", format=fmt)
        assert "img" not in doc.content and "px.example" not in doc.content, doc.content
        assert "Wilbur Ross pledges" in doc.content
    assert doc.metadata["noscript_markup_parsed"] == 1


def test_an_escaped_copy_for_readers_without_scripts_reads_as_its_text() -> None:
    page = (
        "<html><body><div id='app'>Loading…</div><noscript>&lt;article&gt;&lt;h1&gt;How do I descale a "
        f"kettle?&lt;/h1&gt;&lt;p&gt;{ANSWER * 6}&lt;/p&gt;&lt;/article&gt;</noscript></body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/t/kettle")
    assert "How do I descale a kettle?" in doc.content and "white vinegar" in doc.content
    assert "<" not in doc.content and "article" not in doc.content, doc.content


def test_noscript_text_that_is_not_markup_is_left_alone() -> None:
    page = (
        "<html><body><noscript>Please turn on JavaScript to see the comments.</noscript>"
        f"<article><h1>Descaling</h1><p>{ANSWER * 4}</p></article></body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/descaling")
    assert "white vinegar" in doc.content and "noscript_markup_parsed" not in doc.metadata
