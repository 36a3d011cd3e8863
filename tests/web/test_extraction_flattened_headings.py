"""A list item's heading that trafilatura ran into the item's text gets its own line back."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.flattened_headings import Headings, page_headings, unflatten_headings
from hermes_nb.web.extraction.tree import parse_html

PROSE = "Our reviewers test every product for weeks at home and at work before they recommend one. " * 6


def test_a_heading_run_into_a_line_is_split_off_and_a_whole_heading_line_stays() -> None:
    headings = Headings(
        in_items={"The Best Monitor Arms", "Getting Started", "FABCON"},
        every={"The Best Monitor Arms", "Getting Started", "FABCON", "Getting Started with Git"},
    )
    markdown = "\n".join(
        [
            "- ### The Best Monitor Arms by Arriana Vasquez We tested a dozen arms.",
            "## Getting Started with Git",  # a heading of its own that starts like an item's: stays
            "- ### Getting Started",  # already alone on its line
            "1. ### Getting Started Read this ### FABCON more",
            "March 16, 2026 ## FABCON Atlanta",
            "C# and the # key, issue #12",
        ]
    )
    text, split = unflatten_headings(markdown, headings)
    assert text.split("\n") == [
        "- ### The Best Monitor Arms",
        "  by Arriana Vasquez We tested a dozen arms.",
        "## Getting Started with Git",
        "- ### Getting Started",
        "1. ### Getting Started",
        "   Read this",
        "   ### FABCON",
        "   more",
        "March 16, 2026",
        "## FABCON",
        "Atlanta",
        "C# and the # key, issue #12",
    ]
    assert split == 6
    assert unflatten_headings(markdown, Headings(set(), set())) == (markdown, 0)


def test_page_headings_knows_which_sit_in_list_items() -> None:
    root = parse_html(
        "<html><body><h1>Electronics</h1><ul><li><a href='/a'><h3> The Best\n Monitor Arms </h3></a>"
        "</li></ul></body></html>"
    )
    arms = "The Best Monitor Arms"
    assert page_headings(root) == Headings(in_items={arms}, every={"Electronics", arms})


def test_a_listing_of_cards_with_headings_reads_a_heading_per_card() -> None:
    cards = "".join(
        f"<li><article><h3><a href='/review/{i}'>The Best Monitor Arm number {i}</a></h3>"
        f"<span>by Reviewer {i}</span><p>We researched and tested more than a dozen arms, model {i}.</p>"
        "</article></li>"
        for i in range(6)
    )
    main = f"<main><h1>Accessories</h1><p>{PROSE}</p><ul>{cards}</ul><p>{PROSE}</p></main>"
    page = f"<html><body>{main}</body></html>"
    url = "https://reviews.example.org/electronics/"
    markdown = content.convert(page, "text/html", url=url).content
    heading = "### [The Best Monitor Arm number 0](https://reviews.example.org/review/0)"
    assert f"- {heading}\n  by Reviewer 0 We researched" in markdown
    text = content.convert(page, "text/html", url=url, format="text").content
    assert "\n\nThe Best Monitor Arm number 0\n\n" in text and "#" not in text
