"""Emoji drawn as images are read as the emoji they show; other images stay out of the text."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.emoji_images import emoji_as_text
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)


def test_an_emoji_image_reads_as_its_emoji() -> None:
    page = (
        f"<html><body><article><h1>Thread</h1><p>{PROSE}</p>"
        "<p>Great idea <img class='emoji' alt='👍🏽' src='1f44d.png'> really, "
        "<img alt='\U0001f9d1\u200d\U0001f4bb' src='technologist.png'>"
        f"<img alt='a photo of the loom' src='loom.jpg'> done. {PROSE}</p>"
        f"<p>{PROSE}</p></article></body></html>"
    )
    doc = convert(page, "text/html", url="https://forum.example.org/t/1")
    # the joiner inside the technologist too: trafilatura deleted it (🧑💻, two emoji)
    assert "Great idea 👍🏽 really, \U0001f9d1\u200d\U0001f4bb done." in doc.content
    assert "photo" not in doc.content
    assert doc.metadata["emoji_images_read"] == 2


def test_only_alt_texts_of_emoji_alone_are_read() -> None:
    root = parse_html(
        "<p>a<img alt='😀'>b<img alt=' 🎉🎉 '>c<img alt='smile 😀'>d<img alt=''>e<img alt='x'>f<img>g</p>"
    )
    assert emoji_as_text(root) == 2
    assert root.xpath("string(//p)") == "a😀b🎉🎉cdefg"
