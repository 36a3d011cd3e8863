"""Lists inside table cells: read as the cell's text, where trafilatura left the cell empty."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.cell_lists import unlist_cells
from hermes_nb.web.extraction.tree import parse_html

INTRO = "<p>" + "The course meets twice a week and covers the theory of modern data science. " * 4 + "</p>"
SCHEDULE = (
    "<table><tr><th>Date</th><th>Topic</th><th>Readings</th></tr>"
    "<tr><td>Sep 6</td><td>Tensors</td><td><ul><li>Jennrich's algorithm notes</li>"
    "<li>Moitra's survey of mixtures</li></ul></td></tr>"
    "<tr><td>Sep 8</td><td>Sum of squares</td><td>Barak's lecture notes</td></tr></table>"
)


def test_a_list_in_a_table_cell_reads_in_its_row() -> None:
    page = f"<html><body><article><h1>Course</h1>{INTRO}{SCHEDULE}{INTRO}</article></body></html>"
    doc = convert(page, "text/html", url="https://example.edu/course")
    row = next(line for line in doc.content.split("\n") if line.startswith("| Sep 6 |"))
    assert "Jennrich's algorithm notes" in row and "Moitra's survey of mixtures" in row  # was "|  |"
    assert "|---|---|---|" in doc.content and doc.metadata["cell_lists_read"] == 1


def test_only_lists_inside_cells_are_retagged() -> None:
    root = parse_html(f"<html><body><ul><li>menu</li></ul>{SCHEDULE}<ol><li>after</li></ol></body></html>")
    assert unlist_cells(root) == 1
    assert [el.tag for el in root.iter("ul", "ol", "li")] == ["ul", "li", "ol", "li"]
    assert root.xpath("string(//td[div])") == "Jennrich's algorithm notesMoitra's survey of mixtures"
