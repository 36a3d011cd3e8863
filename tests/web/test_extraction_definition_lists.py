"""Definition lists of short values read as "term: value" lines; lists of blocks stay as they are."""

from __future__ import annotations

from lxml import etree

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.definition_lists import pair_definitions
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)


def _page(body: str) -> str:
    return f"<html><body><article><h1>Lamp</h1><p>{PROSE}</p>{body}<p>{PROSE}</p></article></body></html>"


def test_each_term_and_its_values_share_a_line() -> None:
    specs = (
        "<dl><dt>Weight</dt><dd>2 kg</dd><dt>Colour:</dt><dd>Grey</dd><dd>Blue</dd>"
        "<div><dt>Use</dt><dd>set <code>mode</code> to <em>on</em> first</dd></div></dl>"
    )
    text = convert(_page(specs), "text/html", url="https://shop.example.org/lamp").content
    assert "- **Weight**: 2 kg\n- **Colour:** Grey; Blue\n- **Use**: set `mode` to *on* first" in text


def test_lists_of_blocks_labels_or_empty_values_are_left_alone() -> None:
    lists = [
        "<dl><dt>run(x)</dt><dd><p>Runs it.</p><pre>run(1)</pre></dd></dl>",  # an API entry
        "<dl><dt><div>avatar</div><a href='/u/1'>ada</a></dt><dd>Member</dd></dl>",  # a block in a term
        "<dl><dt>Country</dt><dd> </dd><dt>City</dt><dd>Paris</dd></dl>",  # a term without a value
        "<dl><dd>Orphan value</dd><dt>Term</dt><dd>value</dd></dl>",  # a value without a term
    ]
    for markup in lists:
        root = parse_html(f"<div>{markup}</div>")
        before = etree.tostring(root)
        assert pair_definitions(root) == 0 and etree.tostring(root) == before, markup


def test_a_bold_term_is_not_bolded_twice_and_the_count_is_returned() -> None:
    root = parse_html(
        "<div><dl><dt><strong>Posts:</strong></dt><dd>1725</dd></dl><dl><dt>a</dt><dd>b</dd></dl></div>"
    )
    assert pair_definitions(root) == 2
    assert [etree.tostring(li, encoding="unicode") for li in root.iter("li")] == [
        "<li><strong>Posts:</strong> 1725</li>",
        "<li><b>a</b>: b</li>",
    ]
