"""Tags libxml2 and a browser read differently are mended first, so the article stays an article."""

from __future__ import annotations

import lxml.etree
import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.tree import parse_html
from hermes_nb.web.extraction.unclosed import close_unclosed, needs_closing

PROSE = (
    "The committee met on Tuesday to review the harbour plan, and its members asked for a second survey "
    "of the eastern pier before any money is spent on the new breakwater. "
)


def _body(html: str) -> str:
    root = parse_html(f"<html>{html}</html>")
    return lxml.etree.tostring(root.find("body"), encoding="unicode")


@pytest.mark.parametrize(
    ("page", "tree"),
    [
        # a div left open in a navigation list item: closed by </li>
        (
            "<body><header><nav><ul><li><div>Menu</li></ul></nav></header><main><p>x</p></main></body>",
            "<body><header><nav><ul><li><div>Menu</div></li></ul></nav></header><main><p>x</p></main></body>",
        ),
        # two divs left open in a menu button: closed by </button>
        (
            "<body><header><button><div>Icon<div></button></header><main><p>x</p></main></body>",
            "<body><header><button><div>Icon<div/></div></button></header><main><p>x</p></main></body>",
        ),
        # a table left open in a section: closed by </section>, with its row and cell
        (
            "<body><section><table><tr><td>a</section><main><p>x</p></main></body>",
            "<body><section><table><tr><td>a</td></tr></table></section><main><p>x</p></main></body>",
        ),
        # nested lists: the inner list's items close each other, the outer item stays open
        (
            "<body><ul><li>x<ul><li>a<li><div>b</ul></li></ul><main><p>x</p></main></body>",
            "<body><ul><li>x<ul><li>a</li><li><div>b</div></li></ul></li></ul><main><p>x</p></main></body>",
        ),
        # markup quoted in an attribute (a tooltip) leaves what is open as it was
        (
            "<body><nav><div>a<p title='<div>tip</div>'>b</p></nav><main>x</main></body>",
            '<body><nav><div>a<p title="&lt;div&gt;tip&lt;/div&gt;">b</p></div></nav><main>x</main></body>',
        ),
        # an end tag inside a script is the script's text, not markup
        (
            '<body><nav><div>a<script>var s="</nav>";</script></nav><main><p>x</p></main></body>',
            '<body><nav><div>a<script>var s="&lt;/nav&gt;";</script></div></nav><main><p>x</p></main></body>',
        ),
    ],
)
def test_an_element_left_open_is_closed_by_the_end_tag_that_holds_it(page: str, tree: str) -> None:
    assert _body(page) == tree


def test_a_page_whose_divs_are_all_closed_is_returned_as_it_is() -> None:
    page = f"<html><body><div><p>{PROSE}</p></div><table><tr><td>1</td></tr></table></body></html>"
    assert not needs_closing(page)
    assert close_unclosed(page) is page
    # an open div that no enclosing end tag closes (the page's last) changes nothing either
    tail = "<html><body><main><p>x</p></main><div>footer"
    assert needs_closing(tail) and close_unclosed(tail) == tail
    # an unclosed comment hides the rest of the page, markup included, as it does from a browser
    hidden = "<body><nav><div>a<!-- <div></nav> <main>x</main></body>"
    assert close_unclosed(hidden) == hidden


def test_a_page_of_broken_tags_is_read_in_one_pass() -> None:
    # Tags that never end: each is looked at up to the next "<", not to the end of the page.
    page = "<html><body><nav>" + "<div class='a" * 20_000 + "</nav><main><p>x</p></main>"
    assert close_unclosed(page) == page


def test_a_page_that_goes_on_after_its_end_tags_is_read_to_its_end() -> None:
    # A template that closes the page after its header, and the article after it: a browser reads on,
    # libxml2 alone dropped everything after </html>.
    page = (
        "<html><head><title>HR outsourcing</title></head><body><header><a href='/'>Home</a></header>"
        f"</body></html>\n<div class='post'><h1>Six kinds of HR outsourcing</h1><p>{PROSE * 3}</p>"
        f"<p>{PROSE * 2}</p></div>"
    )
    doc = content.convert(page, "text/html", url="https://example.org/blog/hr-outsourcing", format="text")
    assert doc.content.count(PROSE.strip()) == 5
    # an end tag inside a script is the script's, and a page that ends where it says stays as it is
    ended = f"<html><body><p>{PROSE}</p><script>var s = '</body>';</script></body></html>\n"
    assert close_unclosed(ended) == ended


def test_an_article_after_a_broken_menu_button_is_read_as_paragraphs() -> None:
    # The menu button forgets to close a div: libxml2 alone puts the article inside the button, and
    # the reading came out as one run-on line (or nothing).
    header = "<header><button class='menu-button'><div class='inner'><svg></svg><div></button></header>"
    article = "<main><article><h1>Harbour plan</h1>" + "".join(
        f"<h2>Part {i}</h2><p>{PROSE * 2}</p>" for i in range(4)
    ) + "</article></main>"
    page = f"<html><head><title>Harbour plan</title></head><body>{header}{article}</body></html>"
    url = "https://news.example.org/2026/05/harbour-plan"
    doc = content.convert(page, "text/html", url=url, format="text")
    assert doc.content.count(PROSE.strip()) == 8
    # eight blocks under four headings (the <h1> says the title: it is the document's, title_heading.py)
    assert "\nPart 3\n" in doc.content and doc.content.count("\n\n") >= 7 and doc.title == "Harbour plan"
