"""HTML extraction: candidates chosen by agreement, hidden text dropped, Markdown kept, confidence, type."""

from __future__ import annotations

import pytest

from hermes_nb import config
from hermes_nb.web import content
from hermes_nb.web.extraction import candidates as cands
from hermes_nb.web.extraction.captions import captions_before_tables
from hermes_nb.web.extraction.choose import choose, prose_share
from hermes_nb.web.extraction.html_markdown import fragment_to_markdown
from hermes_nb.web.extraction.page_type import PAGE_TYPES
from hermes_nb.web.extraction.source_wrapping import unwrap_source_lines
from hermes_nb.web.extraction.tree import drop_hidden, parse_html, visible_text

PROSE = (
    "The analytical engine weaves algebraic patterns just as the Jacquard loom weaves flowers and leaves, "
    "and it might act upon other things besides number, were objects found whose mutual relations could "
    "be expressed by those of the abstract science of operations. "
)


def _page(body: str, head: str = "") -> str:
    return f"<html lang='en'><head><title>T</title>{head}</head><body>{body}</body></html>"


def _html(html: str, **kw: object) -> content.Document:
    return content.convert(html, "text/html; charset=utf-8", url="https://example.org/a/page", **kw)


def test_every_html_page_carries_confidence_page_type_and_extractor() -> None:
    doc = _html(_page(f"<article><h1>Engine</h1><p>{PROSE * 3}</p><p>{PROSE * 2}</p></article>"))
    meta = doc.metadata
    assert 0.0 <= meta["confidence"] <= 1.0 and meta["page_type"] in PAGE_TYPES
    assert (
        meta["extractor"] in (cands.TRAFILATURA, cands.READABILITY) and meta["candidates"][0] == "trafilatura"
    )
    tiny = _html("<html><head><title>x</title></head><body><p>Hi.</p></body></html>")
    assert tiny.content == "Hi." and tiny.metadata["confidence"] <= 0.3 and tiny.metadata["low_confidence"]
    shell = _html(
        "<html><head><title>App</title></head><body><div id=root></div><script>go()</script></body>"
    )
    assert shell.title == "App" and shell.content == "" and shell.metadata["confidence"] == 0.0
    # no word to show and a script to run: the scripts write its text (test_extraction_shell.py)
    assert shell.metadata["page_type"] == "other" and shell.metadata["extractor"] == "none"
    assert shell.metadata["rendered_by_scripts"] is True


def test_hidden_elements_never_reach_the_text() -> None:
    body = (
        f"<article><p>{PROSE * 3}</p><div hidden><p>SECRETHIDDEN one {PROSE}</p></div>"
        f"<div style='color:red; display: none'><p>SECRETSTYLE two {PROSE}</p></div>"
        f"<p style='visibility:hidden'>SECRETVIS three {PROSE}</p></article>"
    )
    doc = _html(_page(body))
    assert "SECRET" not in doc.content and doc.metadata["hidden_elements_dropped"] == 3
    root = parse_html(_page(body))
    assert drop_hidden(root) == 3 and "SECRET" not in visible_text(root)


def test_elements_a_framework_class_hides_go_unless_a_class_shows_them_at_some_width() -> None:
    body = (
        f"<article><p>{PROSE * 3}</p><time class='d-none'>SECRETDNONE 2019-01-21T21:40:59Z</time>"
        f"<div class='text-sm hidden'><p>SECRETTAILWIND {PROSE}</p></div>"
        f"<div class='d-none d-md-block'><p>SHOWNWIDE one {PROSE}</p></div>"
        f"<nav class='hidden lg:flex'><p>SHOWNLARGE two</p></nav>"
        f"<p class='hidden-xs'>SHOWNSMALL three {PROSE}</p><p class='unhidden'>SHOWNTOO four</p></article>"
    )
    root = parse_html(_page(body))
    assert drop_hidden(root) == 2
    text = visible_text(root)
    assert "SECRET" not in text and all(word in text for word in ("SHOWNWIDE", "SHOWNSMALL", "SHOWNTOO"))


def test_a_loading_curtain_stays_however_much_state_the_scripts_carry() -> None:
    # The hidden element holds nearly all the text a reader sees; the page's script state is a hundred
    # times larger, and must not make the curtain look small.
    state = "<script>window.__STATE__ = " + '"' + "x" * 200_000 + '"' + "</script>"
    body = f"<div hidden><article><p>CURTAIN {PROSE * 6}</p></article></div><p>Loading</p>{state}"
    root = parse_html(_page(body))
    assert drop_hidden(root, keep_disclosures=True) == 0 and "CURTAIN" in visible_text(root)
    assert "CURTAIN" in _html(_page(body)).content


def test_second_candidate_wins_only_when_it_adds_prose_to_a_short_result() -> None:
    short = cands.Candidate("trafilatura", "A short lead paragraph of the story that ends here.")
    longer = cands.Candidate("readability", short.markdown + "\n\n" + PROSE * 2 + "\n\n" + PROSE)
    assert choose(short, longer).candidate.name == "readability"
    links = cands.Candidate("readability", longer.markdown, link_density=0.8)
    assert choose(short, links).candidate.name == "trafilatura"  # a link list is not missing content
    same = cands.Candidate("readability", short.markdown)
    picked = choose(short, same)
    assert picked.candidate.name == "trafilatura" and picked.reason == "candidates agree"


def test_agreeing_candidates_score_higher_than_one_alone() -> None:
    text = "\n\n".join([PROSE] * 6)
    alone = choose(cands.Candidate("trafilatura", text), None)
    both = choose(cands.Candidate("trafilatura", text), cands.Candidate("readability", text))
    assert alone.confidence <= 0.8 < both.confidence <= 1.0


def test_readability_output_keeps_headings_lists_tables_and_code_as_markdown() -> None:
    root = parse_html(
        "<div><h2>Setup</h2><p>Run <code>pip install x</code> then <b>restart</b>.</p>"
        "<ul><li>one</li><li>two<ul><li>nested</li></ul></li></ul><ol><li>first</li></ol>"
        "<pre><code>def f():\n    return 1\n</code></pre>"
        "<table><tr><th>k</th><th>v</th></tr><tr><td>a</td><td>1</td></tr></table>"
        "<blockquote><p>quoted</p></blockquote></div>"
    )
    md = fragment_to_markdown(root.body)
    assert "## Setup" in md and "Run `pip install x` then **restart**." in md
    assert "- one" in md and "- two" in md and "  - nested" in md and "1. first" in md
    assert "```\ndef f():\n    return 1\n```" in md
    assert "| k | v |\n|---|---|\n| a | 1 |" in md and "> quoted" in md


def test_a_layout_table_is_read_as_its_cells_blocks_and_a_nested_table_once() -> None:
    root = parse_html(
        "<table><tr><td><p>Shop address</p></td><td>menu</td></tr>"
        "<tr><td><h1>Guide</h1><p>First paragraph.</p>"
        "<table><tr><td>key</td><td>value</td></tr></table><p>Last paragraph.</p></td></tr></table>"
    )
    md = fragment_to_markdown(root.body)
    assert md.count("key") == 1 and "| key | value |" in md
    assert "# Guide\n\nFirst paragraph." in md and "Last paragraph." in md
    assert md.index("Shop address") < md.index("Guide") < md.index("key") < md.index("Last")


def _summary_fragment(markup: str) -> object:
    """``markup`` parsed as readability's summary is parsed before it is converted."""
    from lxml import html

    return html.fragment_fromstring(markup, create_parent="div")


def test_a_table_row_without_its_table_keeps_its_cells_apart() -> None:
    # readability returns a layout table's chosen row bare (<tr><td>…</td><td>…</td></tr>, no <table>)
    fragment = _summary_fragment(
        "<tr><td>Home About</td><td><font>First line.</font><br><br><font>Second line.</font></td></tr>"
    )
    assert fragment_to_markdown(fragment) == "Home About\n\nFirst line.\n\nSecond line."


def test_a_space_at_the_end_of_a_bold_word_or_code_stays_between_the_words() -> None:
    # Markdown closes no mark after a space: dropped, it joined two words ("grindedand").
    root = parse_html(
        "<p>The beans were <strong>grinded </strong>and <b>boiled</b>; we left out <b>Reguilon, </b>and "
        "<em> Spence </em>to fit. On <strong>crate feature <code>rt </code></strong>only; a<b> </b>b.</p>"
    )
    assert fragment_to_markdown(root.body) == (
        "The beans were **grinded** and **boiled**; we left out **Reguilon,** and *Spence* to fit. "
        "On **crate feature `rt`** only; a b."
    )


def test_a_heading_set_on_two_lines_reads_as_two_words() -> None:
    root = parse_html(
        "<h2>Accounting software that works<br>as hard as you do</h2>"
        "<ul><li><h4>Fast<br/>setup</h4>today</li></ul>"
    )
    assert fragment_to_markdown(root.body) == (
        "## Accounting software that works as hard as you do\n\n- Fast setup today"
    )


def test_the_blocks_inside_a_list_item_are_spaced_not_run_together() -> None:
    root = parse_html(
        "<ul><li><div>Lamp</div><div>$20</div></li><li><h3>Sofa</h3><p>Grey, <b>new</b></p>"
        "<ul><li>three seats</li></ul>in stock</li></ul>"
    )
    assert fragment_to_markdown(root.body) == "- Lamp $20\n- Sofa Grey, **new** in stock\n  - three seats"
    table = parse_html("<ul><li>Sizes<table><tr><td>S</td><td>36</td></tr><tr><td>M</td><td>38</td></tr>"
                       "</table>in stock</li></ul>")
    assert fragment_to_markdown(table.body) == "- Sizes S 36 M 38 in stock"


def test_a_list_items_code_block_follows_its_line_fenced() -> None:
    root = parse_html(
        "<ol><li>Install Flask. To install using pip, run: <div class='code'><pre>pip install flask</pre>"
        "</div> and go on.</li><li>Second<ul><li>nested <pre>x = 1</pre></li></ul></li></ol>"
    )
    assert fragment_to_markdown(root.body) == (
        "1. Install Flask. To install using pip, run: and go on.\n\n```\npip install flask\n```\n\n"
        "2. Second\n  - nested\n\n```\nx = 1\n```"
    )


def test_a_data_cells_lines_and_paragraphs_are_spaced_not_run_together() -> None:
    root = parse_html(
        "<table><tr><th>name</th><th>note</th></tr>"
        "<tr><td>a<br>b</td><td><p>one</p><p>two | three</p></td></tr></table>"
    )
    assert "| a b | one two \\| three |" in fragment_to_markdown(root.body)


def test_below_the_threshold_the_next_candidates_are_tried_and_recorded() -> None:
    html = _page(f"<article><h1>Engine</h1><p>{PROSE * 3}</p></article>")
    doc = _html(html, min_confidence=1.0)
    meta = doc.metadata
    assert meta["low_confidence"] and len(meta["candidates"]) >= 3
    assert meta["candidates"][0] == "trafilatura"
    assert {"readability", "trafilatura-recall", "trafilatura-precision"} <= set(meta["candidates"])
    assert "Jacquard loom" in doc.content
    assert "low_confidence" not in _html(html, min_confidence=0.0).metadata


def test_min_confidence_comes_from_config() -> None:
    html = _page(f"<article><h1>Engine</h1><p>{PROSE * 3}</p></article>")
    config.set("web.extract.min_confidence", 1.0)
    assert _html(html).metadata["low_confidence"]
    config.set("web.extract.min_confidence", 0.0)
    assert "low_confidence" not in _html(html).metadata


@pytest.mark.parametrize(
    ("url", "head", "body", "kind"),
    [
        (
            "https://shop.example/p/1",
            '<script type="application/ld+json">{"@type": "Product", "name": "Lamp"}</script>',
            f"<div><h1>Lamp</h1><p>{PROSE}</p><span itemprop='price'>9</span></div>",
            "product",
        ),
        (
            "https://forum.example/t/123/slug",
            "",
            "".join(
                f"<div class='post'><span class='author'>user{i}</span><p>Reply {i}: {PROSE}</p></div>"
                for i in range(6)
            ),
            "forum",
        ),
        (
            "https://example.org/docs/api/client",
            "",
            f"<main><h1>Client</h1><p>{PROSE}</p><pre>x = 1</pre></main>",
            "documentation",
        ),
        (
            "https://news.example/2024/story",
            '<meta property="og:type" content="article">',
            f"<article><h1>Story</h1><p>{PROSE * 3}</p></article>",
            "article",
        ),
        (
            "https://example.org/links",
            "",
            "<ul>"
            + "".join(f"<li><a href='/x{i}'>Item number {i} of the list</a></li>" for i in range(40))
            + "</ul>",
            "listing",
        ),
    ],
)
def test_page_types(url: str, head: str, body: str, kind: str) -> None:
    doc = content.convert(_page(body, head), "text/html", url=url)
    assert doc.metadata["page_type"] == kind


def test_description_from_the_lead_paragraph_reads_as_plain_text() -> None:
    # No <meta name=description>: the first paragraph is the description, without Markdown's escapes
    # and marks ("snake\\case" and "2 \\* 3" before).
    lead = "Call <code>read_all</code> on a <b>snake_case</b> name, 2 * 3 times."
    body = f"<article><p>{lead} {PROSE}</p></article>"
    meta = _html(_page(body)).metadata
    assert meta["description"].startswith("Call read_all on a snake_case name, 2 * 3 times. The analytical")


def test_metadata_from_meta_tags_json_ld_and_links() -> None:
    head = (
        '<meta property="og:title" content="OG title"><meta name="author" content="Ada Lovelace">'
        '<meta property="article:published_time" content="2024-03-01T10:00:00Z">'
        '<meta property="og:site_name" content="Engines Weekly">'
        '<meta name="description" content="About engines.">'
        '<link rel="canonical" href="/a/canonical">'
    )
    meta = _html(_page(f"<article><p>{PROSE * 3}</p></article>", head)).metadata
    assert meta["author"] == "Ada Lovelace" and meta["date"] == "2024-03-01T10:00:00Z"
    assert meta["sitename"] == "Engines Weekly" and meta["description"] == "About engines."
    assert meta["canonical_url"] == "https://example.org/a/canonical" and meta["language"] == "en"
    ld = (
        '<script type="application/ld+json">{"@graph": [{"@type": "NewsArticle", "headline": "LD title",'
        ' "author": [{"@type": "Person", "name": "Grace Hopper"}], "datePublished": "2020-01-02",'
        ' "publisher": {"@type": "Organization", "name": "LD Site"}}]}</script>'
    )
    doc = _html(_page(f"<article><p>{PROSE * 3}</p></article>", ld))
    assert doc.title == "T" or doc.title == "LD title"
    assert doc.metadata["author"] == "Grace Hopper" and doc.metadata["date"] == "2020-01-02"
    assert doc.metadata["sitename"] == "LD Site" and "json_ld_types" not in doc.metadata


def test_prose_share_counts_sentences_not_menus() -> None:
    assert prose_share(PROSE) == 1.0
    assert prose_share("- Home\n- About\n- Contact\n- Blog") == 0.0


def test_page_cards_say_plainly_when_confidence_is_low() -> None:
    from types import SimpleNamespace

    from hermes_nb.notebook import web_cards

    def page(meta: dict[str, object]) -> SimpleNamespace:
        return SimpleNamespace(
            url="https://example.org/x",
            title="X",
            content="Some text",
            error=None,
            truncated=False,
            total_chars=9,
            metadata=meta,
        )

    low = page(
        {"confidence": 0.31, "low_confidence": True, "page_type": "listing", "extractor": "readability"}
    )
    assert "low extraction confidence 0.31 (listing, readability)" in web_cards._page_text(low)
    assert "low extraction confidence 0.31" in web_cards._page_html(low, open_=True)
    shell = page({"confidence": 0.0, "low_confidence": True, "extractor": "none", "rendered_by_scripts": 1})
    for card in (web_cards._page_text(shell), web_cards._page_html(shell, open_=True)):
        assert "its scripts render it" in card and "confidence" not in card  # says why, not "check the text"
    sure = page({"confidence": 0.45, "page_type": "article"})  # under the default, over the user's threshold
    assert "confidence" not in web_cards._page_text(sure) and "confidence" not in web_cards._page_html(
        sure, open_=True
    )


def test_trafilaturas_reading_keeps_the_space_after_a_bold_word_that_opens_a_block() -> None:
    # trafilatura's Markdown trims the tail of a mark that opens a block: "**Tip**The" was one word.
    root = parse_html(
        _page(f"<article><p>{PROSE}</p><ul><li><b>Fast</b> setup in minutes</li></ul>"
              f"<div><strong>Tip</strong> The engine restarts.</div><p>{PROSE}</p></article>")
    )
    tails = [el.tail for el in root.iter("b", "strong")]
    text = cands.trafilatura_candidate(root, None).markdown
    assert "**Fast** setup" in text and "**Tip** The engine" in text and "\ue000" not in text
    assert [el.tail for el in root.iter("b", "strong")] == tails  # the shared tree is left as it was


def test_a_nul_in_the_page_is_ignored_as_a_browser_ignores_it() -> None:
    doc = _html(_page(f"<article><p>Null\x00 byte in a wo\x00rd. {PROSE}</p></article>"))
    assert "Null byte in a word." in doc.content and "\ufffd" not in doc.content


def test_line_breaks_are_kept_and_a_double_break_ends_a_paragraph() -> None:
    # Old pages and forum posts write paragraphs with <br><br>; the converter used to run them together.
    fragment = parse_html(
        "<div><font>Title line<br><br>First paragraph, <b>bold<br>words</b>,<br>second line.<br><br><br>"
        "Last one.</font><ul><li>item<br>one</li></ul><table><tr><td>a<br>b</td><td>c</td></tr>"
        "<tr><td>d</td><td>e</td></tr></table></div>"
    )
    text = fragment_to_markdown(fragment)
    assert text.startswith("Title line\n\nFirst paragraph, **bold words**,\nsecond line.\n\nLast one.\n\n")
    assert "- item one" in text and "| a b | c |" in text  # a list item and a table row stay one line
    assert "\ue040" not in text


def test_spanning_cells_keep_the_columns_of_a_table_in_line() -> None:
    table = (
        "<table><tr><th rowspan=2>Model</th><th colspan=2>Speed</th></tr><tr><th>CPU</th><th>GPU</th></tr>"
        "<tr><td rowspan=2>B</td><td>2.0</td><td>4.5</td></tr><tr><td>2.1</td><td>4.6</td></tr>"
        "<tr><td colspan=9999>Note</td></tr><tr><td colspan=x>bad</td><td>span</td><td>ok</td></tr></table>"
    )
    rows = fragment_to_markdown(parse_html(f"<div>{table}</div>")).split("\n")
    assert rows == [
        "| Model | Speed |  |",
        "|---|---|---|",
        "|  | CPU | GPU |",  # under Model's rowspan
        "| B | 2.0 | 4.5 |",
        "|  | 2.1 | 4.6 |",
        "| Note |  |  |",  # a span wider than the table adds no empty columns
        "| bad | span | ok |",
    ]


def test_a_tables_caption_is_the_paragraph_above_it_not_its_header() -> None:
    table = (
        "<table><caption>Table 1: <b>Speed</b> by model</caption><thead><tr><th>Model</th><th>Speed</th></tr>"
        "</thead><tbody><tr><td>A</td><td>1</td></tr><tr><td>B</td><td>2</td></tr></tbody></table>"
    )
    expected = "Table 1: **Speed** by model\n\n| Model | Speed |\n|---|---|\n| A | 1 |\n| B | 2 |"
    doc = _html(_page(f"<article><h1>Engine</h1><p>{PROSE * 3}</p>{table}<p>{PROSE * 2}</p></article>"))
    assert expected in doc.content  # trafilatura's reading: the caption was the header row
    root = parse_html(_page(f"<div>{table}</div>"))
    captions_before_tables(root)
    assert expected in fragment_to_markdown(root.body)  # our converter's: the caption was dropped


def test_the_sources_line_breaks_are_spaces_but_a_br_and_code_keep_theirs() -> None:
    body = (
        f"<article><h1>Engine</h1><p>{PROSE * 3}</p><p>This paragraph was\n      hard wrapped in the\n"
        f"      source and a <b>bold\n   word</b> too.<br>After a real break.</p><p>{PROSE * 2}</p></article>"
    )
    text = _html(_page(body), format="text").content
    assert "This paragraph was hard wrapped in the source and a bold word too.\n\nAfter a real break." in text
    shown = "<p style='white-space: pre-line'>a poem\nin lines</p>"  # a style that shows newlines
    root = parse_html(_page(f"<p>wrapped\n  text</p><pre>code\n  kept</pre>{shown}"))
    assert unwrap_source_lines(root) == 1
    texts = [el.text_content() for el in root.iter("p", "pre")]
    assert texts == ["wrapped text", "code\n  kept", "a poem\nin lines"]
