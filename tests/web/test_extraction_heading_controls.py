"""Permalink signs and edit links inside headings are controls, not words of the heading."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.heading_controls import drop_heading_controls
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)
PAGE = (
    "<html><body><article><h1>Guide</h1>"
    f"<h2>Installation<a class='headerlink' href='#installation' title='Permalink'>¶</a></h2><p>{PROSE}</p>"
    "<h2 id='h'><a href='#h' aria-label='Link'><svg><path d='M0'/></svg></a>Usage</h2>"
    f"<p>{PROSE}</p><h2>History<span class='mw-editsection'><span>[</span><a href='/w/edit'>edit</a>"
    f"<span>]</span></span></h2><p>{PROSE}</p><dl><dt>run(x)<a href='#run'>#</a></dt><dd>{PROSE}</dd></dl>"
    f"<h2><a href='#s2'>2. Section with a numbered anchor</a></h2><p>{PROSE}</p>"
    f"<h2>Edit <a href='/edit'>your profile</a></h2><p>{PROSE}</p></article></body></html>"
)


def test_permalinks_and_edit_links_leave_the_headings() -> None:
    text = convert(PAGE, "text/html", url="https://docs.example.org/guide").content
    for heading in ("## Installation\n", "## Usage\n", "## History\n"):
        assert heading in text
    assert "¶" not in text and "edit\\]" not in text and "run(x)#" not in text
    assert "2. Section with a numbered anchor" in text  # a heading that is a link keeps its words
    assert "Edit [your profile](https://docs.example.org/edit)" in text  # it says more than "edit": kept


def test_the_count_is_returned() -> None:
    assert drop_heading_controls(parse_html(PAGE)) == 4
