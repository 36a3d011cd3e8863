"""A list whose items hold data tables (a buying guide's products) reads as blocks, its tables as tables."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.sectioned_lists import unlist_sections
from hermes_nb.web.extraction.tree import parse_html

REVIEW = "We tested this camera for six weeks on a porch in the rain and it kept recording all along. " * 3


def _product(i: int) -> str:
    specs = "".join(f"<tr><th>Spec {k}</th><td>Value {i}.{k}</td></tr>" for k in range(3))
    return f"<li><h3>{i}. Camera {i}</h3><table class='product-specs'>{specs}</table><p>{REVIEW}</p></li>"


def test_only_lists_whose_items_hold_a_table_are_re_tagged() -> None:
    root = parse_html(
        f"<html><body><ol>{_product(1)}{_product(2)}</ol><ul><li><h3>Card</h3><p>text</p></li></ul>"
        "<ul><li>one-row table <table><tr><td>a</td><td>b</td></tr></table></li></ul></body></html>"
    )
    assert unlist_sections(root) == 1
    assert [el.tag for el in root.find("body")] == ["div", "ul", "ul"]
    assert [el.tag for el in root.find("body")[0]] == ["div", "div"]


def test_a_buying_guides_spec_tables_read_as_tables() -> None:
    products = "".join(_product(i) for i in range(1, 5))
    article = f"<article><h1>The best cameras</h1><p>{REVIEW}</p><ol>{products}</ol></article>"
    page = f"<html><body>{article}</body></html>"
    url = "https://guides.example.org/2026/01/best-cameras"
    lines = [line.rstrip() for line in content.convert(page, "text/html", url=url).content.split("\n")]
    for i in range(1, 5):
        at = lines.index(f"| Spec 0 | Value {i}.0 |")
        assert lines[at + 1 : at + 3] == ["|---|---|", f"| Spec 1 | Value {i}.1 |"]
