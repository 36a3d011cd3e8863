"""Dialogs (a consent manager's preference centre, a fly-in menu, a pop-up) are not the page's text."""

from __future__ import annotations

from hermes_nb.web import content
from hermes_nb.web.extraction.dialogs import drop_dialogs
from hermes_nb.web.extraction.tree import parse_html

PROSE = (
    "The analytical engine was a proposed mechanical general-purpose computer designed by Charles "
    "Babbage, and it read its programs and its data from punched cards. "
)
LEGAL = (
    "These cookies are set by our advertising partners and may be used to build a profile of your "
    "interests and show you relevant adverts on other sites. "
)
#: A consent manager's preference centre: a modal of accordions, one per category (its style sheet, not
#: the markup, hides it until asked).
PREFERENCES = (
    "<div id='pc-sdk'><div role='dialog' aria-modal='true' class='pc-center'><h2>About your privacy</h2>"
    + "".join(
        f"<div class='accordion-layout'><button>Category {i}</button>"
        f"<div class='accordion-text'><p>{LEGAL * 2}</p></div></div>"
        for i in range(4)
    )
    + "</div></div>"
)


def _page(body: str) -> str:
    return f"<html><head><title>Engine</title></head><body>{body}</body></html>"


def test_a_consent_preference_centre_is_not_read_as_the_article() -> None:
    article = f"<article><h1>The engine</h1><p>{PROSE * 6}</p>{PREFERENCES}<p>{PROSE * 4}</p></article>"
    doc = content.convert(_page(article), "text/html", url="https://blog.example.org/2024/engine")
    assert "analytical engine" in doc.content
    assert "advertising partners" not in doc.content
    assert doc.metadata["dialogs_dropped"] == 1


def test_menus_and_popups_go_an_article_shown_in_a_modal_stays() -> None:
    menu = "<div role='dialog' class='flyin'><a href='/a'>Guitars</a> <a href='/b'>Drums</a></div>"
    popup = "<dialog><p>Sign up for our newsletter and get ten percent off.</p></dialog>"
    root = parse_html(_page(f"<p>{PROSE}</p>{menu}{popup}"))
    assert drop_dialogs(root) == 2
    assert "Guitars" not in root.text_content() and "newsletter" not in root.text_content()
    # A page that opens its article in a modal: the modal holds most of the text, and stays.
    root = parse_html(_page(f"<nav>Home</nav><div role='dialog'><h1>Engine</h1><p>{PROSE * 4}</p></div>"))
    assert drop_dialogs(root) == 0


def test_a_product_page_keeps_its_description_sheet_and_loses_its_consent_banner() -> None:
    sheet = f"<div role='dialog' aria-modal='false'><h2>Description</h2><p>{PROSE * 2}</p></div>"
    banner = f"<div role='dialog' class='notify'><p>We use cookies. {LEGAL}</p><button>Accept</button></div>"
    shown = f"<h1>Engine kit</h1><p>$60.00</p><p>{PROSE * 4}</p><button>Description</button>"
    page = _page(shown + sheet + banner)
    root = parse_html(page)
    assert drop_dialogs(root, consent_only=True) == 1
    assert "punched cards" in root.text_content() and "advertising partners" not in root.text_content()
    assert drop_dialogs(parse_html(page)) == 2  # on other pages both go


def test_a_consent_centre_goes_however_long_a_recipe_for_cookies_in_a_modal_stays() -> None:
    # A thin page whose consent manager's legal text outweighs its own: the dialog still goes.
    root = parse_html(_page(f"<p>{PROSE}</p>{PREFERENCES}"))
    assert drop_dialogs(root) == 1 and "advertising partners" not in root.text_content()
    # A recipe shown in a modal speaks of cookies, not of privacy: it is the page, and stays.
    recipe = "<p>Cream the butter, fold in the chocolate and bake the cookies for twelve minutes.</p>" * 6
    root = parse_html(_page(f"<nav>Home</nav><div role='dialog'><h1>Cookies</h1>{recipe}</div>"))
    assert drop_dialogs(root) == 0


def test_aria_menus_and_navigation_go_on_every_page_a_page_that_is_one_menu_stays() -> None:
    picker = (
        "<ul role='menu' class='nav-languages'><li role='menuitem'>English (United States)</li>"
        "<li role='menuitem'>Français (Canada)</li></ul>"
    )
    bar = "<div role='menubar'><a role='menuitem' href='/watchlist'>Watchlist</a></div>"
    crumbs = "<div role='navigation' class='site-sections'><a href='/kits'>Kits and spare parts</a></div>"
    sheet = f"<div role='dialog' aria-modal='false'><h2>Description</h2><p>{PROSE * 2}</p></div>"
    page = _page(f"<div>{picker}{bar}</div>{crumbs}<h1>Engine kit</h1><p>{PROSE * 4}</p>{sheet}")
    for consent_only in (False, True):  # a product page loses its menus too, and keeps its sheet
        root = parse_html(page)
        assert drop_dialogs(root, consent_only=consent_only) == (3 if consent_only else 4)
        text = root.text_content()
        assert "Français" not in text and "Watchlist" not in text and "spare parts" not in text
        assert "Engine kit" in text
        assert ("Description" in text) is consent_only
    # A page whose text is one menu (a site map marked up as a menu) keeps it.
    items = "<li role='menuitem'>Analytical engines of the age</li>" * 20
    root = parse_html(_page(f"<ul role='menu'>{items}</ul>"))
    assert drop_dialogs(root) == 0


def test_a_pop_up_named_by_its_class_goes_a_link_that_opens_one_and_an_overlaid_story_stay() -> None:
    popup = (
        "<div class='elementor-popup-modal'><h2>Related posts</h2>"
        "<p>Navigating the benefits system can be overwhelming while dealing with a condition.</p></div>"
    )
    success = "<section class='success-modal__content'><p>Your email has been sent!</p></section>"
    note = "<a class='popup' href='#n1'>rather elderly</a>"  # a hypertext note: words of the sentence
    root = parse_html(_page(f"<p>I am a {note} man. {PROSE * 3}</p>{popup}{success}"))
    assert drop_dialogs(root) == 2
    text = root.text_content()
    assert "I am a rather elderly man." in text and "Related posts" not in text and "email" not in text
    # A news site opening its story in an overlay (named "modal", holding the headline): the page.
    story = f"<div class='render-target-modal'><article><h1>Engine</h1><p>{PROSE * 2}</p></article></div>"
    root = parse_html(_page(f"<nav>Home</nav><p>{PROSE * 4}</p>{story}"))
    assert drop_dialogs(root) == 0
