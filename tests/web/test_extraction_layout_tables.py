"""Tables that lay out a page: the article in a cell reads as paragraphs, not as one table row."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.layout_tables import unlay_tables
from hermes_nb.web.extraction.tree import parse_html

PARAGRAPHS = [
    f"Paragraph {n} of the weekly's lead story goes on about the trademark dispute between the founders, "
    "the boards they sit on and what the courts were asked to decide before the spring." for n in range(1, 7)
]
ARTICLE = "<h2>A trademark battle</h2><div>By Nathan</div>" + "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
PRICES = "<table><tr><th>Board</th><th>Price</th></tr><tr><td>Uno</td><td>$20</td></tr></table>"


def _page(cell: str) -> str:
    menu = "<td><a href='/front'>Front page</a><br><a href='/prev'>Previous week</a></td>"
    return f"<html><body><table><tr>{menu}<td class='MidColumn'>{cell}</td></tr></table></body></html>"


def test_an_article_set_in_a_table_cell_reads_as_its_paragraphs() -> None:
    doc = convert(_page(ARTICLE), "text/html", url="https://example.org/weekly")
    assert "| " not in doc.content  # before: one table row holding the whole article
    lines = doc.content.split("\n")
    assert all(p in lines for p in PARAGRAPHS)  # each on a line of its own
    assert doc.metadata["layout_tables_unlaid"] == 1


def test_a_cells_loose_text_becomes_paragraphs_and_a_data_table_in_it_stays_a_table() -> None:
    linked = " ".join(f"<a href='javascript:void(0)'>note {n}</a> words of the story" for n in range(12))
    cell = f"I am a rather elderly man, {linked}.<h2>Chapter</h2>{ARTICLE}{PRICES}tail words"
    root = parse_html(_page(cell))
    assert unlay_tables(root) == 1
    column = root.find(".//div[@class='MidColumn']")
    assert column is not None and not root.xpath("//td[@class]|//tr[td[@class]]")
    assert [child.tag for child in column][:2] == ["p", "h2"] and column[-1].tag == "p"
    assert column[0].text_content().startswith("I am a rather elderly man, note 0 words")
    assert column[-1].text == "tail words" and root.xpath("count(//table//td)") == 2  # the prices' table


def test_data_tables_and_short_cells_stay_tables() -> None:
    long_datum = "<tr><td>" + "word " * 200 + "</td><td>x</td></tr>"  # long, but one block: a datum
    two_short_blocks = "<tr><td><p>Short</p><p>cell</p></td></tr>"
    # A schedule whose one long cell (a week's readings, in paragraphs) holds few of its words.
    weeks = "".join(f"<tr><td>Week {n}</td><td>{'topic words ' * 40}</td></tr>" for n in range(8))
    schedule = f"<table>{weeks}<tr><td>Week 9</td><td><p>{'reading ' * 150}</p><p>more</p></td></tr></table>"
    for table in (PRICES, f"<table>{long_datum}</table>", f"<table>{two_short_blocks}</table>", schedule):
        root = parse_html(f"<html><body>{table}</body></html>")
        assert unlay_tables(root) == 0 and root.find(".//table") is not None


def _figures(title: str, rows: int) -> str:
    body = "".join(f"<tr><td>Developer {n}</td><td>{100 - n}</td><td>{n}.5%</td></tr>" for n in range(rows))
    return f"<table><tr><th colspan='3'>{title}</th></tr>{body}</table>"


def test_data_tables_set_side_by_side_in_a_table_read_as_tables_under_its_title() -> None:
    grid = (
        "<table><tr><th colspan='2'>Most active developers</th></tr>"
        f"<tr><td>{_figures('By changesets', 4)}</td><td>{_figures('By changed lines', 4)}</td></tr></table>"
    )
    prose = "".join(f"<p>{p}</p>" for p in PARAGRAPHS)
    page = f"<html><body><article><h1>Development statistics</h1>{prose}{grid}{prose}</article></body></html>"
    doc = convert(page, "text/html", url="https://example.org/Articles/2/")
    lines = doc.content.split("\n")
    assert "Most active developers" in lines
    for title in ("By changesets", "By changed lines"):
        at = lines.index(f"| {title} |  |  |")
        assert lines[at + 1 : at + 3] == ["|---|---|---|", "| Developer 0 | 100 | 0.5% |"]
    assert doc.metadata["layout_tables_unlaid"] == 1


def test_a_table_is_no_grid_of_tables_when_a_cell_holds_words_besides_its_table() -> None:
    root = parse_html(
        f"<html><body><table><tr><td>{_figures('Figures', 3)}</td><td>{_figures('More', 3)}</td></tr>"
        "<tr><td>A note under the figures that is longer than any title of a grid would be.</td></tr>"
        f"</table><table><tr><td>Before the table {_figures('Figures', 3)}</td></tr></table>"
        "<table><tr><td><table><tr><td>one</td></tr><tr><td>column</td></tr></table></td></tr></table>"
        "</body></html>"
    )
    assert unlay_tables(root) == 0
