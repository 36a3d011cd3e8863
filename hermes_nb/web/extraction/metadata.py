"""The page metadata we keep (title, author, date, language, site name, canonical URL, description).

Read straight from the parsed tree: ``<meta>`` properties (Dublin Core, Open Graph, Twitter,
Parse.ly), JSON-LD, ``<link rel=canonical>``, ``<html lang>`` and ``<time>`` — no date guessing over
the whole text, which is what makes trafilatura's own metadata pass expensive.
"""

from __future__ import annotations

import html as html_lib
import json
import re
from collections import deque
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote, urljoin

from .byline import byline
from .headline import headline
from .product_facts import product_facts
from .published_date import iso_date
from .tree import squash

# Preference order per field; the first non-empty wins (keys are lower-cased meta name/property).
_TITLE = (
    "dc:title",
    "dcterm:title",
    "og:title",
    "weibo:article:title",
    "weibo:webpage:title",
    "title",
    "twitter:title",
    "parsely-title",
)
_AUTHOR = ("dc:creator", "dcterm:creator", "author", "parsely-author", "article:author", "byl")
_DESCRIPTION = (
    "dc:description",
    "dcterm:description",
    "og:description",
    "weibo:article:description",
    "weibo:webpage:description",
    "description",
    "twitter:description",
)
_DATE = (
    "article:published_time",
    "parsely-pub-date",
    "dc:date",
    "dcterm:date",
    "date",
    "pubdate",
    "publishdate",
    "article:modified_time",
    "og:updated_time",
)
_SITE = ("og:site_name", "application-name")
#: Markup inside a structured-data string (shops put their HTML description in JSON-LD as it is).
STRUCTURED_MARKUP = re.compile(r"</?[A-Za-z][^<>]*>|<!--.*?-->", re.S)
_PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
_ARTICLE_TYPES = (
    "Article",
    "NewsArticle",
    "BlogPosting",
    "Report",
    "ScholarlyArticle",
    "TechArticle",
    "WebPage",
    "SocialMediaPosting",
    "DiscussionForumPosting",
    "Product",
    "QAPage",
)


_PRODUCT_TYPES = ("Product", "ProductGroup", "IndividualProduct", "ProductModel")


def page_metadata(root: Any, url: str | None) -> dict[str, Any]:
    """Metadata fields found in the page (absent keys: not found); ``json_ld_types`` for page typing,
    ``json_ld_faq`` (every ``FAQPage`` object) for ``declared_faq``: each script is parsed once."""
    metas = _meta_values(root)
    ld = _json_ld(root)
    out: dict[str, Any] = {}
    site = _first(metas, _SITE) or _ld_person(ld.get("publisher"))
    title = _first(metas, _TITLE) or structured_text(ld.get("headline") or ld.get("name")) or _title_tag(root)
    if title:
        out["title"] = headline(title, site=site, url=url, headings=_headings(root))
    author = _first(metas, _AUTHOR, reject_urls=True) or _ld_person(ld.get("author")) or byline(root)
    if author:
        out["author"] = author
    date = next(filter(None, map(iso_date, _declared_dates(metas, ld, root))), "")
    if date:
        out["date"] = date
    lang = (
        root.get("lang")
        or root.get("xml:lang")
        or metas.get("content-language")
        or metas.get("og:locale")
        or ""
    )
    if lang.strip():
        out["language"] = lang.strip().replace("_", "-")
    if site:
        out["sitename"] = site
    description = _first(metas, _DESCRIPTION) or structured_text(ld.get("description"))
    if description:
        out["description"] = description
    canonical = _canonical(root) or metas.get("og:url") or ""
    if canonical:
        out["canonical_url"] = urljoin(url or "", canonical)
    if ld.get("@types"):
        out["json_ld_types"] = ld["@types"]
    if ld.get("@faq"):
        out["json_ld_faq"] = ld["@faq"]
    product = ld.get("@product") or {}
    facts = product_facts(product) if product else {}
    if facts:
        out["product"] = facts
    if structured_text(product.get("description")):
        out["json_ld_product"] = {
            "name": structured_text(product.get("name")),
            "description": structured_text(product["description"]),
        }
    if metas.get("og:type"):
        out["og_type"] = metas["og:type"]
    if metas.get("generator"):
        out["generator"] = metas["generator"]
    return out


def _meta_values(root: Any) -> dict[str, str]:
    """``{lower-cased key: content}``; a ``property`` wins over a ``name`` with the same key."""
    found: dict[str, str] = {}
    metas = [m for m in root.iter("meta") if (m.get("content") or "").strip()]
    for attrs in (("property",), ("name", "http-equiv", "itemprop")):
        for meta in metas:
            keys = " ".join(meta.get(a) or "" for a in attrs)
            for key in keys.lower().split():  # properties may be space-separated lists
                found.setdefault(key.replace(".", ":"), squash(html_lib.unescape(meta.get("content"))))
    return found


def _first(metas: dict[str, str], keys: tuple[str, ...], *, reject_urls: bool = False) -> str:
    for key in keys:
        value = metas.get(key, "")
        if value and not (reject_urls and re.match(r"https?://", value)):
            return value
    return ""


def _headings(root: Any) -> Iterator[str]:
    """The text of each of the page's ``<h1>``, in document order."""
    return (squash(h1.text_content()) for h1 in root.iter("h1"))


def _title_tag(root: Any) -> str:
    for title in root.iter("title"):
        text = squash(title.text_content())
        if text:
            return text
    return ""


def _declared_dates(metas: dict[str, str], ld: dict[str, Any], root: Any) -> Iterator[str]:
    """The dates the page declares, in order of preference: meta properties, JSON-LD, ``<time pubdate>``."""
    yield from (metas.get(key, "") for key in _DATE)
    yield structured_text(ld.get("datePublished"))
    yield _time_tag(root)


def _time_tag(root: Any) -> str:
    for time in root.iter("time"):
        if time.get("datetime") and (
            time.get("pubdate") is not None or "publish" in (time.get("class") or "")
        ):
            return str(time.get("datetime")).strip()
    return ""


def _canonical(root: Any) -> str:
    for link in root.iter("link"):
        if "canonical" in (link.get("rel") or "").lower().split() and link.get("href"):
            return str(link.get("href")).strip()
    return ""


def _json_ld(root: Any) -> dict[str, Any]:
    """The first article-like JSON-LD object (``@types``: every type seen; ``@product``: the first
    product; ``@faq``: every ``FAQPage``, wherever it is nested), or ``{}``."""
    types: list[str] = []
    best: dict[str, Any] = {}
    product: dict[str, Any] = {}
    faq: list[dict[str, Any]] = []
    for script in root.iter("script"):
        if (script.get("type") or "").lower() != "application/ld+json" or not script.text:
            continue
        try:
            data = json.loads(script.text)
        except ValueError:
            continue
        if "FAQPage" in script.text:
            faq.extend(_faq_pages(data))
        stack = [data]
        while stack:
            item = stack.pop()
            if isinstance(item, list):
                stack.extend(item)
            elif isinstance(item, dict):
                kinds = ld_types(item)
                types.extend(kinds)
                if not best and any(k in _ARTICLE_TYPES for k in kinds):
                    best = item
                if not product and any(k in _PRODUCT_TYPES for k in kinds):
                    product = item
                stack.extend(v for v in item.get("@graph", []) if isinstance(v, dict))
    if product:
        best = dict(best, **{"@product": product})
    if faq:
        best = dict(best, **{"@faq": faq})
    return dict(best, **{"@types": types}) if types else best


def _faq_pages(data: Any) -> list[dict[str, Any]]:
    """Every ``FAQPage`` object in one script's data, in reading order (breadth first), at any depth:
    a page often nests its FAQ in a ``WebPage``'s ``mainEntity`` rather than in ``@graph``."""
    found = []
    queue = deque([data])
    while queue:
        item = queue.popleft()
        if isinstance(item, list):
            queue.extend(item)
        elif isinstance(item, dict):
            if "FAQPage" in ld_types(item):
                found.append(item)
            queue.extend(v for v in item.values() if isinstance(v, (list, dict)))
    return found


def ld_types(item: dict[str, Any]) -> list[str]:
    """The names a JSON-LD object gives as its ``@type`` (one name or a list of them)."""
    kinds = item.get("@type")
    return [k for k in (kinds if isinstance(kinds, list) else [kinds]) if isinstance(k, str)]


def structured_text(value: Any) -> str:
    """A structured-data string as plain text: entities decoded, markup taken out, and a string sent
    URL-encoded ("An%20elegant%20sofa", no spaces at all) decoded."""
    if not isinstance(value, str):
        return ""
    text = html_lib.unescape(value)
    if " " not in text.strip() and len(_PERCENT.findall(text)) >= 2:
        text = unquote(text)
    return squash(STRUCTURED_MARKUP.sub(" ", text))


def _ld_person(value: Any) -> str:
    if isinstance(value, list):
        names = [_ld_person(v) for v in value]
        return ", ".join(n for n in names if n)
    if isinstance(value, dict):
        return structured_text(value.get("name"))
    return structured_text(value)
