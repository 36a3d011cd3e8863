"""Ordered lists numbered as the page numbers them (``<ol start>``), not each from 1."""

from __future__ import annotations

from hermes_nb.notebook.markdown import markdown_to_html as card_html
from hermes_nb.web.content import convert
from hermes_nb.web.extraction.formats import markdown_to_html
from hermes_nb.web.extraction.list_numbers import number_lists
from hermes_nb.web.extraction.tree import parse_html

PROSE = "The service has run for two years and has needed less care than anyone on the team expected. "


def _numbered(markdown: str, body: str) -> tuple[str, int]:
    return number_lists(markdown, parse_html(f"<html><body>{body}</body></html>"))


def test_steps_broken_around_a_figure_go_on_from_where_they_stopped() -> None:
    page = (
        f"<html><body><article><h1>Repotting</h1><p>{PROSE * 3}</p>"
        "<ol><li>Water the plant a day before.</li><li>Tip the pot and ease the roots out.</li></ol>"
        f"<figure><img src='roots.jpg'><figcaption>Loosened roots</figcaption></figure><p>{PROSE}</p>"
        '<ol start="3"><li>Set the plant in fresh soil.</li><li>Water it again.</li></ol>'
        "</article></body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/repotting")
    assert "1. Water the plant a day before.\n2. Tip the pot" in doc.content
    assert "3. Set the plant in fresh soil.\n4. Water it again." in doc.content
    assert doc.metadata["list_numbers_restored"] == 1
    text = convert(page, "text/html", url="https://example.org/repotting", format="text").content
    assert "Set the plant in fresh soil." in text and "3." not in text


def test_a_list_of_one_item_per_list_counts_on() -> None:
    body = "".join(f'<ol start="{n}"><li>Step {n} of five</li></ol><p>Why.</p>' for n in range(2, 6))
    markdown = "\n\n".join(f"1. Step {n} of five\n\nWhy." for n in range(2, 6))
    out, lists = _numbered(markdown, body)
    assert [line[:2] for line in out.split("\n") if line[:1].isdigit()] == ["2.", "3.", "4.", "5."]
    assert lists == 4


def test_sublists_code_and_the_next_list_keep_their_own_numbers() -> None:
    body = '<ol start="7"><li>Seventh step</li><li>Eighth step</li></ol><ol><li>Other list</li></ol>'
    inside = "   1. a sub-step\n   ```\n   1. code\n   ```"
    out, _ = _numbered(f"1. Seventh step\n{inside}\n2. Eighth step\n1. Other list", body)
    assert out == f"7. Seventh step\n{inside}\n8. Eighth step\n1. Other list"


def test_lists_already_numbered_or_not_found_are_left_alone() -> None:
    body = '<ol start="4"><li>Fourth</li></ol><ol start="x"><li>Odd</li></ol><ol start="1"><li>One</li></ol>'
    assert _numbered("4. Fourth\n\n1. Odd\n\n1. One", body) == ("4. Fourth\n\n1. Odd\n\n1. One", 0)
    assert _numbered("1. Raised", '<ol start="²"><li>Raised</li></ol>') == ("1. Raised", 0)
    assert _numbered("1. Something else", '<ol start="4"><li>Fourth</li></ol>') == ("1. Something else", 0)
    assert _numbered("1. Fourth", "<p>no lists</p>") == ("1. Fourth", 0)


def test_a_countdown_is_numbered_down_as_a_browser_numbers_it() -> None:
    items = "<li>Gamma, the best</li><li>Beta, the runner-up</li><li>Alpha, the third</li>"
    markdown = "1. Gamma, the best\n2. Beta, the runner-up\n3. Alpha, the third"
    assert _numbered(markdown, f"<ol reversed>{items}</ol>") == (
        "3. Gamma, the best\n2. Beta, the runner-up\n1. Alpha, the third", 1
    )  # from its number of items
    out, _ = _numbered(markdown, f'<ol reversed start="10">{items}</ol>')
    assert out.startswith("10. Gamma") and out.endswith("8. Alpha, the third")
    # below 0 it cannot be Markdown; one item counted down from 1 is "1." already
    assert _numbered(markdown, f'<ol reversed start="1">{items}</ol>') == (markdown, 0)
    assert _numbered("1. Only", "<ol reversed><li>Only</li></ol>") == ("1. Only", 0)


def test_a_countdown_renders_as_one_in_html_and_in_the_notebook() -> None:
    page = (
        f"<html><body><article><h1>Top three</h1><p>{PROSE * 3}</p>"
        "<ol reversed><li>Gamma, the best of all</li><li>Beta, the runner-up</li><li>Alpha, the third</li>"
        "</ol>"
        f"<p>{PROSE}</p></article></body></html>"
    )
    doc = convert(page, "text/html", url="https://example.org/top")
    assert "3. Gamma, the best of all\n2. Beta, the runner-up\n1. Alpha, the third" in doc.content
    html = convert(page, "text/html", url="https://example.org/top", format="html").content
    assert '<ol start="3" reversed="">' in html  # CommonMark alone would show 3, 4, 5
    assert '<ol start="2" reversed="">' in markdown_to_html("2. b\n1. a\n\n- x\n\n7. g\n8. h")
    assert "reversed" not in markdown_to_html("7. g\n8. h\n\n1. a\n\ntext\n\n3. c\n3. c")
    assert '<ol start="3" reversed="">' in card_html(doc.content)  # the card a notebook shows
