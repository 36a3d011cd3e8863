"""What a product page carries besides the product: reviews, recommendations and the consent banner.

A product page's content is the item — name, price, description, specifications, the rating summary
— and extractors keep the reviews below it as if they were the description (they are the longest
prose on the page). Shops mark each review up as one of a run of sibling elements whose class names
a review, testimonial or feedback; a run of ``REVIEW_ITEMS`` or more goes, and the summary (one
element, not a run) stays. Shops also show other products under it — related items, "customers
also viewed", upsells, recently viewed — in elements whose class or id says so; they go too (product
pages of WCXB's tune part +0.012 F1, its held-out part unchanged). Product pages also keep their
hidden elements (descriptions live in hidden tabs), and with them what a script would open over the
page or take away: the cookie-consent banner (an element whose class or id names a cookie, consent or
GDPR notice), and hidden overlays — a newsletter or sign-up pop-up, a modal, the mini cart, the
currency or country picker, a notification (a hidden element, or a dialog, whose class or id says
so; on the tune part of WCXB, product pages +0.005 F1). A bottom sheet or drawer is not taken for an
overlay: shops show the description in one on phones. A named element that wraps most of the page's
visible text is a wrapper, not an extra, and stays.
"""

from __future__ import annotations

from typing import Any

from .candidates import WRAPPER_SHARE
from .caseless import Caseless
from .tree import is_hidden, names, shown_chars

REVIEW_ITEMS = 2  # sibling elements of one review class from which they are a list of reviews
_REVIEW = Caseless(r"(?<!p)review|testimonial|feedback")  # "preview" is not a review
_CONSENT = Caseless(r"cookie|consent|gdpr")
_OTHER_PRODUCTS = Caseless(
    r"(?<![a-z])(?:related|similar|recommend|up-?sell|cross-?sell|also-?(?:viewed|bought|purchased|like)|"
    r"recently-?viewed)",
)
_EXTRA_NAME = Caseless(f"{_OTHER_PRODUCTS.pattern}|{_CONSENT.pattern}")
_OVERLAY = Caseless(
    r"modal|pop-?up|newsletter|sign-?up|subscri|mini-?cart|cart-|currency|country|locali[sz]|overlay|"
    r"lightbox|toast|notification|announcement",
)
_MAYBE_OVERLAYS = "//*[@hidden or @style or @aria-modal or @role='dialog']"
_REVIEW_ITEMS = "//*[@class][self::div or self::li or self::article or self::section]"
_NAMED = "//*[@class or @id][not(self::html or self::body or self::script or self::style)]"


def drop_product_extras(root: Any) -> int:
    """Remove the review lists, other products, cookie-consent banners and hidden overlays of a product
    page; how many elements went."""
    return _drop_reviews(root) + _drop_named(root) + _drop_overlays(root)


def _drop_reviews(root: Any) -> int:
    """Runs of sibling elements sharing a class that names a review: the reviews, one element each."""
    runs: dict[tuple[Any, str], list[Any]] = {}
    for el in root.xpath(_REVIEW_ITEMS):
        cls = el.get("class") or ""
        parent = el.getparent()
        if parent is not None and _REVIEW.search(cls):
            runs.setdefault((parent, cls), []).append(el)
    doomed = [el for run in runs.values() if len(run) >= REVIEW_ITEMS for el in run]
    return _drop_outermost(doomed)


def _drop_named(root: Any) -> int:
    """Elements whose class or id names other products or a consent notice, unless they hold most of
    the page's visible text."""
    named = [el for el in root.xpath(_NAMED) if _EXTRA_NAME.search(names(el))]
    return _drop_outermost(_not_wrappers(root, named))


def _drop_overlays(root: Any) -> int:
    """Hidden elements and dialogs whose class or id names an overlay (pop-up, modal, mini cart...),
    unless they hold most of the page's visible text."""
    overlays = [
        el
        for el in root.xpath(_MAYBE_OVERLAYS)
        if el.tag not in ("html", "body")
        and (is_hidden(el) or el.get("role") == "dialog" or el.get("aria-modal") == "true")
        and _OVERLAY.search(names(el))
    ]
    return _drop_outermost(_not_wrappers(root, overlays))


def _not_wrappers(root: Any, named: list[Any]) -> list[Any]:
    """``named`` without the elements that hold ``WRAPPER_SHARE`` or more of the page's visible text."""
    if not named:
        return []
    # Shares count the text a reader would see, not the state the page's scripts carry.
    body = root.find("body")
    total = shown_chars(body if body is not None else root)
    return [el for el in named if shown_chars(el) < WRAPPER_SHARE * total]


def _drop_outermost(doomed: list[Any]) -> int:
    """Drop each element of ``doomed`` (document order) that is not inside one already dropped."""
    gone: set[Any] = set()
    for el in doomed:
        if el.getparent() is None or any(a in gone for a in el.iterancestors()):
            continue
        el.drop_tree()
        gone.add(el)
    return len(gone)
