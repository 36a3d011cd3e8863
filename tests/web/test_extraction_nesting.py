"""Pages nested deeper than libxml2's default limit: read to their end, their deep wrappers unwrapped."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.nesting import MAX_DEPTH, PARSER_DEPTH, flatten_deep_nesting
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


def test_a_page_deeper_than_the_parser_reads_says_it_is_cut_off() -> None:
    doc = convert(_nested(PARSER_DEPTH + 100), "text/html", url="https://example.org/deeper")
    assert AFTER not in doc.content
    assert "levels deep" in doc.metadata["parse_warning"] and "missing" in doc.metadata["parse_warning"]
