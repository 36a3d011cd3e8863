"""Framesets: read as empty, naming the frames that hold the text, never a parser failure."""

from __future__ import annotations

from types import SimpleNamespace

from hermes_nb.notebook import web_cards
from hermes_nb.web.content import convert

FRAMESET = (
    "<html><head><title>API docs</title></head><frameset cols='20%,80%'>"
    "<frame src='overview-frame.html'><frameset rows='50%,50%'><frame src='/api/allclasses.html'>"
    "<frame src='overview-frame.html'></frameset></frameset>"
    "<noframes><p>This page uses frames.</p></noframes></html>"
)


def test_a_frameset_is_read_as_empty_and_names_its_frames() -> None:
    doc = convert(FRAMESET, "text/html", url="https://docs.example.org/v1/index.html")
    assert doc.title == "API docs" and doc.content == ""
    assert doc.metadata["frames"] == [
        "https://docs.example.org/v1/overview-frame.html",
        "https://docs.example.org/api/allclasses.html",
    ]
    assert doc.metadata["extractor"] == "none" and "frameset" in doc.metadata["extractor_reason"]
    assert "parse_warning" not in doc.metadata  # readability's cleaner used to fail on it


def test_a_page_with_a_body_is_no_frameset() -> None:
    page = "<html><body><p>Text of the page that a reader sees.</p><iframe src='/ad.html'></iframe></body>"
    doc = convert(page, "text/html", url="https://example.org/")
    assert "frames" not in doc.metadata and "Text of the page" in doc.content


def test_the_card_says_where_a_framesets_text_is() -> None:
    doc = convert(FRAMESET, "text/html", url="https://docs.example.org/v1/index.html")
    page = SimpleNamespace(url="https://docs.example.org/v1/index.html", title=doc.title, content="",
                           error=None, truncated=False, total_chars=0, metadata=doc.metadata)
    for card in (web_cards._page_text(page), web_cards._page_html(page, open_=True)):
        assert "frameset" in card and "allclasses.html" in card and "confidence" not in card


def test_frames_resolve_against_the_pages_base() -> None:
    page = FRAMESET.replace("<head>", "<head><base href='https://cdn.example.net/docs/'>")
    doc = convert(page, "text/html", url="https://docs.example.org/v1/index.html")
    assert doc.metadata["frames"][0] == "https://cdn.example.net/docs/overview-frame.html"


def test_what_is_written_inside_an_iframe_is_never_read() -> None:
    # A browser shows the framed document and none of the iframe's own content, which libxml2 keeps as
    # text: a fallback reading the whole body printed it as the page's words, markup and all.
    page = (
        "<html><body><iframe src='/player'><div class='fallback'>Update your browser</div></iframe>"
        "<iframe src='/ad'>Your browser does not support iframes.</iframe></body></html>"
    )
    for fmt in ("markdown", "text"):
        doc = convert(page, "text/html", url="https://example.org/watch", format=fmt)
        assert "div" not in doc.content and "browser" not in doc.content, doc.content
    assert doc.metadata["inline_frame_text_dropped"] == 2


def test_an_iframe_beside_the_text_leaves_the_text_whole() -> None:
    page = (
        "<html><body><article><h1>Tide tables</h1><p>High water at Dover falls near noon today, and the "
        "evening tide runs a little higher than usual for the season.</p><iframe src='/map'>map</iframe>"
        "<p>Low water follows about six hours later, as it does along most of this coast.</p></article>"
        "</body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/tides")
    assert "High water at Dover" in doc.content and "Low water follows" in doc.content
    assert "map" not in doc.content.split("Tide tables", 1)[1]
