"""Titles a reading lost beside text it kept: accordion questions and card-link headings come back."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.lost_labels import Label, page_labels, restore_labels
from hermes_nb.web.extraction.tree import parse_html

ANSWERS = [
    "Orders placed before noon leave our warehouse the same day and arrive within three working days.",
    "Every item can be returned within thirty days of delivery for a full refund, no questions asked.",
    "We ship to every country in the European Union and to the United Kingdom, Norway and Switzerland.",
]
QUESTIONS = ["How long does delivery take?", "Can I return an item?", "Which countries do you ship to?"]


def _accordion() -> str:
    # An accordion as FAQ sections write one: each question a button naming its answer's panel.
    return "".join(
        f"<div class='faq-item'><h3><button class='accordion-toggle' aria-expanded='false' "
        f"aria-controls='faq-{i}'>{q}</button></h3><div id='faq-{i}' class='panel'><p>{a}</p></div></div>"
        for i, (q, a) in enumerate(zip(QUESTIONS, ANSWERS, strict=True))
    )


def test_page_labels_pair_each_toggle_with_its_panel_and_each_card_link_with_its_blurb() -> None:
    card = (
        "<a href='/services/audit'><h4><span>Audit</span></h4><div>Our external audits deliver insights "
        "that help clients understand their risks.</div></a>"
    )
    control = "<button aria-controls='faq-0'>Open</button>"  # a control, not a title: too few words
    root = parse_html(f"<html><body>{_accordion()}{control}{card}</body></html>")
    labels = page_labels(root)
    assert labels == [
        Label(QUESTIONS[0], 3, "orders placed before noon leave our"),
        Label(QUESTIONS[1], 3, "every item can be returned within"),
        Label(QUESTIONS[2], 3, "we ship to every country in"),
        Label("Audit", 4, "our external audits deliver insights that"),
    ]


def test_a_lost_title_goes_back_before_its_text_and_nowhere_else() -> None:
    body = "Orders placed before noon leave our warehouse the same day."
    reading = f"## Delivery\n\n{body}\n\nThanks for reading."
    labels = [
        Label("How long does delivery take?", 3, "orders placed before noon leave our"),
        Label("Where is the shop?", 0, "the shop is on the corner of"),  # its text is not in the reading
    ]
    text, restored = restore_labels(reading, labels)
    assert restored == 1
    assert text == (f"## Delivery\n\n### How long does delivery take?\n\n{body}\n\nThanks for reading.")


def test_a_title_the_reading_kept_is_not_doubled() -> None:
    opening = "orders placed before noon leave our"
    body = "Orders placed before noon leave our warehouse the same day."
    for reading in (
        f"**How long does delivery take?**\n\n{body}",  # kept as a line of its own
        f"How long does delivery take? {body}",  # run into its text
        f"### [How long does delivery take?](https://shop.example/faq#1)\n\n{body}",  # kept as a link
    ):
        assert restore_labels(reading, [Label("How long does delivery take?", 0, opening)]) == (reading, 0)


def test_a_restored_title_is_escaped_so_it_stays_a_line_of_text() -> None:
    reading = "Orders placed before noon leave our warehouse the same day."
    label = Label("1. How long does *delivery* take?", 0, "orders placed before noon leave our")
    text, _ = restore_labels(reading, [label])
    assert text.split("\n")[0] == r"1\. How long does \*delivery\* take?"


def test_an_faq_read_through_the_pipeline_keeps_its_questions() -> None:
    # Extractors drop buttons as controls: the reading kept every answer and none of the questions.
    intro = (
        "<h1>Shipping and returns</h1><p>Everything you need to know about how we send your order and "
        "how to send it back if it is not right for you, written by our customer care team.</p>"
    )
    page = (
        f"<html><head><title>Shipping</title></head><body><main>{intro}<h2>Frequently asked questions</h2>"
        f"{_accordion()}</main></body></html>"
    )
    doc = convert(page, "text/html", url="https://shop.example/help/shipping")
    for question, answer in zip(QUESTIONS, ANSWERS, strict=True):
        assert f"### {question}\n\n{answer}" in doc.content
    assert doc.metadata["lost_titles_restored"] == 3


OPENING = (
    "Brands set up shoppable storefronts on the platforms their customers already use, so that shoppers "
    "can discover, browse and buy products without leaving the app they were scrolling ({i})."
)
PARAGRAPH = f"<p>{OPENING}</p>"


def test_section_headings_come_back_where_the_reading_read_paragraphs_alone() -> None:
    # Paragraphs that open alike: each heading goes back before its own. No element named like a content
    # container: trafilatura reads the paragraphs one by one and leaves
    # every heading out.
    sections = "".join(f"<h2>Section heading number {i}</h2>{PARAGRAPH.format(i=i)}" for i in range(4))
    page = (
        "<html><head><title>Social commerce</title></head><body><div class='wysiwyg body'>"
        f"<h2>Social commerce</h2>{PARAGRAPH.format(i='intro')}{sections}</div></body></html>"
    )
    doc = convert(page, "text/html", url="https://brand.example/blog/social-commerce")
    for i in range(4):
        assert f"## Section heading number {i}\n\n{OPENING.format(i=i)}" in doc.content
    assert "## Social commerce" not in doc.content  # the page's title stays out of its text
    assert doc.metadata["lost_titles_restored"] == 4


def test_teasers_headlines_come_back_only_on_a_listing() -> None:
    teaser = "<div class='teaser'><h3><a href='/story/{i}'>Story headline {i}</a></h3>" + PARAGRAPH + "</div>"
    root = parse_html(f"<html><body>{''.join(teaser.format(i=i) for i in range(2))}</body></html>")
    assert [label.title for label in page_labels(root)] == []
    assert [label.title for label in page_labels(root, headlines=True)] == [
        "Story headline 0",
        "Story headline 1",
    ]


def test_a_restored_heading_leaves_its_permalink_sign_behind() -> None:
    sections = "".join(
        f"<h2>Step {i}<a class='headerlink' href='#s{i}' title='Permalink'>¶</a></h2>{PARAGRAPH.format(i=i)}"
        for i in range(3)
    )
    page = f"<html><head><title>Guide</title></head><body><div class='wysiwyg'>{sections}</div></body></html>"
    doc = convert(page, "text/html", url="https://docs.example.org/guide")
    for i in range(3):
        assert f"## Step {i}\n\n{OPENING.format(i=i)}" in doc.content
    assert "¶" not in doc.content


def test_nothing_goes_back_inside_fenced_code() -> None:
    # A manual page's sections read as one code block: a title put back there would read as code.
    reading = "```\nls - list directory contents\n\nls [OPTION]... [FILE]...\n```"
    label = Label("NAME", 2, "ls list directory contents")
    assert restore_labels(reading, [label]) == (reading, 0)
