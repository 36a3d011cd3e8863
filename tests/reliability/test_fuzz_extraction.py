"""Hypothesis fuzzing of HTML extraction: any tag soup, whole or cut short, converts in every format without
an error and without markup in the text.

The generated pages are built from the elements and class words the extraction steps look for (figures,
asides, quotations, tab panels, templates, cloaked and hidden blocks, JSON-LD), so the fuzzing reaches the
steps and not only the parser. Their text never holds ``<`` or an entity (but in a ``<noscript>`` block
written escaped, which is markup too), so any tag in the output is one the extraction failed to remove.
Examples and the time per example are bounded.
"""

from __future__ import annotations

import json
import re

import pytest

hypothesis = pytest.importorskip("hypothesis")  # a dev dependency; skipped where it is not installed
from hypothesis import example, given, settings  # noqa: E402 - after the importorskip above
from hypothesis import strategies as st  # noqa: E402

from hermes_nb.errors import HermesError  # noqa: E402
from hermes_nb.web.content import convert  # noqa: E402

BOUNDED = settings(max_examples=400, deadline=5000, derandomize=True)

TAGS = [
    "div", "p", "span", "a", "article", "main", "section", "nav", "header", "footer", "aside", "figure",
    "figcaption", "pre", "code", "blockquote", "table", "tr", "td", "th", "ul", "ol", "li", "dl", "dt", "dd",
    "h1", "h2", "h3", "details", "summary", "dialog", "form", "button", "label", "noscript", "template",
    "time", "ruby", "rt", "sup", "em", "strong", "br", "img", "iframe", "math", "svg",
]
CLASS_WORDS = [
    "quote", "listing", "post", "message", "comment", "sr-only", "visually-hidden", "card", "product",
    "price", "tab-panel", "sidebar", "toc", "breadcrumb", "share", "ad", "byline", "faq", "content",
]
ATTRIBUTES = st.one_of(
    st.builds(lambda words: ("class", " ".join(words)), st.lists(st.sampled_from(CLASS_WORDS), max_size=3)),
    st.sampled_from([
        ("hidden", ""), ("aria-hidden", "true"), ("role", "main"), ("role", "tabpanel"), ("v-cloak", ""),
        ("itemprop", "description"), ("id", "content"), ("href", "/next"), ("src", "/a.png"),
        ("alt", "a cat"), ("style", "display:none"), ("lang", "ja"), ("datetime", "2026-11-29"),
        # Links the reading keeps or leaves (hyperlinks.py), and list numbers (list_numbers.py).
        ("href", "https://ex.test/a b(c)|`d`"), ("href", "#top"), ("href", "javascript:void(0)"),
        ("href", "mailto:ann@ex.test"), ("href", "http://[bad"),
        ("start", "3"), ("start", "x"), ("start", "²"),  # "²" is a digit to str.isdigit, and no number
        # Figures (images.py): sizes, lazy addresses, alt text with Markdown's own marks.
        ("width", "20"), ("data-src", "/lazy.jpg"), ("srcset", "/s.jpg 2x, /t.jpg 3x"), ("src", "data:x"),
        ("alt", "a [bracketed] \\ cat"), ("height", "0"), ("nitro-lazy-src", "/own.jpg"),
        ("data-src", "{w: 1}"), ("src", "/lazy_placeholder.gif"),
    ]),
)
# Text never holds "<" or "&": a tag in the output can only be markup the extraction let through.
WORDS = st.sampled_from([
    "the", "quick", "Reply", "Share", "£12.99", "{{ price | money }}", "x = 1", "日本語", "مرحبا", "\u00a0",
    "  ", "\n", "—", "Read more", "Posted by ann", "Q:", "*", "#", "`", "_", "[1]", "http://a.test/x",
])
TEXT = st.lists(WORDS, max_size=12).map(" ".join)
#: A page column's worth of words: a table cell holding it and a block lays out a page (layout_tables.py).
LONG_TEXT = st.just("the quick Reply " * 55)


def _element(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
    def build(tag: str, attrs: list[tuple[str, str]], inner: list[str], text: str) -> str:
        rendered = "".join(f' {name}="{value}"' if value else f" {name}" for name, value in attrs)
        return f"<{tag}{rendered}>{text}{''.join(inner)}</{tag}>"

    attrs = st.lists(ATTRIBUTES, max_size=3)
    return st.builds(build, st.sampled_from(TAGS), attrs, st.lists(children, max_size=4), TEXT)


BODIES = st.recursive(st.one_of(TEXT, LONG_TEXT), _element, max_leaves=40)
JSON_LD = st.fixed_dictionaries(
    {"@type": st.sampled_from(["Product", "DiscussionForumPosting", "FAQPage", "Article", "ItemList", 7])},
    optional={
        "name": TEXT, "description": TEXT, "offers": st.just({"price": "12.99", "priceCurrency": "GBP"}),
    },
)


@st.composite
def pages(draw: st.DrawFn) -> str:
    head = ""
    if draw(st.booleans()):
        head = f'<script type="application/ld+json">{json.dumps(draw(JSON_LD))}</script>'
    html = f"<!doctype html><html><head><title>{draw(TEXT)}</title>{head}</head><body>"
    html += "".join(draw(st.lists(BODIES, min_size=1, max_size=5)))
    if draw(st.booleans()):  # a block a DOM serialiser wrote escaped (noscript_markup.py): still markup
        html += '<noscript>&lt;div&gt;&lt;img src="/pixel.gif" width="1"&gt;&lt;/div&gt;</noscript>'
    html += "</body></html>"
    cut = draw(st.integers(min_value=0, max_value=len(html)))
    return html if draw(st.booleans()) else html[:cut]  # half cut short, as a download can be


_TAG = re.compile(r"</?(?:{})\b".format("|".join(TAGS)), re.I)
# Markdown has no superscript: it keeps <sup> (and <sub>, <u>) as tags, as GitHub's Markdown renders them.
_MARKDOWN_TAG = re.compile(r"</?(?:{})\b".format("|".join(tag for tag in TAGS if tag != "sup")), re.I)


@BOUNDED
@given(pages(), st.sampled_from(["markdown", "text", "html"]), st.booleans())
# Found by this test: libxml2 keeps an iframe's content as text, and the visible-text fallback printed it.
@example(html="<html><head><title></title></head><body><iframe><div></div></iframe></body></html>",
         fmt="markdown", images=False)
# A page column in a table cell: loose text, a heading and paragraphs, re-tagged as blocks (layout_tables).
@example(html="<html><body><table><tr><td>Loose <a href='/n'>note</a> words<h2>Head</h2>"
         + "<p>" + "the quick Reply " * 55 + "</p><p>More.</p>tail<table><tr><td>a</td></tr></table>"
         + "</td></tr></table></body></html>", fmt="markdown", images=True)
def test_any_page_converts_without_error_or_markup(html: str, fmt: str, images: bool) -> None:
    try:
        doc = convert(html, "text/html", url="https://fuzz.test/page", format=fmt, images=images)
    except HermesError:  # a page with nothing readable may say so; anything else is a fault
        return
    assert isinstance(doc.content, str) and isinstance(doc.metadata, dict)
    # No step failed: a failure degrades the page to its visible text and says so, which hides it.
    assert "failed (" not in doc.metadata.get("parse_warning", ""), doc.metadata["parse_warning"]
    if fmt != "html":
        assert not (_TAG if fmt == "text" else _MARKDOWN_TAG).search(doc.content), doc.content
    if fmt == "text":  # the words a reader sees: a link's words, never its target
        assert "](" not in doc.content, doc.content
