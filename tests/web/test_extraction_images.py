"""The page's figures where its words place them: Markdown and HTML show them, text reads the same words."""

from __future__ import annotations

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.formats import markdown_to_text
from hermes_nb.web.extraction.images import MAX_ALIKE, place_images
from hermes_nb.web.extraction.tree import parse_html

URL = "https://example.org/blog/post.html"
FIRST = "The harbour was quiet in the morning and the boats had not yet gone out to sea."
SECOND = "By noon the wind had turned and every crew was hauling nets against the swell."
THIRD = "In the evening the catch was weighed on the quay and sold before the light went."


def _page(figure: str, *, head: str = "", nav: str = "") -> str:
    return (
        f"<html><head><title>Harbour</title>{head}</head><body><header>{nav}</header><article>"
        f"<h1>Harbour</h1><p>{FIRST}</p>{figure}<p>{SECOND}</p><p>{THIRD}</p></article></body></html>"
    )


def _placed(markdown: str, body: str) -> tuple[str, int]:
    return place_images(markdown, parse_html(f"<html><body>{body}</body></html>"), URL)


def _between(markup: str) -> tuple[str, int]:
    """``markup`` placed between two paragraphs the reading holds."""
    return _placed(f"{FIRST}\n\n{SECOND}", f"<p>{FIRST}</p>{markup}<p>{SECOND}</p>")


def test_a_figure_between_paragraphs_is_placed_with_its_absolute_address() -> None:
    page = _page('<figure><img src="../img/quay.jpg" alt="The quay [at dawn]" width="800"></figure>')
    assert "![" not in convert(page, "text/html", url=URL).content  # off unless asked for
    doc = convert(page, "text/html", url=URL, images=True)
    image = "![The quay \\[at dawn\\]](https://example.org/img/quay.jpg)"
    assert f"{FIRST}\n\n{image}\n\n{SECOND}" in doc.content
    assert doc.metadata["images_kept"] == 1
    html = convert(page, "text/html", url=URL, format="html", images=True).content
    assert '<img src="https://example.org/img/quay.jpg" alt="The quay [at dawn]" />' in html
    # The text reads as it did without the figure: no alt text, no address.
    text = convert(page, "text/html", url=URL, format="text", images=True).content
    assert f"{FIRST}\n\n{SECOND}" in text and "quay.jpg" not in text and "dawn" not in text


def test_a_caption_the_reading_lacks_is_passed_over_and_one_it_keeps_read_on() -> None:
    figure = '<div class="thumb"><img src="/a.png"><div>A small caption</div></div>'
    body = f"<p>{FIRST}</p>{figure}<p>{SECOND}</p>"
    out, n = _placed(f"{FIRST}\n\n{SECOND}", body)
    assert out == f"{FIRST}\n\n![](https://example.org/a.png)\n\n{SECOND}" and n == 1
    out, n = _placed(f"{FIRST}\n\nA small caption\n\n{SECOND}", body)
    assert out == f"{FIRST}\n\n![](https://example.org/a.png)\n\nA small caption\n\n{SECOND}" and n == 1


def test_a_figures_whole_caption_is_passed_over_however_long() -> None:
    caption = "Clockwise from top: " + "a whale's jaw, its teeth and the bones of its flipper, " * 4
    figure = f'<figure><img src="/j.png"><figcaption>{caption}</figcaption></figure>'
    out, n = _between(figure)
    assert len(caption) > 200 and n == 1 and f"![](https://example.org/j.png)\n\n{SECOND}" in out
    # The same words outside a figure: more than the reading may lack, so no place is certain.
    loose = f'<div><img src="/j.png"><div>{caption}</div></div>'
    assert _between(loose)[1] == 0


def test_words_inside_a_figures_own_caption_start_no_line_that_follows_it() -> None:
    # The caption says "entries threshold", which a list item elsewhere in the reading starts with.
    caption = "<figcaption>Backtesting with a higher entries threshold</figcaption>"
    item = "<ul><li>Entries threshold: the least entries to alert on</li></ul>"
    body = f'{item}<p>{FIRST}</p><figure><img src="/b.png">{caption}</figure><p>{SECOND}</p>'
    reading = f"- Entries threshold: the least entries to alert on\n\n{FIRST}\n\n{SECOND}"
    out, n = _placed(reading, body)
    assert n == 1 and f"{FIRST}\n\n![](https://example.org/b.png)\n\n{SECOND}" in out


def test_a_note_between_a_heading_and_its_figure_is_passed_over() -> None:
    body = f'<h2>History</h2><div>Main article: History of the harbour</div><img src="/h.png"><p>{SECOND}</p>'
    out, n = _placed(f"## History\n\n{SECOND}", body)
    assert out == f"## History\n\n![](https://example.org/h.png)\n\n{SECOND}" and n == 1


def test_images_the_reading_does_not_run_across_stay_out() -> None:
    nav = '<img src="/logo-big.png" width="300"><a href="/">Home</a> <a href="/news">News</a>'
    aside = '<aside><img src="/ad.jpg" width="300"><p>Buy a boat today.</p></aside>'
    page = _page("", nav=nav).replace("</article>", f"</article>{aside}")
    doc = convert(page, "text/html", url=URL, images=True)
    assert "![" not in doc.content and "images_kept" not in doc.metadata
    # Inside a sentence: an inline picture, not a figure.
    inline = FIRST.replace("the morning", 'the <img src="/sun.png"> morning')
    out, n = _placed(FIRST, f"<p>{inline}</p>")
    assert n == 0 and out == FIRST
    # A hero picture before the headline the reading leaves out (the card shows the title instead).
    hero = f'<img src="/hero.jpg"><h1>The harbour at dawn</h1><p>{SECOND}</p><p>{THIRD}</p>'
    assert _placed(f"{SECOND}\n\n{THIRD}", hero)[1] == 0


def test_the_readings_first_line_takes_a_picture_right_before_it_or_its_caption() -> None:
    lead = f'<img src="/lead.jpg"><p>{SECOND}</p><p>{THIRD}</p>'
    out, n = _placed(f"{SECOND}\n\n{THIRD}", lead)
    assert n == 1 and out == f"![](https://example.org/lead.jpg)\n\n{SECOND}\n\n{THIRD}"
    figure = f'<figure><img src="/lead.jpg"><figcaption>The quay at dawn</figcaption></figure><p>{SECOND}</p>'
    assert _placed(f"{SECOND}\n\n{THIRD}", figure)[1] == 1
    # Other words between them (a byline the reading lacks): no place is certain.
    byline = f'<img src="/lead.jpg"><div>By a reporter</div><p>{SECOND}</p>'
    assert _placed(f"{SECOND}\n\n{THIRD}", byline)[1] == 0
    # A strip of pictures before it (a carousel, a shop's gallery): none is the lead.
    strip = "".join(f'<img src="/shot{i}.jpg">' for i in range(5))
    assert _placed(f"{SECOND}\n\n{THIRD}", f"{strip}<p>{SECOND}</p>")[1] == 0
    # Between two lines of the reading, pictures side by side stay.
    pair = '<img src="/left.jpg"><img src="/right.jpg">'
    assert _between(pair)[1] == 2


def test_lines_that_start_alike_are_told_apart_by_the_words_that_follow() -> None:
    one, two = "Photo: the harbour master at the quay", "Photo: the harbour master on his boat"
    body = (
        f'<p>{FIRST}</p><img src="/1.jpg"><p>{one}</p><p>{SECOND}</p>'
        f'<img src="/2.jpg"><p>{two}</p><p>{THIRD}</p>'
    )
    out, n = _placed(f"{FIRST}\n\n{one}\n\n{SECOND}\n\n{two}\n\n{THIRD}", body)
    assert n == 2
    assert out.index("1.jpg") < out.index(one) < out.index(SECOND) < out.index("2.jpg") < out.index(two)


def test_more_lines_that_start_alike_than_max_alike_place_no_figure() -> None:
    # A long thread: every post starts "Posted by …", a picture before each. Told apart one by one,
    # each figure is compared with every such line (a minute for 2,000 posts): past MAX_ALIKE, none.
    count = MAX_ALIKE + 1
    body = "".join(f'<img src="/p{i}.jpg"><p>Posted by member number {i} who wrote</p>' for i in range(count))
    reading = "\n\n".join(f"Posted by member number {i} who wrote" for i in range(count))
    assert _placed(reading, body)[1] == 0
    few = "".join(f'<img src="/p{i}.jpg"><p>Posted by member number {i} who wrote</p>' for i in range(3))
    assert _placed("\n\n".join(f"Posted by member number {i} who wrote" for i in range(3)), few)[1] == 3


def test_a_short_line_before_the_place_says_alone_what_the_page_shows_before_it() -> None:
    # The reading lacks the list between the headings, so its last letters before the figure's place
    # ("…linksImages") are not the page's; the heading right before it is.
    links = '<h2>Links</h2><ul><li><a href="/a">one</a></li></ul>'
    body = f'{links}<h2>Images</h2><img src="/m.png"><p>{SECOND}</p>'
    out, n = _placed(f"## Links\n\n## Images\n\n{SECOND}", body)
    assert n == 1 and out.endswith(f"## Images\n\n![](https://example.org/m.png)\n\n{SECOND}")
    # A line too short to say so ("A" alone) places nothing.
    body = f'{links}<h2>A</h2><img src="/m.png"><p>{SECOND}</p>'
    assert _placed(f"## Links\n\n## A\n\n{SECOND}", body)[1] == 0


def test_a_caption_the_reading_keeps_is_read_as_what_the_page_shows_before_the_place() -> None:
    # "Photo" before the picture, its caption after: the reading runs them together on one line.
    caption = "<figcaption>Credit: a photographer</figcaption>"
    figure = f'<figure><span>Photo</span><img src="/c.jpg">{caption}</figure>'
    reading = f"{FIRST}\n\nPhoto Credit: a photographer\n\n{SECOND}"
    out, n = _placed(reading, f"<p>{FIRST}</p>{figure}<p>{SECOND}</p>")
    assert n == 1 and out.index("photographer") < out.index("c.jpg") < out.index(SECOND)


def test_icons_by_size_or_name_and_addresses_a_reader_cannot_open_stay_out() -> None:
    between = (
        '<img src="/i.png" width="24" height="24">',
        '<img src="/a.png" class="author-avatar">',
        '<span class="icon"><img src="/s.png"></span>',
        '<img src="data:image/png;base64,iVBORw0KGgo=">',
        '<img src="javascript:void(0)">',
        '<img src="/g/transparent-pixel._V1_.gif" alt="Customer image">',
        '<img data-src=\'{"default": "/a.jpg", "w": 73}\'>',  # a script's settings, not an address
        "<img>",
    )
    for img in between:
        out, n = _between(img)
        assert n == 0, img


def test_lazy_images_show_the_address_kept_aside_not_the_placeholder() -> None:
    shown = [
        ('<img src="data:image/gif;base64,R0lGOD" data-src="/real.jpg" alt="Real">',
         "![Real](https://example.org/real.jpg)"),
        # A lazy loader of its own names the attribute so; a template's binding is an expression.
        ('<img src="data:image/svg+xml;base64,PHN2Zz4=" nitro-lazy-src="/own.jpg" :src="(card.src)">',
         "![](https://example.org/own.jpg)"),
        # Lazy loading's one placeholder in every picture's place: the set of sizes, or the picture file
        # the image links to, is the picture.
        ('<img src="/img/spacer.gif" srcset="/w640.jpg 640w" alt="Sized">',
         "![Sized](https://example.org/w640.jpg)"),
        ('<a href="/full/quay.jpg"><img src="/lazy-load/lazy_placeholder.gif" alt="Quay"></a>',
         "![Quay](https://example.org/full/quay.jpg)"),
        ('<img srcset="/w400.jpg 400w, /w800.jpg 800w" alt="Set">', "![Set](https://example.org/w400.jpg)"),
    ]  # fmt: skip
    for img, figure in shown:
        assert figure in _between(img)[0], img
    bound = '<img :data-src="(card.src || \'/x.jpg\')">'
    assert _between(bound)[1] == 0
    unlinked = '<a href="/gallery/"><img src="/lazy-load/lazy_placeholder.gif" alt="Quay"></a>'
    assert _between(unlinked)[1] == 0
    sized_later = '<img src="/later.jpg" width="570" height="0">'  # 0: a size scripts set, no icon
    assert _between(sized_later)[1] == 1
    # A blurred preview beside an empty image whose <noscript> holds the real one: the real one, once.
    figure = (
        '<figure><div><img src="/blur.jpg?q=20"></div><img alt="">'
        '<noscript><img src="/full.jpg" alt="Full"></noscript></figure>'
    )
    out, n = _between(figure)
    assert n == 1 and "![](https://example.org/full.jpg)" in out and "blur" not in out


def test_tables_quotations_and_code_are_not_broken_and_a_copy_is_shown_once() -> None:
    rows = "<tr><td>one two three four</td></tr><tr><td><img src='/t.png'>five six seven eight</td></tr>"
    table = f"<table>{rows}</table>"
    out, n = _placed("| one two three four |\n| five six seven eight |", table)
    assert n == 0
    quote = f"<blockquote><p>{FIRST}</p><img src='/q.png'><p>{SECOND}</p></blockquote>"
    out, n = _placed(f"> {FIRST}\n>\n> {SECOND}", quote)
    assert n == 0
    twice = f'<p>{FIRST}</p><img src="/x.png"><p>{SECOND}</p><img src="/x.png"><p>{THIRD}</p>'
    out, n = _placed(f"{FIRST}\n\n{SECOND}\n\n{THIRD}", twice)
    assert n == 1 and out.count("x.png") == 1 and out.index("x.png") < out.index(SECOND)
    sizes = '<img src="/w400.jpg" alt="The quay"><img src="/w800.jpg" alt="The quay">'
    out, n = _between(sizes)
    assert n == 1 and "w400" in out and "w800" not in out
    code = f'<p>{FIRST}</p><pre><code>x = 1 <img src="/c.png"> y = 2</code></pre><p>{SECOND}</p>'
    out, n = _placed(f"{FIRST}\n\n```\nx = 1  y = 2\n```\n\n{SECOND}", code)
    assert n == 0


def test_a_figure_in_a_list_item_stands_in_the_item_and_the_list_goes_on() -> None:
    one, two = "The first part we sell, cast in iron", "The second part we sell, cut from oak"
    items = f'<ul><li><img src="/1.jpg" alt="Iron">{one}</li><li><img src="/2.jpg">{two}</li></ul>'
    out, n = _placed(f"{FIRST}\n\n- {one}\n- {two}", f"<p>{FIRST}</p>{items}")
    assert n == 2
    assert out == f"{FIRST}\n\n- {one}\n  ![Iron](https://example.org/1.jpg)\n- {two}\n  ![](https://example.org/2.jpg)"
    numbered = f"{FIRST}\n\n1. {one}\n10. {two}"
    out, _ = _placed(numbered, f"<p>{FIRST}</p><ol><li>{one}</li><img src='/2.jpg'><li>{two}</li></ol>")
    assert out.endswith(f"10. {two}\n    ![](https://example.org/2.jpg)")  # between items: in the item
    assert markdown_to_text(out) == markdown_to_text(numbered)
    # Before an item's next paragraph: indented as that paragraph is, so it stays in the item.
    step = f"<ol><li><p>{one}</p><img src='/s.jpg'><p>{two}</p></li></ol>"
    out, _ = _placed(f"1. {one}\n\n   {two}", step)
    assert out == f"1. {one}\n\n   ![](https://example.org/s.jpg)\n\n   {two}"
    # A figure before a list, outside it, stays before it.
    before = f"<p>{FIRST}</p><img src='/0.jpg'><ul><li>{one}</li><li>{two}</li></ul>"
    out, _ = _placed(f"{FIRST}\n\n- {one}\n- {two}", before)
    assert out == f"{FIRST}\n\n![](https://example.org/0.jpg)\n\n- {one}\n- {two}"


def test_text_drops_a_line_of_images_and_keeps_an_image_inside_a_sentence_as_its_words() -> None:
    figures = "![A \\] chart](https://x.test/c.png) ![B](https://x.test/d.png)"
    markdown = f"Before.\n\n{figures}\n\nA ![dot](https://x.test/e.png) here."
    assert markdown_to_text(markdown) == "Before.\n\nA dot here."
