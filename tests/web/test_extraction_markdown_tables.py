"""A table without header cells is still a Markdown table: its delimiter row is added."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.markdown_tables import complete_tables

PROSE = "Electricians charge by the hour, and the rate depends on experience and on the region. " * 8


def test_a_delimiter_row_goes_under_the_first_row_of_a_bare_table() -> None:
    bare = "Rates:\n\n| **Level** | **Rate** |  | \n| Apprentice | $45 | evenings | \n"
    bare += "| Master | $120 |  | \n\nEnd."
    assert complete_tables(bare) == (
        "Rates:\n\n| **Level** | **Rate** |  | \n|---|---|---|\n| Apprentice | $45 | evenings | \n"
        "| Master | $120 |  | \n\nEnd."
    )
    whole = "| Name | Price |\n|:---|---:|\n| A | 1 |"
    assert complete_tables(whole) == whole  # already a table
    code = "```\n| a | b |\n| c | d |\n```"
    assert complete_tables(code) == code  # pipes in code are code
    assert complete_tables("| a lone row |\n\ntext") == "| a lone row |\n\ntext"  # no table to head
    assert complete_tables(r"| a \| b | c |" + "\n| 1 | 2 |") == r"| a \| b | c |" + "\n|---|---|\n| 1 | 2 |"


def test_a_page_table_without_th_cells_reads_as_a_table_in_markdown_and_html() -> None:
    table = (
        "<table><tr><td><b>Experience level</b></td><td><b>Hourly rate</b></td></tr>"
        "<tr><td>Apprentice</td><td>$45–$70</td></tr><tr><td>Journeyman</td><td>$80–$130</td></tr>"
        "<tr><td>Master</td><td>$120–$200</td></tr></table>"
    )
    page = f"<html><body><article><h1>Rates</h1><p>{PROSE}</p>{table}<p>{PROSE}</p></article></body></html>"
    url = "https://blog.example.org/2025/electrician-rates"
    markdown = content.convert(page, "text/html", url=url).content
    assert "Hourly rate** | \n|---|---|\n| Apprentice" in markdown
    html = content.convert(page, "text/html", url=url, format="html").content
    assert "<table>" in html and "<td>Apprentice</td>" in html
