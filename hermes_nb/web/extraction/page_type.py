"""What kind of page a parsed tree is, from general signals only (no site is named anywhere here).

Types: article, documentation, forum, product, collection (a product grid), listing (repeated cards
or links: blog indexes, search results), service (a landing page of sections), other. The evidence,
strongest first: schema.org JSON-LD ``@type``, Open Graph ``og:type``, the URL's shape, then the
markup — repeated post containers with author/date, repeated sibling cards, prices, code blocks,
``<section>`` count and link density. ``classify`` runs before extraction, so the extractor can use
the type; it answers ``None`` when nothing is decisive, and ``page_type`` then falls back on the
extracted text's structure (prose share, link density).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any
from urllib.parse import urlsplit

from .caseless import Caseless
from .scripts import word_count
from .tree import LANDMARK_ROLES, LANDMARKS, names, visible_text

POSTS = 5  # repeated post-like containers that make an untyped page a thread
CARDS = 6  # repeated sibling cards (same tag and class, each with a link and some text) for a listing
PRICES = 4  # price-like elements from which a page of cards is a product grid
CARD_PARENT_SCAN = 3000  # elements of CARDS children or more looked at for a group of cards
POST_SCAN = 4000  # named blocks looked at for posts
PRICE_SCAN = 400  # price elements looked at for one outside the cards (a grid's are all inside)
PAGE_TYPES = ("article", "documentation", "listing", "forum", "product", "other", "collection", "service")
_DOCS_URL = re.compile(
    r"/(?:docs?|documentation|reference|api|manual|guide|guides|tutorial|howto|man|learn|library|sdk)"
    r"(?:/|$|\.)|^https?://(?:docs|developer|developers|devdocs|wiki|learn|api)\.",
    re.I,
)
_DOCS_GENERATOR = re.compile(
    r"sphinx|mkdocs|docusaurus|hugo|jekyll|gitbook|readthedocs|vitepress|doxygen|nextra|starlight|mintlify",
    re.I,
)
_FORUM_URL = re.compile(
    r"/(?:forums?|threads?|topics?|t|questions|discussions?|comments|boards?|community|d|talk)/"
    r"|showthread|viewtopic|/topic[-_]|[?&](?:t|topic|threadid)=",
    re.I,
)
_FORUM_HOST = re.compile(r"^(?:forums?|community|discuss|discussions?|answers|board|boards)\.", re.I)
_PRODUCT_URL = re.compile(
    r"/(?:products?|p|dp|itm|item|items|sku|pd|ip|app|listing)/[^/]+|/product[-_]", re.I
)
_COLLECTION_URL = re.compile(
    r"/(?:collections?|categor(?:y|ies)|c|shop|store|catalog|catalogue|department|browse|brands?|"
    r"sale|deals|s)(?:/|$|\?)|[?&](?:category|cat|q)=",
    re.I,
)
_LISTING_URL = re.compile(
    r"/(?:category|categories|tags?|lists?|sections?|archives?)(?:/|$)|/list[-_]of[-_]", re.I
)
_ARTICLE_URL = re.compile(
    r"/(?:19|20)\d\d/(?:\d\d?/)?|/(?:news|blog|blogs|posts?|articles?|stories)/[^/]+", re.I
)
_POST_CLASS = Caseless(
    r"(?:^|[\s_-])(?:post|comment|reply|message|answer|topic-post|postbody|post-body|forum-post|"
    r"cooked|messagecontent|bbwrapper)(?:$|[\s_-])",
)
_SIGNED = (
    "boolean(.//time or .//*[contains(@class, 'author') or contains(@class, 'user')"
    " or contains(@class, 'date') or contains(@class, 'poster') or contains(@class, 'username')"
    " or contains(@itemprop, 'author')])"
)
_PRICE = re.compile(r"(?:[$€£¥₹]\s?\d[\d,.]*|\d[\d,.]*\s?(?:€|EUR|USD|GBP|kr|zł|CHF))")
_PRICE_ELEMENTS = "//*[@itemprop='price' or contains(@class, 'price') or contains(@class, 'Price')]"
_PRICED = f"boolean(.{_PRICE_ELEMENTS})"
_ARTICLE_LD = {"Article", "NewsArticle", "BlogPosting", "Report", "ScholarlyArticle", "TechArticle", "Recipe",
               "AnalysisNewsArticle", "OpinionNewsArticle", "ReportageNewsArticle", "LiveBlogPosting"}
_FORUM_LD = {"DiscussionForumPosting", "QAPage", "Question", "SocialMediaPosting"}
#: Not ``SoftwareApplication``: SaaS landing pages describe themselves so as often as apps' store pages do.
_PRODUCT_LD = {"Product", "ProductGroup", "IndividualProduct", "ProductModel", "Book", "Vehicle", "Car"}
_COLLECTION_LD = {"CollectionPage", "OfferCatalog", "SearchResultsPage"}
_SERVICE_LD = {"Service", "ProfessionalService", "LocalBusiness", "FAQPage", "AboutPage", "ContactPage"}
_DOCS_LD = {"TechArticle", "APIReference", "HowTo"}


def classify(root: Any, url: str, meta: dict[str, Any]) -> str | None:
    """The page's type from structure alone (before extraction), or ``None`` when nothing decides."""
    types = set(meta.get("json_ld_types") or [])
    og = str(meta.get("og_type") or "").lower()
    parts = urlsplit(url or "")
    path = parts.path or "/"
    full = f"{parts.scheme}://{parts.netloc}{path}{'?' + parts.query if parts.query else ''}"
    forum_url = bool(_FORUM_URL.search(full) or _FORUM_HOST.match(parts.netloc))
    # og:type "article" is many a CMS's default for every page: it decides only where the page's own
    # JSON-LD does not call it a plain WebPage (tune part of WCXB: service pages 0.841 → 0.846).
    article = bool(types & _ARTICLE_LD) or (og == "article" and "WebPage" not in types)
    if types & _FORUM_LD:
        return "forum"
    if forum_url or not article:  # posts counted only where they decide: not an article's comments
        posts = _post_count(root)
        if (posts >= POSTS and forum_url) or (posts >= 2 * POSTS and not article):
            return "forum"
    if _DOCS_URL.search(full) or _DOCS_GENERATOR.search(str(meta.get("generator") or "")):
        return "documentation"
    best = card_group(root)
    cards, priced = len(best), sum(1 for c in best if _is_priced(c))
    # A product-shaped URL makes a product of a page that shows its own price, or of one with few cards
    # that does not declare itself an article: newsletter platforms publish their posts at "/p/…"
    # (tune part of WCXB: 5 posts typed product read as articles, +0.003 to +0.008 each).
    if types & _PRODUCT_LD or og.startswith("product") or og.endswith(":item") or (
        _PRODUCT_URL.search(path) and ((cards < CARDS and not article) or _own_price(root, best))
    ):
        if cards >= CARDS and priced >= PRICES and types & _COLLECTION_LD:
            return "collection"
        # Open Graph's "a group of products" at a collection's URL: a shop's category page, not an item
        # with variants (tune part of WCXB: a wallet collection 0.30 -> 0.75, a beard-oil range +0.08).
        if og == "product.group" and _COLLECTION_URL.search(full):
            return "collection"
        return "product"
    if types & _COLLECTION_LD or "ItemList" in types and priced >= PRICES:
        return "collection" if priced >= PRICES or _COLLECTION_URL.search(full) else "listing"
    if cards >= CARDS and priced >= PRICES:
        return "collection"
    if cards >= CARDS and _LISTING_URL.search(path) and not _ARTICLE_URL.search(path):
        return "listing"  # a list, category, tag, section or archive page of cards, even marked an article
    if article or _ARTICLE_URL.search(path):
        return "documentation" if types & _DOCS_LD and len(root.xpath("//pre")) >= 2 else "article"
    if len(root.xpath("//pre")) >= 3:
        return "documentation"
    if cards >= CARDS and _COLLECTION_URL.search(full):
        return "listing"
    if types & _SERVICE_LD or len(root.xpath("//section")) >= 4 and path.count("/") <= 2:
        return "service"
    return None


def page_type(root: Any, guess: str | None, prose: float, link_density: float) -> str:
    """One of ``PAGE_TYPES``: ``guess`` (what ``classify`` said) when it decided, else from the
    extracted text (its ``prose`` share and ``link_density``); ``classify`` is not run twice."""
    if guess is not None:
        return guess
    if _post_count(root) >= POSTS:
        return "forum"
    if prose >= 0.5:
        return "article"
    if link_density >= 0.4 or prose < 0.2:
        return "listing"
    return "other"


def _post_count(root: Any) -> int:
    return len(post_elements(root, limit=2 * POSTS))


def post_elements(root: Any, limit: int = 0) -> list[Any]:
    """Posts: containers whose class or id names a post, comment, reply or answer and that hold an
    author or a date (a ``<time>``, or a class naming the author, user or date); at most ``limit``."""
    found = []
    named = 0
    for el in root.iter("div", "article", "li", "section"):  # lxml's walk: faster than an XPath
        if el.get("class") is None and el.get("id") is None:
            continue
        named += 1
        if named > POST_SCAN:
            break
        if _POST_CLASS.search(names(el)) and el.xpath(_SIGNED):
            found.append(el)
            if limit and len(found) >= limit:
                break
    return found


def card_group(root: Any, *, outside_furniture: bool = False) -> list[Any]:
    """The largest group of repeated sibling cards (same tag and class, each with a link and text).

    With ``outside_furniture`` (the cards a reading is given), none in the page's header, footer,
    navigation or sidebars. ``classify`` counts those too: a shop grid its scripts fill still has a
    page of cards' shape, and leaving them out there retyped eleven WCXB pages, three articles as grids
    (the article's own round-up of priced products became the largest group).
    """
    best: list[Any] = []
    parents = 0
    for parent in root.iter(*_CARD_PARENTS):  # lxml's walk: faster than an XPath
        if len(parent) < CARDS:  # children of every kind: never fewer than the elements among them
            continue
        kids = [k for k in parent if isinstance(k.tag, str)]
        if len(kids) < CARDS:
            continue
        if outside_furniture and _in_page_furniture(parent):
            continue
        parents += 1
        if parents > CARD_PARENT_SCAN:
            break
        groups: Counter[tuple[str, str]] = Counter()
        for kid in kids:
            groups[_card_kind(kid)] += 1
        (key, n), = groups.most_common(1)
        if n < CARDS or n <= len(best):
            continue
        linked = [k for k in kids if _card_kind(k) == key and k.find(".//a") is not None]
        if len(linked) < CARDS or len(linked) <= len(best):  # too few even before their words are read
            continue
        # Words counted across the card's blocks: "<div>4.</div><div>Claude</div>" is two, not one.
        with_link = [c for c in linked if word_count(visible_text(c)) >= 3]
        if len(with_link) >= CARDS and len(with_link) > len(best):
            best = with_link
    return best


def _in_page_furniture(parent: Any) -> bool:
    """True when ``parent`` is, or is inside, the page's header, footer, navigation or a sidebar
    (by tag or ARIA role): its repeated children are link columns and menu entries, not cards."""
    if parent.get("role") in LANDMARK_ROLES:
        return True
    return any(a.tag in LANDMARKS or a.get("role") in LANDMARK_ROLES for a in parent.iterancestors())


def _card_kind(el: Any) -> tuple[str, str]:
    """What makes sibling elements cards of one group: their tag and first class."""
    return el.tag, (el.get("class") or "").split(" ")[0]


def _own_price(root: Any, cards: list[Any]) -> bool:
    """True when the page marks up a price outside its repeated cards: the price of the item it sells.

    A product page with carousels of recommendations has as many cards as a grid; the grid's prices
    are all in its cards, and an article or landing page at a product-shaped URL shows none.
    """
    inside = set(cards)
    for el in root.xpath(_PRICE_ELEMENTS)[:PRICE_SCAN]:
        if el not in inside and not any(a in inside for a in el.iterancestors()):
            return True
    return False


_CARD_PARENTS = ("ul", "ol", "div", "section", "tbody")


def _is_priced(card: Any) -> bool:
    if card.xpath(_PRICED):
        return True
    return bool(_PRICE.search(card.text_content()[:400]))
