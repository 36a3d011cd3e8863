"""The text a reader sees below an element, and the words outside its links: the same nodes, in the same
order, as the XPath that defines them (``.//text()`` outside scripts, styles, templates and the head)."""

from __future__ import annotations

import lxml.html

from hermes_nb.web.extraction.scripts import word_count
from hermes_nb.web.extraction.tree import parse_html, squash, unlinked_word_count, visible_text

_UNSEEN = "ancestor::script or ancestor::style or ancestor::noscript or ancestor::template or ancestor::head"
VISIBLE = f".//text()[not({_UNSEEN})]"
UNLINKED = f".//text()[not({_UNSEEN} or ancestor::a)]"

PAGE = """<html><head><title>Head title</title><style>p{}</style></head><body>
<div id="top">Lead <b>bold</b><script>var hidden = 1;</script> after script<!-- note --> after note
  <noscript>enable scripts <p>inside noscript</p></noscript> after noscript
  <p>One <a href="/a">linked <i>words</i></a> tail of link <template><p>inert</p></template> end</p>
  <ul><li>item <a href="/b">more</a></li><li><style>.x{}</style>styled tail</li></ul>
</div>
<noscript><div id="inside">all hidden</div></noscript>
<p id="plain">Plain <em>nested <span>deep</span></em> text</p>
</body></html>"""


def _by_xpath(el: object, expr: str) -> list[str]:
    return [str(t) for t in el.xpath(expr)]  # type: ignore[attr-defined]


def test_every_element_reads_as_the_xpath_reads_it() -> None:
    for page in (parse_html(PAGE), lxml.html.document_fromstring(PAGE)):  # comments dropped, and kept
        assert page is not None
        for el in page.iter():
            if not isinstance(el.tag, str):
                continue
            assert visible_text(el) == squash(" ".join(_by_xpath(el, VISIBLE))), el.tag
            assert unlinked_word_count(el) == sum(word_count(t) for t in _by_xpath(el, UNLINKED)), el.tag


def test_unseen_text_goes_and_the_text_after_it_stays() -> None:
    root = parse_html(PAGE)
    assert root is not None
    top = root.get_element_by_id("top")
    text = visible_text(top)
    assert "after script" in text and "after noscript" in text and "styled tail" in text
    assert "hidden" not in text and "inside noscript" not in text and "inert" not in text
    assert visible_text(root.get_element_by_id("inside")) == ""  # inside a <noscript>: nothing seen
    assert visible_text(root.find("head")) == ""
    assert visible_text(root.get_element_by_id("plain")) == "Plain nested deep text"


def test_a_tree_nested_thousands_deep_is_read_without_recursion() -> None:
    body = lxml.html.fromstring("<body></body>")
    el = body
    for _ in range(5000):  # deeper than Python's recursion limit
        el = lxml.html.etree.SubElement(el, "div")
        el.text = "x "
    lxml.html.etree.SubElement(el, "script").text = "var unseen = 1;"  # so the walk cannot leave it to lxml
    assert word_count(visible_text(body)) == 5000 and unlinked_word_count(body) == 5000
