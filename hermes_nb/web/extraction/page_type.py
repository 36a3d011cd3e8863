"""What kind of page a parsed tree looks like: article, documentation, listing, forum, product, other."""

from __future__ import annotations

import re
from typing import Any

POSTS = 5  # repeated post-like containers that make an untyped page a thread
PAGE_TYPES = ("article", "documentation", "listing", "forum", "product", "other")
_DOCS_URL = re.compile(
    r"/(?:docs?|documentation|reference|api|manual|guide|guides|tutorial|howto|man)(?:/|$|\.)|"
    r"^https?://(?:docs|developer|developers|devdocs|wiki)\.",
    re.I,
)
_DOCS_GENERATOR = re.compile(
    r"sphinx|mkdocs|docusaurus|hugo|jekyll|gitbook|readthedocs|vitepress|doxygen", re.I
)
_FORUM_URL = re.compile(r"/(?:forums?|threads?|topics?|t|questions|discussions?|comments|boards?)/", re.I)
_POST_CLASS = re.compile(r"\b(?:post|comment|reply|message|answer)(?:[-_ ]?(?:body|content|text))?\b", re.I)
_ARTICLE_LD = {"Article", "NewsArticle", "BlogPosting", "Report", "ScholarlyArticle", "SocialMediaPosting"}
_FORUM_LD = {"DiscussionForumPosting", "QAPage", "Question", "Answer", "Comment"}
_PRODUCT_LD = {"Product", "Offer", "AggregateOffer", "ProductGroup"}


def page_type(root: Any, url: str, meta: dict[str, Any], prose: float, link_density: float) -> str:
    """One of ``PAGE_TYPES`` from structured data, URL, markup and the extracted text's structure."""
    types = set(meta.get("json_ld_types") or [])
    og = str(meta.get("og_type") or "").lower()
    if types & _PRODUCT_LD or og.startswith("product") or root.xpath("boolean(//*[@itemprop='price'])"):
        return "product"
    if types & _FORUM_LD or _FORUM_URL.search(url):
        return "forum"
    if _DOCS_URL.search(url) or _DOCS_GENERATOR.search(str(meta.get("generator") or "")):
        return "documentation"
    code_blocks = len(root.xpath("//pre"))
    if code_blocks >= 3 and not (types & _ARTICLE_LD) and og != "article":
        return "documentation"
    if types & _ARTICLE_LD or og == "article":
        return "article"
    if _post_count(root) >= POSTS:
        return "forum"
    if prose >= 0.5:
        return "article"
    if link_density >= 0.4 or prose < 0.2:
        return "listing"
    return "other"


def _post_count(root: Any) -> int:
    """Repeated post-like containers (class or id naming a post, comment, reply or answer)."""
    seen = 0
    for el in root.xpath("//*[@class or @id][self::div or self::article or self::li or self::section]")[
        :4000
    ]:
        if _POST_CLASS.search(f"{el.get('class') or ''} {el.get('id') or ''}"):
            seen += 1
            if seen >= POSTS:
                break
    return seen
