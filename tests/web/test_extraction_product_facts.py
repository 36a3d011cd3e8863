"""A product page's facts from its JSON-LD, in ``metadata["product"]``."""

from __future__ import annotations

import json

from hermes_nb.web.content import convert
from hermes_nb.web.extraction.product_facts import product_facts


def _page(product: dict[str, object]) -> str:
    ld = json.dumps({"@context": "https://schema.org", **product})
    return (
        f"<html><head><script type='application/ld+json'>{ld}</script></head><body><main><h1>Mug</h1>"
        "<p>A wheel thrown stoneware mug with a matte speckled glaze outside and a clear glazed interior, "
        "safe in dishwashers and microwave ovens.</p></main></body></html>"
    )


def test_price_currency_availability_brand_and_rating() -> None:
    product = {
        "@type": "Product",
        "name": "Stoneware mug",
        "brand": {"@type": "Brand", "name": "L&amp;#8217;atelier"},
        "sku": "MUG-1",
        "gtin13": 4006381333931,
        "offers": [
            {"@type": "Offer", "priceCurrency": "eur", "availability": "https://schema.org/InStock",
             "priceSpecification": [{"@type": "UnitPriceSpecification", "price": "1.299,00"}]}
        ],
        "aggregateRating": {"ratingValue": "4.6", "reviewCount": "120"},
    }
    meta = convert(_page(product), "text/html", url="https://shop.example.org/mug").metadata
    assert meta["product"] == {
        "name": "Stoneware mug", "brand": "L\u2019atelier", "sku": "MUG-1", "gtin": "4006381333931",
        "price": 1299.0, "currency": "EUR", "availability": "InStock", "rating": 4.6, "rating_count": 120,
    }


def test_an_aggregate_offer_gives_its_range_and_a_page_without_a_product_has_none() -> None:
    facts = product_facts({"name": "Seeds", "offers": {"@type": "AggregateOffer", "lowPrice": "2.98",
                                                         "highPrice": 79.98, "priceCurrency": "GBP"}})
    assert facts == {"name": "Seeds", "price_low": 2.98, "price_high": 79.98, "currency": "GBP"}
    assert product_facts({"name": "x", "offers": {"price": "call us"}}) == {"name": "x"}
    assert product_facts({"offers": {"price": "NaN"}, "aggregateRating": {"ratingValue": float("inf")}}) == {}
    article = _page({"@type": "Article", "headline": "Mugs"})
    assert "product" not in convert(article, "text/html", url="https://example.org/a").metadata
