"""A table set in a blockquote to indent it (LWN's release histories) reads as a table, not as one line."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.quoted_tables import unquote_tables
from hermes_nb.web.extraction.tree import parse_html

PROSE = "The project kept a steady cadence over the year, with a release nearly every month of it. " * 3
RELEASES = [("4.2.3", "April 2014"), ("4.2.4", "May 2014"), ("4.3", "July 2014"), ("4.4", "January 2015")]


def _table(rows: list[tuple[str, str]]) -> str:
    body = "".join(f"<tr><td>{a}</td><td>{b}</td></tr>" for a, b in rows)
    return f"<table><tr><th>Release</th><th>Date</th></tr>{body}</table>"


def test_only_blockquotes_holding_a_data_table_are_re_tagged() -> None:
    root = parse_html(
        f"<html><body><blockquote><div>{_table(RELEASES)}</div></blockquote>"
        "<blockquote><p>A quotation.</p></blockquote>"
        "<blockquote><table><tr><td>one row</td></tr></table></blockquote></body></html>"
    )
    assert unquote_tables(root) == 1
    assert [el.tag for el in root.find("body")] == ["div", "blockquote", "blockquote"]


def test_an_indented_release_table_reads_as_a_table_and_a_quotation_stays_one() -> None:
    page = (
        f"<html><body><article><h1>Release histories</h1><p>{PROSE}</p>"
        f"<p>The release history tells a different story:</p><blockquote>{_table(RELEASES)}</blockquote>"
        f"<p>{PROSE}</p><blockquote><p>Most releases are of the bug-fix variety, said a developer "
        f"who has worked on the suite for a decade.</p></blockquote><p>{PROSE}</p></article></body></html>"
    )
    result = content.convert(page, "text/html", url="https://news.example.org/Articles/1/")
    lines = [line.rstrip() for line in result.content.split("\n")]
    at = lines.index("| Release | Date |")
    assert lines[at + 1 : at + 6] == ["|---|---|", *(f"| {a} | {b} |" for a, b in RELEASES)]
    quotation = "> Most releases are of the bug-fix variety, said a developer who has worked on the suite"
    assert f"{quotation} for a decade." in lines
    assert result.metadata["quoted_tables_unquoted"] == 1
