"""The page's links on the words the reading kept: Markdown and HTML link them, text reads the same."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.hyperlinks import link_words
from hermes_nb.web.extraction.tree import parse_html

PROSE = "The service has run for two years and has needed less care than anyone on the team expected. "
URL = "https://example.org/dir/page.html"


def _page(body: str, head: str = "") -> str:
    return (
        f"<html><head><title>Links</title>{head}</head><body>"
        '<nav><a href="/">Home</a> <a href="/about">About</a></nav>'
        f"<article><h1>Links</h1><p>{PROSE * 3}</p>{body}</article></body></html>"
    )


def _linked(markdown: str, body: str, url: str = URL) -> tuple[str, int]:
    return link_words(markdown, parse_html(f"<html><body>{body}</body></html>"), url)


def test_links_in_a_paragraph_are_linked_to_their_absolute_targets() -> None:
    page = _page(
        '<p>Read the <a href="../notes/release.html">release notes</a> and the '
        '<a href="https://other.example/a_(b)">upstream page</a> before you upgrade.</p>'
    )
    doc = convert(page, "text/html", url=URL)
    assert (
        "Read the [release notes](https://example.org/notes/release.html) and the "
        "[upstream page](https://other.example/a_%28b%29) before you upgrade." in doc.content
    )
    assert doc.metadata["links_kept"] == 2
    html = convert(page, "text/html", url=URL, format="html").content
    assert '<a href="https://example.org/notes/release.html">release notes</a>' in html


def test_text_reads_the_same_words_and_the_description_has_no_targets() -> None:
    page = _page('<p>Read the <a href="/notes">release notes</a> before you upgrade, twice.</p>')
    text = convert(page, "text/html", url=URL, format="text").content
    assert "Read the release notes before you upgrade, twice." in text and "example.org" not in text
    assert "](" not in str(convert(page, "text/html", url=URL).metadata.get("description"))


def test_a_menu_link_is_not_put_on_the_same_word_in_a_sentence() -> None:
    body = '<nav><a href="/home">Home</a></nav><p>We went home early and <a href="/x">stayed</a> in.</p>'
    out, n = _linked("Home\n\nWe went home early and stayed in.", body)
    stayed = "[stayed](https://example.org/x)"
    assert out == f"[Home](https://example.org/home)\n\nWe went home early and {stayed} in."
    # The menu's word where the reading has it only inside a sentence: not linked there.
    out, n = _linked("We went Home early and stayed in.", body.replace("went home", "went Home"))
    assert "[Home]" not in out and n == 1


def test_a_link_is_placed_by_the_words_around_it_when_its_words_recur() -> None:
    body = '<p>Click here for the manual.</p><p>Or click <a href="/faq">here</a> for answers.</p>'
    out, n = _linked("Click here for the manual.\n\nOr click here for answers.", body)
    assert out == "Click here for the manual.\n\nOr click [here](https://example.org/faq) for answers."


def test_links_to_the_page_itself_scripts_and_code_stay_words() -> None:
    body = (
        '<p>See <a href="#usage">usage</a>, <a href="javascript:void(0)">more</a>, '
        f'<a href="{URL}#top">top</a>, <a href="ftp://h/f">files</a> and '
        '<code><a href="/c">call()</a></code>.</p>'
    )
    out, n = _linked("See usage, more, top, files and `call()`.", body)
    assert n == 0 and out == "See usage, more, top, files and `call()`."


def test_marks_and_code_spans_are_wrapped_whole_never_crossed() -> None:
    body = (
        '<p>Use <a href="/b"><b>bold</b> words</a>, <a href="/f"><code>f_x()</code></a>, '
        '<b>half <a href="/h">of it</a></b> and <a href="/e">snake_case</a>.</p>'
    )
    md = "Use **bold** words, `f_x()`, **half of it** and snake\\_case."
    out, n = _linked(md, body)
    assert out == (
        "Use [**bold** words](https://example.org/b), [`f_x()`](https://example.org/f), "
        "**half [of it](https://example.org/h)** and [snake\\_case](https://example.org/e)."
    )
    assert n == 4


def test_headings_list_items_and_table_cells_keep_their_links() -> None:
    body = (
        '<h2><a href="/post">A post title</a></h2><ul><li><a href="/one">First item</a></li></ul>'
        '<table><tr><td><a href="/cell?a=1|2">Cell</a></td><td>value</td></tr></table>'
    )
    md = "## A post title\n\n- First item\n\n| Cell | value |\n|---|---|"
    out, n = _linked(md, body)
    assert out == (
        "## [A post title](https://example.org/post)\n\n- [First item](https://example.org/one)\n\n"
        "| [Cell](https://example.org/cell?a=1%7C2) | value |\n|---|---|"
    )


def test_a_card_written_as_one_link_and_a_base_element() -> None:
    body = '<a href="/card"><h3>Card title</h3><p>Its blurb</p></a><p>Then <a href="x.html">one</a>.</p>'
    out, n = _linked("### Card title\n\nIts blurb\n\nThen one.", body)
    assert out == "### Card title\n\nIts blurb\n\nThen [one](https://example.org/dir/x.html)."
    base = '<base href="https://cdn.example.net/docs/">'
    root = parse_html(f"<html><head>{base}</head><body><p>Then <a href='x.html'>one</a>.</p></body></html>")
    assert link_words("Then one.", root, URL)[0] == "Then [one](https://cdn.example.net/docs/x.html)."


def test_a_page_without_links_or_without_a_url_for_relative_ones() -> None:
    assert _linked("Just words.", "<p>Just words.</p>") == ("Just words.", 0)
    assert _linked("Then one.", '<p>Then <a href="x.html">one</a>.</p>', url="") == ("Then one.", 0)
    assert _linked("Then one.", '<p>Then <a href="https://a.example/">one</a>.</p>', url="")[1] == 1


def test_prices_on_both_sides_of_a_link_are_not_read_as_a_formula() -> None:
    from hermes_nb.web.extraction.formats import markdown_to_text

    # A target's "_" and "=" looked like TeX to the formula rule, which ran from one "$" to the next.
    md = "It costs **$800**. The **[lens](https://shop.example/a_b?x=1)** costs **$200**."
    assert markdown_to_text(md) == "It costs $800. The lens costs $200."


def test_unusual_targets_are_encoded_where_markdown_would_misread_them() -> None:
    body = '<p>See <a href="https://ex.org/a b(c)|`d`">the page</a> and <a href="https://bücher.example/ü">more</a>.</p>'
    out, n = _linked("See the page and more.", body)
    assert "[the page](https://ex.org/a%20b%28c%29%7C%60d%60)" in out
    assert "[more](https://bücher.example/ü)" in out  # a reader's characters stay as written
