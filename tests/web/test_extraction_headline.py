"""A page's title is its headline: the site's name beside it goes, and a part the page's <h1> says wins."""

from __future__ import annotations

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.headline import headline


@pytest.mark.parametrize(
    ("title", "site", "url", "headings", "expected"),
    [
        # the site's name at the end or at the start, as og:site_name or as the host says it
        ("Hooks at a Glance – React", "React", None, [], "Hooks at a Glance"),
        ("Target | Sofas & Couches", "Target", None, [], "Sofas & Couches"),
        ("Best Cameras | Security.org", "", "https://www.security.org/cameras/", [], "Best Cameras"),
        ("Tiny homes - Recharged", "", "https://recharged.example.com/tiny", [], "Tiny homes"),
        # only the site's part goes: the keywords between stay with their separators
        ("Sofas | Living Room Furniture | Target", "Target", None, [], "Sofas | Living Room Furniture"),
        # the part the page's <h1> says is the headline; the rest are keywords
        ("History of coffee | Origin, Facts", "", None, ["Menu", "History of coffee"], "History of coffee"),
        ("Hooks at a Glance – React", "", "https://react.dev/", ["Hooks at a Glance"], "Hooks at a Glance"),
    ],
)
def test_the_site_and_the_keywords_go(
    title: str, site: str, url: str | None, headings: list[str], expected: str
) -> None:
    assert headline(title, site=site, url=url, headings=headings) == expected


@pytest.mark.parametrize(
    ("title", "site", "headings"),
    [
        ("Laptop vs. Desktop - How Many Watts?", "EcoFlow", ["Power at home"]),  # no part names the site
        ("A long title: Hello there", "Example", ["A long title: But different"]),  # no separator
        ("Colophon", "Daring Fireball", ["About This Site"]),  # one part
        ("Daring Fireball", "Daring Fireball", []),  # the site's name alone is the title
        ("Well-known words", "Well", []),  # a hyphen without spaces is no separator
        ("Minecraft 1.8 - The Bountiful Update", "", ["Minecraft News"]),  # a <h1> that says neither part
        ("Shared History — evolve extension", "", ["evolve extension"]),  # a blog's name in its <h1>
    ],
)
def test_a_title_without_a_site_part_stays_as_declared(title: str, site: str, headings: list[str]) -> None:
    assert headline(title, site=site, url="https://blog.example/post", headings=headings) == title


def test_a_converted_page_is_titled_by_its_headline_and_keeps_its_site_name() -> None:
    page = (
        "<html><head><title>Harbour plan review | Notes and figures | City News</title>"
        "<meta property='og:site_name' content='City News'></head><body><main><article>"
        "<h1>Harbour plan review</h1>"
        + "<p>The committee met on Tuesday to review the harbour plan before any money is spent.</p>" * 8
        + "</article></main></body></html>"
    )
    doc = content.convert(page, "text/html", url="https://news.example.org/2026/05/harbour-plan")
    assert doc.title == "Harbour plan review"
    assert doc.metadata["sitename"] == "City News"
