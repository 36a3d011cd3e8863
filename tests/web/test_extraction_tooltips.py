"""A tooltip's bubble, which another element names as its description or label, is not read as text."""

from __future__ import annotations

from hermes_nb.web.content import convert

PROSE = "Video became the fastest-growing result type in the yearly report, ahead of images and news. "


def _page(paragraph: str) -> str:
    return f"<html><body><article><h1>Trends</h1><p>{PROSE * 3}</p><p>{paragraph}</p></article></body></html>"


def test_a_glossary_terms_bubble_does_not_run_into_the_sentence() -> None:
    term = (
        "<span class='Term'><dfn aria-labelledby='tip-1' tabindex='0'>search engine</dfn>"
        "<span class='Term_tooltip__8VN' id='tip-1'><strong>Search Engine</strong><br>A search engine is a "
        "website through which users search the web.<br><a href='/glossary/search-engine'>Learn more</a>"
        "</span></span>"
    )
    page = _page(f"Video was the fastest-growing {term} result type we analysed. {PROSE}")
    doc = convert(page, "text/html", url="https://example.org/trends", format="text")
    assert "fastest-growing search engine result type we analysed." in doc.content, doc.content
    assert "website through which" not in doc.content and "Learn more" not in doc.content
    assert doc.metadata["tooltips_dropped"] == 1


def test_an_info_icons_bubble_by_role_goes_and_an_element_that_only_calls_itself_a_tooltip_stays() -> None:
    icon = (
        "<button aria-describedby='fee-help'>?</button><span role='tooltip' id='fee-help'>A one-off charge "
        "for opening the account.</span>"
    )
    # Medium marks its author cards role="tooltip"; nothing names them, and they are what the page shows.
    card = "<span role='tooltip' class='q'><a href='/@ann'>Ann Writer</a></span>"
    page = _page(f"The fee {icon} is waived this year, writes {card} for the team. {PROSE}")
    doc = convert(page, "text/html", url="https://example.org/fees", format="text")
    assert "one-off charge" not in doc.content and "The fee" in doc.content
    assert "writes Ann Writer for the team." in doc.content
    assert doc.metadata["tooltips_dropped"] == 1
