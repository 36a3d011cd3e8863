"""The lines a page prints over an advert's slot are not its text."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.ad_labels import drop_ad_labels

PROSE = "The council voted on Tuesday to extend the night bus routes to the new housing estates. " * 5


def test_label_lines_go_and_prose_about_adverts_stays() -> None:
    markdown = "\n\n".join(
        [
            "First paragraph.",
            "Advertisement",
            "SKIP ADVERTISEMENT",
            "ADVERTISEMENT - CONTINUE READING BELOW",
            "**Sponsored**",
            "Advertisements on buses pay for a tenth of the service.",  # prose about adverts
            "```\nAdvertisement\n```",  # code is never touched
            "| Ad | Cost |",
        ]
    )
    text, dropped = drop_ad_labels(markdown)
    assert dropped == 4
    assert text == (
        "First paragraph.\n\nAdvertisements on buses pay for a tenth of the service.\n\n"
        "```\nAdvertisement\n```\n\n| Ad | Cost |"
    )


def test_an_article_read_without_its_advert_labels() -> None:
    slot = "<div class='slot'><p>Advertisement</p></div>"
    body = f"<article><h1>Night buses</h1><p>{PROSE}</p>{slot}<p>{PROSE}</p></article>"
    url = "https://news.example.org/2026/buses"
    doc = content.convert(f"<html><body>{body}</body></html>", "text/html", url=url)
    assert "Advertisement" not in doc.content and doc.content.count("night bus routes") == 10
