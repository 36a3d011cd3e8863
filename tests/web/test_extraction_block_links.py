"""Cards written as one link: their blurbs read as text, their headings keep the link."""

from __future__ import annotations

from lxml import etree

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.block_links import open_block_links
from hermes_nb.web.extraction.tree import parse_html

BLURB = (
    "Leverage engineering-led design, deep industry knowledge, and AI and data-driven insights to transform "
    "the technology platforms at the heart of your business {i}."
)


def _card(i: int) -> str:
    # A consultancy's service card as such pages write it: the whole card one link, nested in layout divs.
    return (
        f"<div><div><div><a href='/services/s{i}.html'><div></div><div><h3><span>Service {i}</span></h3>"
        f"<div class='desc'>{BLURB.format(i=i)}</div><div><span> Find out more </span></div></div></a>"
        "</div><div></div></div></div>"
    )


def test_a_card_link_opens_and_its_heading_keeps_the_link() -> None:
    headline = "<a href='/news/1'><p>Connected futures: the rise of smart homes around the world</p></a>"
    root = parse_html(f"<html><body><div>{_card(1)}{headline}</div></body></html>")
    assert open_block_links(root) == 1
    card = root.xpath("//div[@class='desc']")[0].getparent().getparent()
    assert card.tag == "div" and not card.attrib  # the card is a block now, not a link
    assert etree.tostring(card.find(".//h3"), encoding="unicode") == (
        '<h3><a href="/services/s1.html"><span>Service 1</span></a></h3>'
    )
    assert root.xpath("//a[@href='/news/1']")  # a link holding only a headline stays a link


def test_an_untyped_landing_page_reads_the_blurbs_of_its_card_links() -> None:
    # Every word of such a card is link text; read as links, the page was its introduction alone.
    intro = (
        "<h1>Vast services</h1><p>Whether you are starting up or in the Fortune Global 500, tap into our "
        "broad range of services and solutions to help you.</p>"
    )
    cards = "".join(_card(i) for i in range(8))
    page = f"<html><head><title>Services</title></head><body><main>{intro}{cards}</main></body></html>"
    doc = convert(page, "text/html", url="https://consult.example/us/en/services.html")
    for i in range(8):
        # The card's heading keeps the card's link (hyperlinks.py); its blurb reads as words.
        heading = f"### [Service {i}](https://consult.example/services/s{i}.html)"
        assert f"{heading}\n\n{BLURB.format(i=i)}" in doc.content
    assert doc.metadata["block_links_opened"] == 8
