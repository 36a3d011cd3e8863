"""A product page's reviews and cookie-consent banner are not the product: they go, the product stays."""

from __future__ import annotations

import json

import pytest

from hermes_nb.web import content
from hermes_nb.web.extraction.product_extras import REVIEW_ITEMS, drop_product_extras
from hermes_nb.web.extraction.tree import parse_html, visible_text

DESCRIPTION = (
    "A wheel thrown stoneware mug with a matte speckled glaze outside and a clear glazed interior, "
    "safe in dishwashers and microwave ovens, holding twelve ounces of coffee or tea. "
)
REVIEW = (
    "I bought this as a birthday present for my sister and she uses it every single morning now, "
    "the glaze is even prettier in person than in the photographs and it arrived well packed. "
)
CONSENT = (
    "We use cookies and similar technologies to personalise content and advertising, to provide "
    "social media features and to analyse our traffic; manage your preferences at any time. "
)
PRODUCT_LD = '<script type="application/ld+json">{"@type": "Product", "name": "Speckled mug"}</script>'


def _product_page(reviews: int) -> str:
    items = "".join(
        f"<div class='review-item'><span class='author'>Buyer {i}</span><p>Review {i}: {REVIEW}</p></div>"
        for i in range(reviews)
    )
    body = (
        f"<div class='cookie-consent'><p>{CONSENT}</p><button>Accept</button></div>"
        f"<main><h1>Speckled mug</h1><p class='price'>$38.00</p><p>{DESCRIPTION}</p>"
        "<h2>Details</h2><ul><li>Height: 9 cm</li><li>Capacity: 350 ml</li></ul>"
        "<section class='reviews'><h2>Reviews</h2>"
        f"<p class='review-summary'>4.9 out of 5, {reviews} reviews</p>{items}</section></main>"
    )
    return f"<html><head><title>Speckled mug</title>{PRODUCT_LD}</head><body>{body}</body></html>"


def test_a_product_page_reads_without_its_reviews_and_consent_banner() -> None:
    doc = content.convert(_product_page(6), "text/html", url="https://shop.example.org/products/mug")
    assert doc.metadata["page_type"] == "product"
    assert "wheel thrown stoneware" in doc.content and "Capacity: 350 ml" in doc.content
    assert "birthday present" not in doc.content and "We use cookies" not in doc.content
    assert doc.metadata["product_extras_dropped"] == 7  # six reviews, one banner


def test_one_review_element_is_a_summary_and_stays() -> None:
    root = parse_html(_product_page(1))
    assert REVIEW_ITEMS > 1
    assert drop_product_extras(root) == 1  # the banner only
    text = visible_text(root)
    assert "birthday present" in text and "4.9 out of 5" in text and "We use cookies" not in text


def test_a_preview_is_not_a_review_and_a_consent_named_wrapper_stays() -> None:
    previews = "".join(f"<div class='preview'><p>Colour {i}: {DESCRIPTION}</p></div>" for i in range(3))
    page = f"<html><body class='cookie-consent-given'><main>{previews}</main></body></html>"
    root = parse_html(page)
    wrapper = f"<html><body><div id='consent-wrapper'><main>{previews}</main></div></body></html>"
    assert drop_product_extras(root) == 0 and drop_product_extras(parse_html(wrapper)) == 0


def test_a_consent_named_wrapper_stays_beside_a_large_script_state() -> None:
    # The page's share is measured on the text a reader sees: a script's state (often far longer
    # than the page) does not make the wrapper of the whole product look small.
    previews = "".join(f"<div class='preview'><p>Colour {i}: {DESCRIPTION}</p></div>" for i in range(3))
    state = '{"items": [' + ",".join(f'"{i}"' for i in range(5000)) + "]}"
    wrapper = (
        f"<html><body><div id='consent-wrapper'><main>{previews}</main></div>"
        f"<script>window.__STATE__ = {state}</script></body></html>"
    )
    root = parse_html(wrapper)
    assert drop_product_extras(root) == 0
    assert "Colour 2" in visible_text(root)


def test_other_products_go_and_the_product_stays() -> None:
    others = "".join(
        f"<li class='product-card'><a href='/products/{i}'>Speckled bowl {i}</a> <span>$2{i}.00</span></li>"
        for i in range(4)
    )
    body = (
        f"<main><h1>Speckled mug</h1><p class='price'>$38.00</p><p>{DESCRIPTION}</p>"
        f"<section class='related-products'><h2>You may also like</h2><ul>{others}</ul></section>"
        f"<div id='customers-also-viewed'><h2>Customers also viewed</h2><ul>{others}</ul></div></main>"
    )
    html = f"<html><head><title>Speckled mug</title>{PRODUCT_LD}</head><body>{body}</body></html>"
    doc = content.convert(html, "text/html", url="https://shop.example.org/products/mug")
    assert doc.metadata["page_type"] == "product"
    assert "wheel thrown stoneware" in doc.content and "$38.00" in doc.content
    assert "Speckled bowl" not in doc.content and "also viewed" not in doc.content
    assert doc.metadata["product_extras_dropped"] == 2


def test_a_recommendation_named_wrapper_of_the_whole_product_stays() -> None:
    product = f"<main><h1>Mug</h1><p>{DESCRIPTION}</p></main>"
    root = parse_html(f"<html><body><div class='similar-layout'>{product}</div></body></html>")
    assert drop_product_extras(root) == 0
    assert "wheel thrown stoneware" in visible_text(root)


CARE = (
    "Each piece is finished by hand, so the glaze pools a little differently on every mug. Wash it by hand "
    "with a soft sponge to keep the speckles bright, and let it dry upside down on a rack before storing it."
)
SHIPPING = (
    "Orders leave the studio within three working days, packed in recycled paper and card. Delivery inside "
    "the country takes two to four days; we send a tracking link by email as soon as the parcel is collected."
)
SIGN_UP = "Enter your email for ten percent off your first order, plus the latest news from the studio."


def test_hidden_overlays_go_and_a_hidden_description_sheet_stays() -> None:
    # A product page keeps its hidden elements (descriptions in tabs and sheets), but not what a script
    # would open over it: a sign-up pop-up, the mini cart, a currency picker, a dialog.
    overlays = (
        f"<div class='newsletter-popup' style='display:none'><p>{SIGN_UP}</p></div>"
        "<div id='mini-cart' hidden><p>Your cart is empty. Continue shopping for more mugs today.</p></div>"
        "<div class='currency-selector' style='visibility: hidden'><p>USD EUR GBP AUD CAD</p></div>"
        f"<div role='dialog' class='signup-modal'><p>{SIGN_UP}</p></div>"
    )
    sheet = f"<div class='sheet dialog' style='display:none'><h2>Description</h2><p>{DESCRIPTION}</p></div>"
    body = f"{overlays}<main><h1>Speckled mug</h1><p class='price'>$38.00</p>{sheet}</main>"
    html = f"<html><head><title>Speckled mug</title>{PRODUCT_LD}</head><body>{body}</body></html>"
    doc = content.convert(html, "text/html", url="https://shop.example.org/products/mug")
    assert doc.metadata["page_type"] == "product"
    assert "wheel thrown stoneware" in doc.content
    for overlay in ("first order", "cart is empty", "GBP"):
        assert overlay not in doc.content
    assert doc.metadata["product_extras_dropped"] == 4


def test_a_shown_element_or_a_whole_page_dialog_named_like_an_overlay_stays() -> None:
    # Only a hidden element or a dialog is an overlay: a visible "modal-content" block is what the page shows.
    shown = f"<main><div class='modal-content'><p>{DESCRIPTION}</p></div></main>"
    root = parse_html(f"<html><body>{shown}</body></html>")
    assert drop_product_extras(root) == 0
    # A dialog holding most of the page is the page (a quick-view rendering of the product), not an overlay.
    quick_view = f"<div role='dialog' class='quick-view-modal'><h1>Mug</h1><p>{DESCRIPTION}</p></div>"
    root = parse_html(f"<html><body>{quick_view}<p>Free returns.</p></body></html>")
    assert drop_product_extras(root) == 0 and "wheel thrown stoneware" in visible_text(root)


@pytest.mark.parametrize(
    "sent",
    [
        # markup inside the JSON string, as shops paste their HTML description
        "<p>A wheel thrown <strong>stoneware mug</strong> with a matte speckled glaze outside and a clear"
        " glazed interior,</p><ul><li>safe in dishwashers and microwave ovens</li></ul>",
        # the same, entity-escaped
        "&lt;p&gt;A wheel thrown &lt;b&gt;stoneware mug&lt;/b&gt; with a matte speckled glaze outside and a"
        " clear glazed interior, safe in dishwashers and microwave ovens&lt;/p&gt;",
        # URL-encoded, no space left
        "A%20wheel%20thrown%20stoneware%20mug%20with%20a%20matte%20speckled%20glaze%20outside%20and%20a%20"
        "clear%20glazed%20interior%2C%20safe%20in%20dishwashers%20and%20microwave%20ovens",
    ],
)
def test_a_structured_data_description_is_added_as_plain_text(sent: str) -> None:
    # The shop renders its description with a script: the page shows a name, a price and its care notes.
    ld = json.dumps({"@type": "Product", "name": "Speckled mug", "description": sent})
    care = f"<h2>Care</h2><p>{CARE}</p><h2>Shipping</h2><p>{SHIPPING}</p>"
    body = f"<main><h1>Speckled mug</h1><p class='price'>$38.00</p><div id='description'></div>{care}</main>"
    html = (
        f"<html><head><title>Speckled mug</title><script type='application/ld+json'>{ld}</script></head>"
        f"<body>{body}</body></html>"
    )
    doc = content.convert(html, "text/html", url="https://shop.example.org/products/mug")
    assert "product description from structured data" in doc.metadata["extractor_reason"]
    assert "A wheel thrown stoneware mug with a matte speckled glaze" in doc.content
    assert "dishwashers and microwave ovens" in doc.content
    for markup in ("<p>", "<strong>", "<b>", "&lt;", "%20"):
        assert markup not in doc.content
