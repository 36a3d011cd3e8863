"""The page-type classifier on small synthetic pages, one per type, and how extraction uses the type."""

from __future__ import annotations

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.candidates import cards_candidate, sections_candidate
from hermes_nb.web.extraction.page_type import PAGE_TYPES, card_group, classify
from hermes_nb.web.extraction.scripts import split_words
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine was a proposed mechanical general-purpose computer designed by Charles "
    "Babbage, and it read its programs from punched cards. "
)


def _page(body: str, head: str = "") -> str:
    return f"<html><head><title>T</title>{head}</head><body>{body}</body></html>"


def _cards(n: int, priced: bool) -> str:
    price = "<span class='price'>$19.99</span>" if priced else ""
    return (
        "<ul class='grid'>"
        + "".join(
            f"<li class='card'><a href='/item/{i}'>Item number {i}</a> short blurb {price}</li>"
            for i in range(n)
        )
        + "</ul>"
    )


CASES = [
    (
        "https://shop.example/lamp",
        '<script type="application/ld+json">{"@type": "Product"}</script>',
        f"<h1>Lamp</h1><p>{PROSE}</p>",
        "product",
    ),
    (
        "https://shop.example/thing",
        '<meta property="og:type" content="product">',
        f"<p>{PROSE}</p>",
        "product",
    ),
    (
        "https://example.org/t/slug/42",
        "",
        "".join(f"<div class='post'><time>2024</time><p>Reply {i}: {PROSE}</p></div>" for i in range(6)),
        "forum",
    ),
    (
        "https://example.org/q/1",
        '<script type="application/ld+json">{"@type": "QAPage"}</script>',
        f"<p>{PROSE}</p>",
        "forum",
    ),
    ("https://example.org/docs/install", "", f"<main><h1>Install</h1><p>{PROSE}</p></main>", "documentation"),
    (
        "https://example.org/page",
        '<meta name="generator" content="Sphinx 7">',
        f"<p>{PROSE}</p>",
        "documentation",
    ),
    ("https://shop.example/all", "", _cards(12, priced=True), "collection"),
    ("https://example.org/category/news", "", _cards(12, priced=False), "listing"),
    (
        "https://example.org/consulting",
        "",
        "".join(f"<section><h2>Part {i}</h2><p>{PROSE}</p></section>" for i in range(5)),
        "service",
    ),
    ("https://example.org/2024/05/story", "", f"<article><p>{PROSE * 4}</p></article>", "article"),
    # a section front of cards is a listing, even when its Open Graph type says article
    (
        "https://news.example/sections/science/",
        '<meta property="og:type" content="article">',
        f"<h1>Science</h1>{_cards(8, priced=False)}",
        "listing",
    ),
    # og:type article on a page whose JSON-LD calls it a plain WebPage does not make it an article
    (
        "https://agency.example/genai/",
        '<meta property="og:type" content="article">'
        '<script type="application/ld+json">{"@graph": [{"@type": "WebPage"}, {"@type": "Organization"}]}'
        "</script>",
        "".join(f"<section><h2>Part {i}</h2><p>{PROSE}</p></section>" for i in range(5)),
        "service",
    ),
    # software described in JSON-LD (SoftwareApplication) is a SaaS landing page as often as an app's
    # page: its sections decide, not a product type
    (
        "https://app.example/",
        '<script type="application/ld+json">{"@type": "SoftwareApplication", "name": "Planner"}</script>',
        "".join(f"<section><h2>Part {i}</h2><p>{PROSE}</p></section>" for i in range(5)),
        "service",
    ),
    # a post at a short product-shaped path ("/p/", as newsletter platforms write their posts) that
    # declares itself an article and shows no price is an article; with a price it is a product
    (
        "https://writer.example/p/what-the-river-knows",
        '<meta property="og:type" content="article">',
        f"<article><h1>What the river knows</h1><p>{PROSE * 4}</p></article>",
        "article",
    ),
    (
        "https://shop.example/product/hair-dryer",
        '<meta property="og:type" content="article">',
        f"<h1>Hair dryer</h1><p class='price'>$89.00</p><p>{PROSE}</p>",
        "product",
    ),
    # Open Graph's "product.group" at a collection's URL is a shop's category page; at a product's URL it
    # is an item with variants
    (
        "https://shop.example/collections/wallets",
        '<meta property="og:type" content="product.group">',
        f"<h1>Wallets</h1><p>{PROSE}</p>{_cards(4, priced=False)}",
        "collection",
    ),
    (
        "https://shop.example/products/wallet",
        '<meta property="og:type" content="product.group">',
        f"<h1>Wallet</h1><p>{PROSE}</p>",
        "product",
    ),
    # a post filed under an archive folder is still an article
    (
        "https://blog.example/archive/2025/12/week-two.html",
        '<meta property="og:type" content="article">',
        f"<article><p>{PROSE * 4}</p></article>{_cards(8, priced=False)}",
        "article",
    ),
]


@pytest.mark.parametrize(("url", "head", "body", "kind"), CASES)
def test_each_type_from_general_signals(url: str, head: str, body: str, kind: str) -> None:
    from hermes_nb.web.extraction.metadata import page_metadata

    root = parse_html(_page(body, head))
    assert classify(root, url, page_metadata(root, url)) == kind
    doc = content.convert(_page(body, head), "text/html", url=url)
    assert doc.metadata["page_type"] == kind and kind in PAGE_TYPES


def test_article_comments_do_not_make_a_thread() -> None:
    comments = "".join(
        f"<div class='comment'><span class='author'>u{i}</span><p>Nice.</p></div>" for i in range(12)
    )
    head = '<meta property="og:type" content="article">'
    doc = content.convert(
        _page(f"<article><p>{PROSE * 4}</p></article>{comments}", head),
        "text/html",
        url="https://news.example/story",
    )
    assert doc.metadata["page_type"] == "article"


def test_uncertain_pages_fall_back_on_the_text() -> None:
    root = parse_html(_page(f"<div><p>{PROSE * 4}</p></div>"))
    assert classify(root, "https://example.org/about", {}) is None
    doc = content.convert(
        _page(f"<div><p>{PROSE * 4}</p></div>"), "text/html", url="https://example.org/about"
    )
    assert doc.metadata["page_type"] == "article" and doc.metadata["candidates"][0] == "trafilatura"


def test_service_page_keeps_every_section() -> None:
    sections = "".join(
        f"<section><h2>Feature {i}</h2><p>Feature {i} does one thing well for every team that uses it "
        f"each day.</p></section>"
        for i in range(6)
    )
    hero = f"<section><h1>Our service</h1><p>{PROSE}</p></section>"
    nav = "<nav><a href='/'>Home</a><a href='/pricing'>Pricing</a></nav>"
    doc = content.convert(
        _page(nav + "<main>" + hero + sections + "</main>"), "text/html", url="https://example.org/service"
    )
    assert doc.metadata["page_type"] == "service"
    for i in range(6):
        assert f"Feature {i}" in doc.content
    assert "Pricing" not in doc.content


def test_the_sections_reading_keeps_a_page_of_linked_cards_and_drops_its_menu() -> None:
    # Each card is one link (title and blurb): the block of cards is mostly link text, and it is the page.
    cards = "".join(
        f"<a class='card' href='/posts/{i}'><h3>Story {i}</h3><p>Story {i} tells how a small team shipped "
        f"its first release after a long winter.</p></a>"
        for i in range(10)
    )
    topics = "".join(f"<li><a href='/t/{i}'>Topic {i}</a></li>" for i in range(8))
    menu = f"<ul class='topics'>{topics}</ul>"
    root = parse_html(_page(f"<div class='layout'><div class='stories'>{cards}</div>{menu}</div>"))
    reading = sections_candidate(root).markdown
    assert all(f"Story {i} tells" in reading for i in range(10))
    assert "Topic 3" not in reading


def test_the_sections_reading_is_rendered_only_when_it_can_hold_the_words_asked_for() -> None:
    # An ordered list's numbers are words of the Markdown that the page's text lacks: counted too.
    items = "".join(f"<li>{w}</li>" for w in ("alpha", "beta", "gamma"))
    root = parse_html(_page(f"<main><p>One two three four.</p><ol>{items}</ol></main>"))
    whole = sections_candidate(root).markdown
    assert len(split_words(whole)) == 10  # four words, three items, three numbers
    assert sections_candidate(root, at_least=10).markdown == whole
    assert sections_candidate(root, at_least=11).markdown == ""


def _thread() -> str:
    return "<main>" + "".join(
        f"<div class='post'><span class='author'>user{i}</span><p>Post {i} says: {PROSE}</p></div>"
        for i in range(8)
    ) + "</main>"


def test_thread_keeps_every_post() -> None:
    doc = content.convert(_page(_thread()), "text/html", url="https://example.org/t/thread/9")
    assert doc.metadata["page_type"] == "forum"
    for i in range(8):
        assert f"Post {i} says" in doc.content


def test_a_thread_keeps_its_posts_without_the_posters_cards_and_signatures() -> None:
    posts = "".join(
        f"<div class='post'><dl class='postprofile'><dt class='author'>user{i}</dt><dd>Posts: 40{i}</dd>"
        f"<dd>Joined: March 20{i}</dd></dl><div class='author_statistics'>Threads: 2{i}</div>"
        f"<div class='content'><p>Post {i} says: {PROSE}</p><div class='bbCodeBlock-expandLink'>"
        f"<a>Click to expand...</a></div></div><div class='signature'>SIGNATURE line of user{i}</div></div>"
        for i in range(8)
    )
    from hermes_nb.web.extraction.candidates import posts_candidate
    from hermes_nb.web.extraction.page_type import post_elements

    thread = posts_candidate(post_elements(parse_html(_page(f"<main>{posts}</main>")))).markdown
    for i in range(8):
        assert f"Post {i} says" in thread
    assert "SIGNATURE" not in thread and "Joined" not in thread
    assert "Threads:" not in thread and "Click to expand" not in thread


def _qa_thread(marked: str) -> str:
    """A question and three answers, each with a remark under it, on a page marked as ``marked``."""
    posts = "".join(
        f"<div class='{kind} post-layout'><span class='user-details'>user{i}</span><p>{kind} {i}: {PROSE}</p>"
        f"<ul class='comments-list'><li class='comment'><time>2024</time>"
        f"<span class='comment-copy'>REMARK on {kind} {i}</span></li></ul></div>"
        for i, kind in enumerate(["question", "answer", "answer", "answer", "answer", "answer"])
    )
    return f"<html><head><title>T</title></head><body{marked}><main>{posts}</main></body></html>"


def test_a_qa_page_keeps_its_question_and_answers_without_their_comments() -> None:
    from hermes_nb.web.extraction.candidates import posts_candidate
    from hermes_nb.web.extraction.page_type import post_elements
    from hermes_nb.web.extraction.pipeline import _qa_page

    for marked in (" itemscope itemtype='https://schema.org/QAPage'", ""):
        root = parse_html(_qa_thread(marked))
        qa = _qa_page(root, {})
        assert qa is bool(marked)
        thread = posts_candidate(post_elements(root), qa=qa).markdown
        assert "question 0:" in thread and all(f"answer {i}:" in thread for i in range(1, 6))
        # a QAPage's remarks under the posts are not posts; a thread without the mark keeps them
        assert ("REMARK" in thread) is (not marked)
    assert _qa_page(parse_html(_qa_thread("")), {"json_ld_types": ["QAPage"]})


def test_hidden_tab_panels_stay_but_hidden_boilerplate_goes() -> None:
    body = (
        f"<article><h1>Lamp</h1><p>{PROSE * 3}</p>"
        "<div role='tabpanel' hidden><p>Specifications: brass body, linen shade, 40 W bulb.</p></div>"
        "<div style='display:none'><p>Sign up for our newsletter today and save.</p></div></article>"
    )
    doc = content.convert(_page(body), "text/html", url="https://example.org/2024/lamp")
    assert "brass body" in doc.content and "newsletter" not in doc.content


DOCS = "https://example.org/docs/install"


@pytest.mark.parametrize(
    ("url", "body", "rescues"),
    [
        # documentation: the fast pass alone, unless its reading is short (then the rescue pass too)
        (DOCS, f"<main><h1>Install</h1><p>{PROSE * 20}</p></main>", [False]),
        (DOCS, f"<main><h1>Install</h1><p>{PROSE * 3}</p></main>", [False, True]),
        ("https://example.org/2024/05/story", f"<article><p>{PROSE * 4}</p></article>", [True]),
    ],
)
def test_rescue_pass_only_where_the_type_needs_it(
    monkeypatch: pytest.MonkeyPatch, url: str, body: str, rescues: list[bool]
) -> None:
    from hermes_nb.web.extraction import candidates

    asked: list[tuple[str, bool]] = []
    real = candidates.trafilatura_candidate

    def spy(root: object, page_url: str | None, mode: str = candidates.TRAFILATURA, *, rescue: bool = True):
        asked.append((mode, rescue))
        return real(root, page_url, mode, rescue=rescue)

    monkeypatch.setattr(candidates, "trafilatura_candidate", spy)
    doc = content.convert(_page(body), "text/html", url=url)
    assert [rescue for mode, rescue in asked if mode == candidates.TRAFILATURA] == rescues
    assert "analytical engine" in doc.content


def test_parsed_elements_are_html_elements_without_per_element_lookup() -> None:
    import lxml.html

    root = parse_html(_page("<form><input name='q'><select><option>a</option></select></form><p>x</p>"))
    assert all(isinstance(el, lxml.html.HtmlElement) for el in root.iter() if isinstance(el.tag, str))
    assert root.find(".//p").text_content() == "x"


@pytest.mark.parametrize(
    ("url", "head", "body", "tried", "not_tried"),
    [
        # a short article: neither the recall reading, readability nor the page's sections
        ("https://example.org/2024/05/story", "", f"<article><p>{PROSE * 4}</p></article>", [],
         ["trafilatura-recall", "readability", "sections"]),
        # a short product page: the recall reading (specifications), never the page's sections
        ("https://shop.example/lamp", '<script type="application/ld+json">{"@type": "Product"}</script>',
         f"<h1>Lamp</h1><p>{PROSE}</p>", ["trafilatura-recall"], ["sections"]),
        # a thread: every post, and not the page's sections (other threads in a sidebar)
        ("https://example.org/t/thread/9", "", _thread(), ["posts"], ["sections"]),
        # an untyped page is checked against its sections, however much of its reading is prose
        ("https://example.org/about", "", f"<div><p>{PROSE * 4}</p></div>", ["sections"], []),
    ],
)
def test_candidates_tried_by_page_type(
    url: str, head: str, body: str, tried: list[str], not_tried: list[str]
) -> None:
    candidates = content.convert(_page(body, head), "text/html", url=url).metadata["candidates"]
    assert candidates[0] == "trafilatura"
    assert all(name in candidates for name in tried), candidates
    assert not any(name in candidates for name in not_tried), candidates


def test_a_product_url_with_a_carousel_is_a_product_when_the_page_shows_its_own_price() -> None:
    # Recommendation carousels give a product page as many cards as a grid; its own price, outside
    # them, says it sells one item. The same URL shape without a price of its own stays undecided.
    url = "https://shop.example/dp/B0042"
    own = f"<main><h1>Lamp</h1><span class='price'>$49.00</span><p>{PROSE}</p></main>"
    root = parse_html(_page(own + _cards(8, priced=True)))
    assert classify(root, url, {}) == "product"
    root = parse_html(_page(f"<main><h1>Lamp</h1><p>{PROSE}</p></main>" + _cards(8, priced=True)))
    assert classify(root, url, {}) != "product"


def test_a_grid_whose_reading_missed_its_cards_gets_them() -> None:
    cards = "".join(
        f"<div class='tile'><a href='/item/{i}'>Lamp model {i}</a> <span class='price'>${i}9.00</span>"
        f" <a href='/item/{i}#reviews'>brass</a></div>"
        for i in range(10)
    )
    body = f"<main><h1>Lamps</h1><p>{PROSE * 3}</p><div class='grid'>{cards}</div></main>"
    doc = content.convert(_page(body), "text/html", url="https://shop.example/collections/lamps")
    assert doc.metadata["page_type"] == "collection" and "cards" in doc.metadata["candidates"]
    for i in range(10):
        assert f"Lamp model {i}" in doc.content
    assert doc.content.index("analytical engine") < doc.content.index("Lamp model 0")


def test_cards_that_are_table_rows_read_as_one_table_under_its_header() -> None:
    rows = "".join(
        f"<tr><td>{1901 + i}</td><td><a href='/wiki/p{i}'>Physicist {i}</a></td>"
        f"<td><a href='/wiki/c{i}'>Chemist {i}</a> <span class='share'>share</span></td></tr>"
        for i in range(8)
    )
    head = "<thead><tr><th>Year</th><th>Physics</th><th>Chemistry</th></tr></thead>"
    table = f"<table>{head}<tbody>{rows}</tbody></table>"
    cards = card_group(parse_html(_page(f"<main><h1>Laureates</h1>{table}</main>")))
    assert len(cards) == 8 and all(card.tag == "tr" for card in cards)
    lines = cards_candidate(cards).markdown.split("\n")
    assert lines[:2] == ["| Year | Physics | Chemistry |", "|---|---|---|"]
    assert lines[2] == "| 1901 | Physicist 0 | Chemist 0 |"
    assert len(lines) == 10 and "share" not in lines[-1]  # furniture pruned in the rows too


def test_a_card_whose_blocks_touch_counts_each_blocks_words() -> None:
    # Rows of a ranking written without whitespace between their blocks: "4.Claude8.3Compare" is one
    # run of characters in the element's text, but four words on the page.
    rows = "".join(
        f"<div class='flex row'><div>{i}.</div><div><a href='/p/{i}'>Tool {i}</a></div>"
        f"<span>{9 - i / 10:.1f}</span><span>Compare</span></div>"
        for i in range(1, 9)
    )
    cards = card_group(parse_html(_page(f"<main><h1>Ranking</h1><div class='list'>{rows}</div></main>")))
    assert len(cards) == 8 and cards[0].get("class") == "flex row"


def test_cards_added_to_a_reading_take_the_place_of_its_orphaned_card_lines() -> None:
    # The reading kept each card's price but took the linked titles for navigation; the grid's cards
    # come after it whole, and the prices read without their titles go.
    from hermes_nb.web.extraction.candidates import Candidate
    from hermes_nb.web.extraction.choose import Choice
    from hermes_nb.web.extraction.pipeline import _with_missed_cards

    cards = "".join(
        f"<div class='card'><a href='/p/{i}'>Standing desk model {i}</a><p>${500 + 100 * (i % 3)}+</p></div>"
        for i in range(8)
    )
    root = parse_html(_page(f"<main><h1>Desks</h1><p>{PROSE}</p><div class='grid'>{cards}</div></main>"))
    orphans = "\n\n".join(f"${500 + 100 * (i % 3)}+" for i in range(8))
    lead = f"# Desks\n\n{PROSE.strip()}"
    reading = Choice(Candidate("trafilatura", f"{lead}\n\n{orphans}"), 0.6, "primary kept")
    text = _with_missed_cards(root, reading, []).candidate.markdown
    assert text.startswith(f"{lead}\n\nStanding desk model 0\n\n$500+\n\nStanding desk")
    assert text.count("$500+") == 3 and text.count("Standing desk model") == 8


def test_a_reading_that_holds_the_cards_blurbs_but_not_their_titles_gets_the_cards() -> None:
    # The blurbs are most of the cards' words, but a grid read without its product names is no grid.
    from hermes_nb.web.extraction.candidates import Candidate
    from hermes_nb.web.extraction.choose import Choice
    from hermes_nb.web.extraction.pipeline import _with_missed_cards

    blurb = "A replacement battery for the handheld console, tested and covered by a lifetime guarantee {i}."
    cards = "".join(
        f"<div class='card'><a href='/p/{i}'>Console battery {i}</a><p>{blurb.format(i=i)}</p></div>"
        for i in range(8)
    )
    root = parse_html(_page(f"<main><h1>Parts</h1><div class='grid'>{cards}</div></main>"))
    blurbs = "\n\n".join(blurb.format(i=i) for i in range(8))
    reading = Choice(Candidate("trafilatura", f"# Parts\n\n{blurbs}"), 0.6, "primary kept")
    text = _with_missed_cards(root, reading, []).candidate.markdown
    assert text.count("Console battery") == 8 and text.count("lifetime guarantee 3.") == 1
    both = "\n\n".join(f"Console battery {i}\n\n{blurb.format(i=i)}" for i in range(8))
    titled = Choice(Candidate("trafilatura", f"# Parts\n\n{both}"), 0.6, "primary kept")
    assert _with_missed_cards(root, titled, []) is titled


def _footer_columns(n: int) -> str:
    columns = "".join(
        f"<div class='link-list'><h4>Column {i}</h4><a href='/a{i}'>About our company</a>"
        f"<a href='/b{i}'>Shipping and returns</a><a href='/c{i}'>Gift card balance</a></div>"
        for i in range(n)
    )
    return f"<footer><div class='row'>{columns}</div></footer>"


@pytest.mark.parametrize(
    "furniture",
    [
        _footer_columns(8),
        "<header><ul class='menu'>"
        + "".join(f"<li class='item'><a href='/m{i}'>Menu entry number {i}</a></li>" for i in range(9))
        + "</ul></header>",
        "<div role='contentinfo'><ul class='links'>"
        + "".join(f"<li class='l'><a href='/f{i}'>Footer link number {i}</a></li>" for i in range(9))
        + "</ul></div>",
        "<aside><div class='related'>"
        + "".join(f"<div class='r'><a href='/r{i}'>Related page number {i}</a></div>" for i in range(9))
        + "</div></aside>",
    ],
)
def test_the_cards_step_takes_no_cards_from_the_pages_header_footer_or_sidebars(furniture: str) -> None:
    # The grid itself is rendered by scripts (not in the HTML); the largest repeated group left is page
    # furniture, which classify may still count but the cards step must not append as the grid.
    root = parse_html(_page(f"<main><h1>Sneakers</h1><p>{PROSE}</p></main>{furniture}"))
    assert len(card_group(root)) >= 8
    assert card_group(root, outside_furniture=True) == []
    cards = _cards(6, priced=True)
    root = parse_html(_page(f"<main><h1>Sneakers</h1>{cards}</main>{furniture}"))
    inside = card_group(root, outside_furniture=True)
    assert [a.get("href") for card in inside for a in card.iter("a")] == [f"/item/{i}" for i in range(6)]


def test_a_grid_page_whose_cards_are_not_in_its_html_does_not_read_its_footer_as_cards() -> None:
    body = f"<main><h1>Sneakers</h1><p>{PROSE * 2}</p><div id='grid'></div></main>{_footer_columns(8)}"
    doc = content.convert(_page(body), "text/html", url="https://shop.example/collections/sneakers")
    assert doc.metadata["page_type"] == "listing"  # the footer's columns still count as cards for the type
    assert "Shipping and returns" not in doc.content and "analytical engine" in doc.content
