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
