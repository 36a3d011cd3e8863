"""Extraction candidates: one page tree, several extractors (trafilatura's modes, readability-lxml)."""

from __future__ import annotations

import copy
import unicodedata
from dataclasses import dataclass
from typing import Any

from .caseless import Caseless
from .held_text import hold_for_trafilatura
from .html_markdown import fragment_to_markdown, parse_fragment
from .markdown_repairs import repaired
from .scripts import split_words
from .tree import LANDMARK_ROLES, LANDMARKS, UNSEEN, link_density, names, squashed_len, visible_text

#: Candidate names, in the order ``direct`` tries them when the chosen one is not confident enough.
TRAFILATURA = "trafilatura"
READABILITY = "readability"
TRAFILATURA_RECALL = "trafilatura-recall"
TRAFILATURA_PRECISION = "trafilatura-precision"
SECTIONS = "sections"  # every content section of the page, boilerplate pruned (landing and service pages)
POSTS = "posts"  # every post of a thread, in order (forums, Q&A pages)
CARDS = "cards"  # every card of a product grid or listing, in order
NOSCRIPT = "noscript"  # the page's copy for readers without scripts (a thread a script app renders)
RUN_ON_CHARS = 2000  # a line of trafilatura's reading this long may be an article run into one line
ARTICLE_KEY_WORDS = 30  # the first words of such a line that must be an article's first words

#: Class or id words of page furniture: navigation, headers, footers, cookie banners, sharing, facets.
_FURNITURE = Caseless(
    r"(?:^|[\s_-])(?:nav|navbar|navigation|menu|menus|sidebar|side-bar|footer|header|masthead|"
    r"breadcrumbs?|cookie|cookies|consent|gdpr|newsletter|subscribe|share|sharing|social|related|"
    r"recommend\w*|promo|advert\w*|ads?|banner|modal|popup|overlay|skip|toolbar|pagination|pager|"
    r"filters?|facets?|widget|search)(?:$|[\s_-])",
)
#: Class or id words of a post's own furniture: the author's card (name, rank, post count, join date,
#: badges, reputation), signature, votes and the post's buttons: on the tune part of WCXB, threads
#: 0.767 → 0.779 F1 without them.
_POST_FURNITURE = Caseless(
    r"(?:^|[\s_-])(?:signature|postprofile|profile|profile-icons|user-?info|user-?details|userextras?|"
    r"usertitle|user-action-time|attribution|votecell|voting|votes?|badgecount|badges?|reputation|"
    r"back2top|back-to-top|post-?menu|post-?buttons|statistics|stats|expand-?link)(?:$|[\s_-])",
)
#: On a question-and-answer page (schema.org ``QAPage``) the remarks under the question and under each
#: answer are not posts: Q&A sites print them small, below the post, and a reader (and WCXB's reference)
#: takes the question and the answers. On the tune part of WCXB, five Stack Exchange threads 0.78 → 0.90.
_QA_REMARKS = Caseless(
    rf"{_POST_FURNITURE.pattern}|(?:^|[\s_-])(?:comments?|comment-copy|comment-body)(?:$|[\s_-])"
)
_FURNITURE_TAGS = (*UNSEEN, *LANDMARKS, "form", "svg", "iframe", "button", "select", "dialog")
_FURNITURE_ROLES = LANDMARK_ROLES | {"search", "dialog"}
#: Elements a role, class or id names (the only ones ``_is_furniture`` can find), in document order.
_NAMED = ".//*[@role or @class or @id]"
WRAPPER_SHARE = 0.5  # an element named like furniture or a product extra but holding this share stays
SECTION_LINK_DENSITY = 0.6  # blocks whose text is more link text than this are menus, not content


@dataclass
class Candidate:
    """One extractor's reading of a page."""

    name: str
    markdown: str
    link_density: float = 0.0  # share of the candidate's text that was link text in the page

    @property
    def chars(self) -> int:
        return len(self.markdown)


def trafilatura_candidate(
    root: Any, url: str | None, mode: str = TRAFILATURA, *, rescue: bool = True
) -> Candidate:
    """trafilatura on the shared tree (it copies it) in one of its modes (see the names above).

    The primary reading runs trafilatura's rescue pass (its jusText/readability comparison) unless
    ``rescue`` is false; the recall and precision readings are quick second opinions without it.
    """
    import trafilatura  # heavy: imported when a page is converted

    held = hold_for_trafilatura(root)
    try:
        found = trafilatura.bare_extraction(
            root,
            url=url or None,
            fast=mode != TRAFILATURA or not rescue,
            favor_recall=mode == TRAFILATURA_RECALL,
            favor_precision=mode == TRAFILATURA_PRECISION,
            with_metadata=False,
            include_formatting=True,
            include_comments=mode == TRAFILATURA,  # a thread's replies are its content
            include_tables=True,
        )
    finally:
        held.release()
    text = getattr(found, "text", None) or "" if found is not None else ""
    text = _articles_reread(repaired(held.given_back(text)), root)
    return Candidate(mode, unicodedata.normalize("NFC", text).strip())


def _articles_reread(text: str, root: Any) -> str:
    """``text`` with each line that is a whole ``<article>`` run into one line replaced by the article
    read block by block.

    trafilatura's last resort (its baseline, when its reading comes out short) takes each outermost
    ``<article>``'s text as one paragraph: a ranking page's whole hero, a news listing's every story,
    read as one line of thousands of characters. Such a line is known by its length and its first
    ``ARTICLE_KEY_WORDS`` words, which are the article's.
    """
    lines = text.split("\n")
    if not any(len(line) >= RUN_ON_CHARS for line in lines):
        return text
    articles = root.xpath("//article[not(ancestor::article)]")
    keys = {_first_words(visible_text(article)): article for article in articles}
    for i, line in enumerate(lines):
        article = keys.get(_first_words(line)) if len(line) >= RUN_ON_CHARS else None
        if article is not None:
            lines[i] = fragment_to_markdown(_pruned(article, None)) or line
    return "\n".join(lines)


def _first_words(text: str) -> tuple[str, ...]:
    return tuple(word.lower() for word in split_words(text)[:ARTICLE_KEY_WORDS])


def sections_candidate(root: Any, *, at_least: float = 0) -> Candidate:
    """The page's main region (``<main>`` or the body) with its furniture pruned, every section kept;
    empty when the pruned region cannot hold ``at_least`` words (a candidate too short to repair the
    reading: not worth rendering).

    Trafilatura keeps the densest block of prose; a landing or service page spreads its content over
    many sections (hero, features, pricing, FAQ), which this candidate keeps. Pruned: navigation,
    header, footer, aside, forms, elements whose role, class or id names furniture, and link lists —
    but not a block holding most of the region, however linked: a page of cards, each a link, is the
    page's content, and its menus go from inside it.
    """
    body = root.find("body")
    body = copy.deepcopy(body if body is not None else root)
    for el in list(body.iter(*_FURNITURE_TAGS)):
        if el.getparent() is not None:
            el.drop_tree()
    total = len(body.text_content())
    for el in body.xpath(_NAMED):
        if el.getparent() is None or el.tag in ("main", "article"):
            continue
        # A wrapper holding most of the page is a layout class ("has-sidebar"), not furniture.
        if _is_furniture(el) and len(el.text_content()) < WRAPPER_SHARE * total:
            el.drop_tree()
    mains = body.xpath(".//main|.//*[@role='main']")
    region = mains[0] if mains and squashed_len(mains[0].text_content()) > 200 else body
    gone: set[Any] = set()  # link lists dropped; what lies inside them needs no look
    whole = squashed_len(region.text_content())
    linked = {a: squashed_len(a.text_content()) for a in region.iter("a")}  # each link's text, read once
    linking = {holder for a in linked for holder in a.iterancestors()}  # only these can be dense
    for el in [e for e in region.iter("ul", "ol", "div", "p", "section", "table") if e in linking]:
        if el.getparent() is None or (gone and any(a in gone for a in el.iterancestors())):
            continue
        # A block holding most of the region is the page's content, dense or not: its menus go inside it.
        size = squashed_len(el.text_content())
        if link_density(el, linked, chars=size) > SECTION_LINK_DENSITY and size < WRAPPER_SHARE * whole:
            el.drop_tree()
            gone.add(el)
    if at_least and _most_words(region) < at_least:
        return Candidate(SECTIONS, "")
    text = unicodedata.normalize("NFC", fragment_to_markdown(region))
    return Candidate(SECTIONS, text, link_density(region))


def _most_words(el: Any) -> int:
    """The most words ``el``'s Markdown can hold: its text nodes' words, and the number Markdown gives
    each item of an ordered list (on the 2,391 fragments of WCXB's tune part and Readability's pages
    rendered, never fewer than the Markdown's words)."""
    return len(split_words(" ".join(el.itertext()))) + len(el.xpath(".//ol/li"))


def readability_candidate(root: Any) -> Candidate:
    """readability-lxml's main-content block of the shared tree (it cleans a copy), as Markdown."""
    from readability import Document as Readable  # heavy: imported when a page is converted
    from readability.readability import Unparseable

    try:
        summary = Readable(root).summary(html_partial=True)
    except (Unparseable, ValueError, TypeError):
        return Candidate(READABILITY, "")
    fragment = parse_fragment(summary)
    if fragment is None:
        return Candidate(READABILITY, "")
    text = unicodedata.normalize("NFC", fragment_to_markdown(fragment))
    return Candidate(READABILITY, text, link_density(fragment))


def _is_furniture(el: Any, extra: Caseless | None = None) -> bool:
    """A role, class or id that names navigation, a header, footer, banner, sharing bar or facet
    (or the ``extra`` furniture of one kind of candidate)."""
    hint = names(el)
    if (el.get("role") or "").lower() in _FURNITURE_ROLES:
        return True
    if not hint.strip():
        return False
    return bool(_FURNITURE.search(hint) or (extra is not None and extra.search(hint)))


def noscript_candidate(root: Any, at_least: int) -> Candidate | None:
    """The page's largest ``<noscript>`` block as Markdown, when it holds ``at_least`` characters.

    Forum software that renders a thread with scripts (Discourse, Flarum) serves the whole thread
    inside ``<noscript>`` for readers and crawlers without them, while the page itself holds the first
    posts or none; extractors drop ``<noscript>`` as furniture.
    """
    body = root.find("body")
    sized = [(len(el.text_content()), el) for el in (body if body is not None else root).iter("noscript")]
    size, biggest = max(sized, key=lambda pair: pair[0], default=(0, None))
    if biggest is None or size < at_least:
        return None
    text = unicodedata.normalize("NFC", fragment_to_markdown(biggest))
    return Candidate(NOSCRIPT, text, link_density(biggest))


def posts_candidate(found: list[Any], *, qa: bool = False) -> Candidate:
    """Every post of a thread: the outermost of the ``found`` post elements, furniture pruned, in order;
    on a question-and-answer page (``qa``) without the comments under the question and the answers.

    Trafilatura and readability keep the densest block, often the first post alone; in a thread the
    replies are the content.
    """
    chosen = set(found)
    outermost = [el for el in found if not any(a in chosen for a in el.iterancestors())]
    return _each_pruned(POSTS, outermost, extra=_QA_REMARKS if qa else _POST_FURNITURE)


def cards_candidate(cards: list[Any]) -> Candidate:
    """Every card of a grid or listing (``page_type.card_group``), furniture pruned, in order.

    A reading of a product grid often keeps the page's header text and misses the cards it is made of.
    Cards that are a table's rows (a list of laureates, a ranking) stay one table, under the table's
    header rows.
    """
    if cards and all(card.tag == "tr" for card in cards):
        return _each_pruned(CARDS, cards, head=_header_rows(cards[0]))
    return _each_pruned(CARDS, cards)


def _header_rows(first: Any) -> list[Any]:
    """The rows of ``first``'s table before it that are headings (``<th>`` cells only)."""
    table = next(first.iterancestors("table"), None)
    if table is None:
        return []
    head: list[Any] = []
    for row in table.iter("tr"):
        if row is first:
            return head
        cells = [c for c in row if isinstance(c.tag, str) and c.tag in ("td", "th")]
        if cells and all(c.tag == "th" for c in cells):
            head.append(row)
    return []


def _each_pruned(
    name: str, elements: list[Any], extra: Caseless | None = None, head: list[Any] | None = None
) -> Candidate:
    """Each of ``elements`` (two or more, none inside another) as Markdown, furniture (and ``extra``
    furniture) pruned, in order; with ``head`` (table rows, and so are ``elements``), one table."""
    if len(elements) < 2:
        return Candidate(name, "")
    parts = []
    pruned = [_pruned(element, extra) for element in elements]
    if head is not None:
        table = elements[0].makeelement("table", {})
        table.extend([copy.deepcopy(row) for row in head] + pruned)
        wrapper = elements[0].makeelement("div", {})
        wrapper.append(table)
        parts.append(fragment_to_markdown(wrapper))
    else:
        parts.extend(text for text in map(fragment_to_markdown, pruned) if text)
    body = unicodedata.normalize("NFC", "\n\n".join(parts))
    lengths = [squashed_len(p.text_content()) for p in elements]
    linked = sum(squashed_len(a.text_content()) for p in elements for a in p.iter("a"))
    return Candidate(name, body, min(1.0, linked / sum(lengths)) if sum(lengths) else 0.0)


def _pruned(element: Any, extra: Caseless | None) -> Any:
    """A copy of ``element`` without its furniture (and ``extra`` furniture)."""
    element = copy.deepcopy(element)
    for el in list(element.iter(*_FURNITURE_TAGS)):
        if el.getparent() is not None:
            el.drop_tree()
    for el in list(element.iter()):
        if isinstance(el.tag, str) and el.getparent() is not None and _is_furniture(el, extra):
            el.drop_tree()
    return element
