"""Pages nested deeper than libxml2's default limit: read to their end, their deep wrappers unwrapped."""

from __future__ import annotations

import pytest

from hermes_nb.web.content import convert
from hermes_nb.web.extraction import pipeline
from hermes_nb.web.extraction.nesting import (
    MAX_DEPTH,
    PARSER_DEPTH,
    flatten_deep_nesting,
    parser_cut_off,
    shallow_markup,
)
from hermes_nb.web.extraction.tree import parse_html

DEEP = "Deep text here, long enough to be read as a paragraph of the page's content by every extractor."
AFTER = "After the deep part the page goes on with a paragraph the reader must still see, in full."


def _nested(levels: int, tag: str = "div") -> str:
    return (
        f"<html><body><h1>Title</h1>{f'<{tag}>' * levels}<p>{DEEP}</p>"
        f"<div>First block</div><div>second block</div>{f'</{tag}>' * levels}<p>{AFTER}</p></body></html>"
    )


def test_a_page_nested_past_libxml2s_default_limit_is_read_to_its_end() -> None:
    for levels in (300, 1_500):  # libxml2 stopped at 256 and dropped the rest of the page
        doc = convert(_nested(levels), "text/html", url="https://example.org/deep")
        assert DEEP in doc.content and AFTER in doc.content, levels
        assert "blocksecond" not in doc.content  # unwrapped blocks stay apart
        assert doc.metadata["deep_wrappers_unwrapped"] > 0
        assert "parse_warning" not in doc.metadata


def test_unclosed_inline_tags_unwrap_without_splitting_words() -> None:
    root = parse_html("<html><body>" + "<font>" * (MAX_DEPTH + 50) + "<p>wo<b>rd</b> end</p></body></html>")
    unwrapped, cut_off = flatten_deep_nesting(root)
    assert unwrapped >= 50 and not cut_off
    assert "word end" in root.text_content()
    assert max(len(list(el.iterancestors())) for el in root.iter()) <= MAX_DEPTH + 2


def test_a_shallow_page_is_left_as_it_is() -> None:
    root = parse_html(_nested(20))
    before = len(list(root.iter()))
    assert flatten_deep_nesting(root) == (0, False)
    assert len(list(root.iter())) == before


@pytest.mark.parametrize("tag", ["div", "font", "section"])
@pytest.mark.parametrize("levels", [PARSER_DEPTH + 100, 5_000])
def test_a_page_deeper_than_the_parser_reads_is_read_to_its_end(tag: str, levels: int) -> None:
    html = _nested(levels, tag)
    assert parser_cut_off(parse_html(html))  # libxml2 alone stops at 2,048 levels and drops the rest
    doc = convert(html, "text/html", url="https://example.org/deeper")
    assert DEEP in doc.content and AFTER in doc.content
    assert "blocksecond" not in doc.content
    assert "parse_warning" not in doc.metadata


def _depth(root: object) -> int:
    return max(len(list(el.iterancestors())) for el in root.iter())  # type: ignore[attr-defined]


def test_shallow_markup_unwraps_the_tags_past_max_depth_and_keeps_paragraphs_and_headings() -> None:
    html = "<html><body>" + "<div>" * 3_000 + "<h2>Head</h2><p>wo<b>rd</b> end</p>" + "</div>" * 3_000
    shallow = shallow_markup(html + "<p>Tail</p></body></html>")
    root = parse_html(shallow)
    assert _depth(root) <= MAX_DEPTH + 4 and not parser_cut_off(root)
    assert "<h2>Head</h2><p>word end</p>" in shallow  # paragraphs and headings keep their tags
    assert root.xpath("string(//h2)") == "Head" and root.xpath("string((//p)[last()])") == "Tail"


def test_shallow_markup_reads_tags_as_the_parser_does() -> None:
    # Tags inside a script, a style or a comment are not tags; an unclosed <p> is closed by the next.
    quoted = "<script>var s = '" + "<div>" * 500 + "';</script><style>/* <div> */</style><!-- <div><div> -->"

    def page(levels: int) -> str:
        body = quoted + "<p>one" * 500 + "<div>" * levels + "<div>x</div>" * 3
        return f"<html><body>{body}</body></html>"

    assert shallow_markup(page(MAX_DEPTH - 10)) == page(MAX_DEPTH - 10)  # nothing past MAX_DEPTH
    deeper = page(MAX_DEPTH + 10)
    # the 503 quoted stay, and the divs from level 2 (under <body>) to MAX_DEPTH below <html>
    assert shallow_markup(deeper).count("<div>") == 503 + MAX_DEPTH - 1
    assert "'" + "<div>" * 500 + "'" in shallow_markup(deeper)


def test_an_end_tag_closes_what_was_left_open_inside_it() -> None:
    # <span> left open inside each deep <div>: the </div> closes it, so depth does not run away.
    html = "<html><body>" + "<div><span>a</div>" * 1_000 + "</body></html>"
    assert shallow_markup(html) == html


def test_a_page_still_cut_off_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pipeline, "shallow_markup", lambda html: html)  # as if the tags could not tell
    doc = convert(_nested(PARSER_DEPTH + 100), "text/html", url="https://example.org/deeper")
    assert AFTER not in doc.content
    assert "levels deep" in doc.metadata["parse_warning"] and "missing" in doc.metadata["parse_warning"]
