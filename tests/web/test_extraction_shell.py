"""Application shells: a notice asking for JavaScript, or hidden scaffolding, is not the page's text."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.shell import NOTICE_WORDS, drop_script_notices, hidden_scaffolding
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The kettle boils a litre in under three minutes, switches itself off at the boil, and keeps the "
    "handle cool enough to hold without a cloth."
)
FOOTER = "<footer><a href='/help'>Help</a> <a href='/returns'>Returns</a> <a href='/about'>About</a></footer>"
PRODUCT = '<script type="application/ld+json">{"@type": "Product", "name": "Kettle"}</script>'


def test_notices_asking_for_javascript_go() -> None:
    for notice in (
        "You need to enable JavaScript to run this app.",
        "Please turn on JavaScript in your browser.",
        "JavaScript is disabled in your browser.",
        "This site requires JavaScript.",
    ):
        assert drop_script_notices(f"{notice}\n\n{PROSE}") == (PROSE, 1), notice


def test_prose_and_code_about_javascript_stay() -> None:
    long_line = "Before you enable JavaScript source maps, " + " ".join(["check the build"] * NOTICE_WORDS)
    markdown = (
        "Our checkout requires JavaScript? No: the form posts without it, and the shipping estimate, the "
        "address lookup and the card form all fall back to plain pages that any browser shows.\n\n"
        f"{long_line}\n\n```\n// enable JavaScript strict mode\n'use strict';\n```"
    )
    assert drop_script_notices(markdown) == (markdown, 0)


def _page(body: str, *, product: bool = False) -> str:
    head = PRODUCT if product else ""
    return f"<html><head><title>Kettle</title>{head}</head><body>{body}{FOOTER}</body></html>"


def test_a_shell_serving_only_a_notice_reads_as_empty_and_says_why() -> None:
    notice = "<noscript>You need to enable JavaScript to run this app.</noscript>"
    body = f"{notice}<main><div id='root'></div></main>"
    doc = content.convert(_page(body), "text/html", url="https://shop.example.org/c/kettles")
    assert doc.content == ""
    assert doc.metadata["rendered_by_scripts"] is True
    assert doc.metadata["extractor"] == "none"
    assert "browser" in doc.metadata["extractor_reason"]
    assert "description" not in doc.metadata  # the notice is not the page's description either


def test_a_product_shell_with_hidden_scaffolding_reads_as_empty() -> None:
    skip_link = "<ul><li><a href='#search'>I'm shopping for...</a></li></ul>"
    scaffold = f"<div style='display:none'><h1>Shopmart</h1>{skip_link}</div><div id='root'></div>"
    doc = content.convert(
        _page(scaffold, product=True), "text/html", url="https://shop.example.org/item/1.html"
    )
    assert doc.content == ""
    assert doc.metadata["rendered_by_scripts"] is True


def test_a_product_with_its_description_in_a_hidden_tab_keeps_it() -> None:
    tab = f"<div role='tabpanel' style='display:none'><p>{PROSE}</p></div>"
    doc = content.convert(
        _page(f"<main><h1>Kettle</h1>{tab}</main>", product=True),
        "text/html",
        url="https://shop.example.org/item/2",
    )
    assert "boils a litre" in doc.content
    assert "rendered_by_scripts" not in doc.metadata


def test_scaffolding_needs_every_word_hidden_and_a_short_reading() -> None:
    root = parse_html(_page("<div hidden><p>Shopmart</p></div><p>Shopmart kettles</p>"))
    assert hidden_scaffolding(root, "Shopmart")
    assert not hidden_scaffolding(root, "Shopmart kettles")  # "kettles" is shown
    assert not hidden_scaffolding(root, "")
    shown = parse_html(_page(f"<div hidden><p>Shopmart</p></div><main><p>{PROSE * 8}</p></main>"))
    assert not hidden_scaffolding(shown, "Shopmart")  # the page has text of its own: a failed reading
    tab = parse_html(_page(f"<div class='accordion'><div style='display:none'><p>{PROSE}</p></div></div>"))
    assert not hidden_scaffolding(tab, PROSE)  # an accordion's hidden text is content


def test_a_shell_showing_no_word_at_all_reads_as_rendered_by_its_scripts() -> None:
    splash = "<section id='splash'><div class='preloader'><div class='dots'></div></div></section>"
    app = "<div class='hidden' id='data-preloaded'></div><section id='main'></section>"
    html = (
        "<html><head><title>Which kettle? - Kitchen Forum</title></head>"
        f"<body>{splash}{app}<script src='/assets/app.js'></script></body></html>"
    )
    doc = content.convert(html, "text/html", url="https://forum.example.org/t/which-kettle/42")
    assert doc.content == ""
    assert doc.metadata["rendered_by_scripts"] is True and doc.metadata["extractor"] == "none"
    assert doc.title == "Which kettle? - Kitchen Forum"


def test_an_empty_page_without_scripts_is_an_empty_page() -> None:
    html = "<html><head><title>Blank</title></head><body><div id='main'></div></body></html>"
    doc = content.convert(html, "text/html", url="https://example.org/blank")
    assert doc.content == ""
    assert "rendered_by_scripts" not in doc.metadata
    assert doc.metadata["extractor"] == "visible-text"
