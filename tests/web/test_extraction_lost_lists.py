"""Lists a reading lost between blocks it kept go back after the block before them."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.lost_lists import LostList, page_lists, restore_lists
from hermes_nb.web.extraction.tree import parse_html

INTRO = (
    "<p>Identity theft happens when someone misuses your personal or financial information to make "
    "purchases, obtain benefits or open accounts in your name. The most common types include:</p>"
)
TYPES = [
    "Medical identity theft",
    "Employment identity theft",
    "Synthetic identity theft",
    "Account takeovers",
]
AFTER = (
    "<p>Whatever the type, the first step is the same: contact the companies where you noticed errant "
    "charges, and ask their fraud departments to freeze the accounts concerned.</p>"
)


def _page(body: str) -> str:
    # No element named like a content container: trafilatura reads paragraphs one by one, and no lists.
    head = "<head><title>Identity theft</title></head>"
    return f"<html>{head}<body><div class='wysiwyg'>{body}</div></body></html>"


def test_a_list_between_paragraphs_the_reading_kept_goes_back_after_the_first() -> None:
    items = "".join(f"<li>{t}</li>" for t in TYPES)
    doc = convert(_page(f"{INTRO}<ul>{items}</ul>{AFTER}"), "text/html", url="https://id.example/theft")
    bullets = "\n".join(f"- {t}" for t in TYPES)
    assert f"The most common types include:\n\n{bullets}\n\nWhatever the type" in doc.content
    assert doc.metadata["lost_lists_restored"] == 1


def test_link_lists_and_comment_lists_stay_out() -> None:
    links = "".join(
        f"<li><a href='/read/{i}'>{t}: what it is and how to stop it</a></li>" for i, t in enumerate(TYPES)
    )
    comments = "".join(
        f"<li class='comment'><p>{t}? This happened to my uncle last spring, and it took him months.</p></li>"
        for t in TYPES
    )
    root = parse_html(_page(f"{INTRO}<ul>{links}</ul>{AFTER}<ol class='commentlist'>{comments}</ol>"))
    assert page_lists(root) == []


def test_a_list_the_reading_has_is_not_doubled_even_numbered_as_text() -> None:
    lost = LostList(
        "1. Select the closed curve.\n2. Extrude it.", "a curve into a solid", ("selecttheclosedcurve",)
    )
    reading = "Extrude a curve into a solid\n\n1 Select the closed curve.\n\n2 Extrude it."
    assert restore_lists(reading, [lost]) == (reading, 0)
    without = "Extrude a curve into a solid\n\nThen fillet the edges."
    assert restore_lists(without, [lost]) == (
        "Extrude a curve into a solid\n\n1. Select the closed curve.\n2. Extrude it.\n\n"
        "Then fillet the edges.",
        1,
    )
