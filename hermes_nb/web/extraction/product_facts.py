"""A product's facts from its schema.org JSON-LD: brand, identifiers, price, availability, rating.

Shops describe the product they sell in structured data for search engines, and that data holds what
a page often draws only with scripts or images: the price (an ``Offer``, an ``AggregateOffer``'s
range, or a ``priceSpecification``), the currency, whether it is in stock, the brand, SKU and GTIN,
and the rating. ``product_facts`` reads them into flat, typed values for ``metadata["product"]``, so
that a batch of product pages becomes a table without parsing any text.
"""

from __future__ import annotations

import math
from html import unescape
from typing import Any

_GTINS = ("gtin", "gtin13", "gtin12", "gtin14", "gtin8", "isbn")


def product_facts(product: dict[str, Any]) -> dict[str, Any]:
    """The facts a JSON-LD ``Product`` states (only those it states), as plain strings and numbers."""
    facts: dict[str, Any] = {}
    for key, value in (
        ("name", _string(product.get("name"))),
        ("brand", _name(product.get("brand"))),
        ("sku", _string(product.get("sku")) or _string(product.get("mpn"))),
        ("gtin", next((_string(product.get(k)) for k in _GTINS if _string(product.get(k))), "")),
    ):
        if value:
            facts[key] = value
    facts.update(_offer(product.get("offers")))
    rating = product.get("aggregateRating")
    if isinstance(rating, dict):
        score = _number(rating.get("ratingValue"))
        count = _number(rating.get("reviewCount")) or _number(rating.get("ratingCount"))
        if score is not None:
            facts["rating"] = score
        if count is not None:
            facts["rating_count"] = int(count)
    return facts


def _offer(offers: Any) -> dict[str, Any]:
    """Price (or its low and high ends), currency and availability of the first offer that states one."""
    for offer in offers if isinstance(offers, list) else [offers]:
        if not isinstance(offer, dict):
            continue
        found: dict[str, Any] = {}
        specification = offer.get("priceSpecification")
        specifications = specification if isinstance(specification, list) else [specification]
        priced = [offer, *(s for s in specifications if isinstance(s, dict))]
        price = next((_number(p.get("price")) for p in priced if _number(p.get("price")) is not None), None)
        if price is not None:
            found["price"] = price
        low, high = _number(offer.get("lowPrice")), _number(offer.get("highPrice"))
        if low is not None:
            found["price_low"] = low
        if high is not None:
            found["price_high"] = high
        currencies = (_string(p.get("priceCurrency")) for p in priced)
        currency = next((c for c in currencies if c), "")
        if currency:
            found["currency"] = currency.upper()
        availability = _string(offer.get("availability"))
        if availability:
            found["availability"] = availability.rstrip("/").rsplit("/", 1)[-1]  # schema.org/InStock
        if found:
            return found
    return {}


def _string(value: Any) -> str:
    """A stated value as text: entities decoded (twice: shops encode ``&amp;#8217;``), spaces squashed."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        return str(value)
    if not isinstance(value, str):
        return ""
    return " ".join(unescape(unescape(value)).split())


def _name(value: Any) -> str:
    """A brand or organisation: its ``name``, or the string itself; the first of a list."""
    if isinstance(value, list):
        value = next((v for v in value if v), None)
    if isinstance(value, dict):
        return _string(value.get("name"))
    return _string(value)


def _number(value: Any) -> float | None:
    """A price or rating as a number: ``"1,299.00"``, ``"1.299,00"``, ``19.99``; None when it is none."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return float(value) if math.isfinite(value) else None
    if isinstance(value, str):
        text = value.strip().replace("\u00a0", "").replace(" ", "")
        if text.count(",") and text.count("."):  # the later one is the decimal point
            decimal_comma = text.rfind(",") > text.rfind(".")  # 1.299,00 against 1,299.00
            text = text.replace(".", "").replace(",", ".") if decimal_comma else text.replace(",", "")
        elif text.count(",") == 1 and len(text.rsplit(",", 1)[1]) != 3:
            text = text.replace(",", ".")  # 12,50 (a decimal comma)
        else:
            text = text.replace(",", "")
        try:
            number = float(text)
        except ValueError:
            return None
        return number if math.isfinite(number) else None  # "NaN" or "inf" states no price
    return None
