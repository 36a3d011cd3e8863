"""Prose in an element whose class trafilatura reads as boilerplate ("w-embed", "slides") is read."""

from __future__ import annotations

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.misnamed import PROSE_WORDS, unmask_misnamed
from hermes_nb.web.extraction.tree import parse_html

PARAGRAPH = (
    "Tipping customs differ from one trade to the next, and a chart helps guests settle the bill "
    "without doing sums at the table. The amounts below are what most guides in the country suggest. "
)
ROWS = "".join(
    f"<tr><td>Service number {i} in the list of trades</td><td>{10 + i} percent of the bill.</td></tr>"
    for i in range(8)
)
TABLE = f"<table><thead><tr><th>Service</th><th>Suggested tip</th></tr></thead><tbody>{ROWS}</tbody></table>"


def _article(block: str) -> str:
    body = f"<article><h1>Tipping guide</h1><p>{PARAGRAPH * 3}</p>{block}<p>{PARAGRAPH * 2}</p></article>"
    return f"<html><head><title>Tipping guide</title></head><body>{body}</body></html>"


def test_a_table_in_a_webflow_embed_block_is_read() -> None:
    page = _article(f"<div class='w-embed'><style>td {{ padding: 8px }}</style>{TABLE}</div>")
    doc = content.convert(page, "text/html", url="https://blog.example.org/tipping-guide")
    assert "Service number 7 in the list of trades" in doc.content
    assert doc.metadata["misnamed_blocks_kept"] == 1


def test_a_table_of_short_cells_in_an_embed_block_is_read() -> None:
    """Data cells ("Yes", "~47M") are not prose, but a table of rows is content whatever its wrapper."""
    rows = "".join(
        f"<tr><td>Insurer {i}</td><td>For-Profit</td><td>~{40 + i}M</td><td>Yes</td></tr>" for i in range(6)
    )
    page = _article(f"<div class='w-embed'><table><tr><th>Company</th><th>Type</th></tr>{rows}</table></div>")
    doc = content.convert(page, "text/html", url="https://blog.example.org/insurers")
    assert "Insurer 5" in doc.content and "~45M" in doc.content
    assert doc.metadata["misnamed_blocks_kept"] == 1


@pytest.mark.parametrize(
    "table",
    [
        "<table><tr><td>Layout</td><td>only</td></tr><tr><td>two</td><td>rows</td></tr></table>",
        "<table>"
        + "".join(
            f"<tr><td><a href='/{i}'>Story {i}</a></td><td><a href='/t/{i}'>Tag</a></td></tr>"
            for i in range(6)
        )
        + "</table>",
    ],
)
def test_layout_and_link_tables_keep_their_wrappers_class(table: str) -> None:
    assert unmask_misnamed(parse_html(_article(f"<div class='w-embed'>{table}</div>"))) == 0


STORY_LINKS = "".join(f"<li><a href='/story/{i}'>Another story, number {i}.</a></li>" for i in range(8))
MISNAMED = ["listicle-slides", "expand-collapse-content", "product-meta viewport-content"]


@pytest.mark.parametrize("cls", MISNAMED)
def test_prose_under_a_misleading_class_loses_only_the_misleading_words(cls: str) -> None:
    root = parse_html(_article(f"<div class='{cls} keep-me'><p>{PARAGRAPH * 2}</p></div>"))
    assert unmask_misnamed(root) == 1
    assert root.xpath("//div[@class='keep-me']")


@pytest.mark.parametrize(
    "block",
    [
        # a caption: too few words to be prose
        "<div class='slide'><p>Our team at the spring fair.</p></div>",
        # a carousel of links: prose-length, but link text
        f"<ul class='slides'>{STORY_LINKS}</ul>",
        # prose, but its other name says it is furniture
        f"<div class='embed share-bar'><p>{PARAGRAPH * 2}</p></div>",
        f"<div class='comment-meta'><p>{PARAGRAPH * 2}</p></div>",
    ],
)
def test_captions_link_lists_and_named_furniture_keep_their_class(block: str) -> None:
    root = parse_html(_article(block))
    assert unmask_misnamed(root) == 0


def test_the_prose_threshold_counts_visible_words_only() -> None:
    # A block's style sheet is not prose: it does not lift a short caption over the threshold.
    style = "<style>" + " ".join(f".c{i} {{ color: red. }}" for i in range(PROSE_WORDS)) + "</style>"
    root = parse_html(_article(f"<div class='w-embed'>{style}<p>A short caption. Two sentences.</p></div>"))
    assert unmask_misnamed(root) == 0


COMMENTS = "".join(
    f"<div class='comment-item'><p>Reader {i} liked the chart and asked about tipping in taxis.</p></div>"
    for i in range(3)
)


def _annotated(wrapper: str) -> str:
    """A post whose body sits in a comment-named wrapper (an "annotate this passage" widget)."""
    post = f"<h1>Tipping guide</h1><div class='post-content'><p>{PARAGRAPH * 3}</p>{TABLE}</div>"
    body = f"<main><div class='{wrapper}'>{post}</div><section id='comments'>{COMMENTS}</section></main>"
    return f"<html><head><title>Tipping guide</title></head><body>{body}</body></html>"


def test_a_post_inside_a_comment_named_wrapper_is_read_as_the_post() -> None:
    doc = content.convert(_annotated("commentOnSelection"), "text/html", url="https://forum.example.org/p/1")
    assert "Service number 7 in the list of trades" in doc.content
    assert "Tipping customs differ" in doc.content
    assert doc.metadata["misnamed_blocks_kept"] == 1


def test_a_comment_wrapper_loses_only_its_comment_words() -> None:
    root = parse_html(_annotated("commentOnSelection keep-me"))
    assert unmask_misnamed(root) == 1
    assert root.xpath("//div[@class='keep-me']/div[@class='post-content']")


def test_a_threads_posts_named_comment_stay_comments() -> None:
    # Forum software names each post "comment" around its "post-content": many alike, not one wrapper.
    post = f"<div class='comment_wrap'><div class='post-content'><p>{PARAGRAPH * 2}</p></div></div>"
    root = parse_html(f"<html><body><main>{post * 3}</main></body></html>")
    assert unmask_misnamed(root) == 0
    # and a comment section holding several bodies is comments too
    root = parse_html(f"<html><body><div class='comments'>{post * 2}</div></body></html>")
    assert unmask_misnamed(root) == 0
