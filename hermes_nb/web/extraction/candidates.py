"""Extraction candidates: one page tree, several extractors (trafilatura's modes, readability-lxml)."""

from __future__ import annotations

import copy
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from .html_markdown import fragment_to_markdown
from .markdown_escapes import ENTITY
from .markdown_repairs import repaired
from .tree import link_density, squashed_len

#: Candidate names, in the order ``direct`` tries them when the chosen one is not confident enough.
TRAFILATURA = "trafilatura"
READABILITY = "readability"
TRAFILATURA_RECALL = "trafilatura-recall"
TRAFILATURA_PRECISION = "trafilatura-precision"
SECTIONS = "sections"  # every content section of the page, boilerplate pruned (landing and service pages)
POSTS = "posts"  # every post of a thread, in order (forums, Q&A pages)
CARDS = "cards"  # every card of a product grid or listing, in order
NOSCRIPT = "noscript"  # the page's copy for readers without scripts (a thread a script app renders)

#: Class or id words of page furniture: navigation, headers, footers, cookie banners, sharing, facets.
_FURNITURE = re.compile(
    r"(?:^|[\s_-])(?:nav|navbar|navigation|menu|menus|sidebar|side-bar|footer|header|masthead|"
    r"breadcrumbs?|cookie|cookies|consent|gdpr|newsletter|subscribe|share|sharing|social|related|"
    r"recommend\w*|promo|advert\w*|ads?|banner|modal|popup|overlay|skip|toolbar|pagination|pager|"
    r"filters?|facets?|widget|search)(?:$|[\s_-])",
    re.I,
)
#: Class or id words of a post's own furniture: the author's card (name, rank, post count, join date,
#: badges, reputation), signature, votes and the post's buttons: on the tune part of WCXB, threads
#: 0.767 → 0.779 F1 without them.
_POST_FURNITURE = re.compile(
    r"(?:^|[\s_-])(?:signature|postprofile|profile|profile-icons|user-?info|user-?details|userextras?|"
    r"usertitle|user-action-time|attribution|votecell|voting|votes?|badgecount|badges?|reputation|"
    r"back2top|back-to-top|post-?menu|post-?buttons|statistics|stats|expand-?link)(?:$|[\s_-])",
    re.I,
)
#: On a question-and-answer page (schema.org ``QAPage``) the remarks under the question and under each
#: answer are not posts: Q&A sites print them small, below the post, and a reader (and WCXB's reference)
#: takes the question and the answers. On the tune part of WCXB, five Stack Exchange threads 0.78 → 0.90.
_QA_REMARKS = re.compile(
    rf"{_POST_FURNITURE.pattern}|(?:^|[\s_-])(?:comments?|comment-copy|comment-body)(?:$|[\s_-])", re.I
)
_FURNITURE_TAGS = ("script", "style", "noscript", "template", "nav", "header", "footer", "aside", "form",
                   "svg", "iframe", "button", "select", "dialog")
_FURNITURE_ROLES = {"navigation", "banner", "contentinfo", "complementary", "search", "dialog", "menu",
                    "menubar"}
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

    held = _hold_spaces_after_marks(root)
    mangled = _hold_mangled(root)  # after: undone first, the marks' tails as they were held
    held += mangled
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
        for el, attr, value in reversed(held):
            setattr(el, attr, value)
    text = getattr(found, "text", None) or "" if found is not None else ""
    text = text.replace(_SPACE_KEEPER, "")
    text = repaired(_given_back(text) if mangled else text)
    return Candidate(mode, unicodedata.normalize("NFC", text).strip())


#: trafilatura's Markdown drops the space after a bold or italic element that opens a block
#: (``<li><b>Fast</b> setup</li>`` reads ``**Fast**setup``, one word): it trims the tail's leading space.
#: A character it deletes (a private-use one) put before that space keeps it from the trim.
_SPACE_KEEPER = "\ue000"
_MARKS = ("b", "strong", "em", "i", "u", "code", "kbd", "sub", "sup", "del", "s", "mark")


def _hold_spaces_after_marks(root: Any) -> list[tuple[Any, str, str]]:
    """Put ``_SPACE_KEEPER`` before the space after each mark element; the tails it changed, to restore."""
    held = []
    for el in root.iter(*_MARKS):
        tail = el.tail
        if tail and tail[0].isspace():
            held.append((el, "tail", tail))
            el.tail = _SPACE_KEEPER + tail
    return held


#: Text trafilatura mangles, held while it reads the page: each character becomes a stand-in (a
#: printable one, which its filters keep and count as they would the character), given back after.
#:
#: - trafilatura unescapes its finished text once more (``html.unescape``), after the parser already
#:   had: a page about escaping that shows ``&lt;blink&gt;`` read ``<blink>``, and "AT&T &copy" read
#:   "AT&T ©". So each ``&`` is held; one that opens a character reference in prose also gets the
#:   backslash Markdown needs to show it (``\&lt;``), while code shows its text as it is.
#: - its search for ``\(…\)`` and ``\[…\]`` formulas takes time in the square of a text's length
#:   when the openers are not closed (100 KB of them took 15 s). A text with more than
#:   ``UNCLOSED_MATH`` unclosed openers has its backslashes held, and given back escaped.
_AMPERSAND = "\u2bd2"  # GROUP MARK: a symbol no page's text is expected to hold (checked)
_BACKSLASH = "\u2bd1"  # UNCERTAINTY SIGN: likewise
UNCLOSED_MATH = 50


def _hold_mangled(root: Any) -> list[tuple[Any, str, str]]:
    """Put the stand-ins in the page's text for trafilatura's reading; the texts changed, to restore."""
    found = root.xpath(_MANGLED)  # one pass over the page's text: what to hold, and any stand-in
    if any(_AMPERSAND in text or _BACKSLASH in text for text in found):
        return []  # a page that uses a stand-in itself
    held = []
    for text in found:
        el = text.getparent()
        attr = "tail" if text.is_tail else "text"
        value = written = getattr(el, attr)
        holder = el.getparent() if text.is_tail else el
        in_code = holder is not None and any(
            _tag(a) in _CODE_TAGS for a in (holder, *holder.iterancestors())
        )
        if not in_code and _unclosed_math(written):  # first: the backslashes below are Markdown's
            written = written.replace("\\", _BACKSLASH)
        if "&" in written:
            written = (written if in_code else ENTITY.sub(r"\\&", written)).replace("&", _AMPERSAND)
        if written != value:
            held.append((el, attr, value))
            setattr(el, attr, written)
    return held


def _unclosed_math(text: str) -> bool:
    return (text.count("\\(") - text.count("\\)") > UNCLOSED_MATH
            or text.count("\\[") - text.count("\\]") > UNCLOSED_MATH)


def _given_back(text: str) -> str:
    """trafilatura's reading with the held characters back (a held backslash escaped for Markdown)."""
    return text.replace(_AMPERSAND, "&").replace(_BACKSLASH, "\\\\")


_MANGLED = (
    f"//text()[contains(., '&') or contains(., '\\(') or contains(., '\\[') or contains(., '{_AMPERSAND}')"
    f" or contains(., '{_BACKSLASH}')][not(parent::script or parent::style)]"
)
_CODE_TAGS = frozenset(("pre", "code", "kbd", "samp", "tt"))


def _tag(el: Any) -> str:
    return el.tag if isinstance(el.tag, str) else ""


def sections_candidate(root: Any) -> Candidate:
    """The page's main region (``<main>`` or the body) with its furniture pruned, every section kept.

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
    for el in list(body.iter()):
        if not isinstance(el.tag, str) or el.getparent() is None or el.tag in ("main", "article"):
            continue
        # A wrapper holding most of the page is a layout class ("has-sidebar"), not furniture.
        if _is_furniture(el) and len(el.text_content()) < WRAPPER_SHARE * total:
            el.drop_tree()
    mains = body.xpath(".//main|.//*[@role='main']")
    region = mains[0] if mains and squashed_len(mains[0].text_content()) > 200 else body
    gone: set[Any] = set()  # link lists dropped; what lies inside them needs no look
    whole = squashed_len(region.text_content())
    for el in list(region.iter("ul", "ol", "div", "p", "section", "table")):
        if el.getparent() is None or (gone and any(a in gone for a in el.iterancestors())):
            continue
        # A block holding most of the region is the page's content, dense or not: its menus go inside it.
        dense = link_density(el) > SECTION_LINK_DENSITY
        if dense and squashed_len(el.text_content()) < WRAPPER_SHARE * whole:
            el.drop_tree()
            gone.add(el)
    text = unicodedata.normalize("NFC", fragment_to_markdown(region))
    return Candidate(SECTIONS, text, link_density(region))


def readability_candidate(root: Any) -> Candidate:
    """readability-lxml's main-content block of the shared tree (it cleans a copy), as Markdown."""
    from readability import Document as Readable  # heavy: imported when a page is converted
    from readability.readability import Unparseable

    try:
        summary = Readable(root).summary(html_partial=True)
    except (Unparseable, ValueError, TypeError):
        return Candidate(READABILITY, "")
    from lxml import html as lxml_html

    try:
        fragment = lxml_html.fragment_fromstring(summary, create_parent="div")
    except (ValueError, TypeError, AssertionError):  # lxml asserts one <body> (a frameset has none)
        return Candidate(READABILITY, "")
    text = unicodedata.normalize("NFC", fragment_to_markdown(fragment))
    return Candidate(READABILITY, text, link_density(fragment))


def _is_furniture(el: Any, extra: re.Pattern[str] | None = None) -> bool:
    """A role, class or id that names navigation, a header, footer, banner, sharing bar or facet
    (or the ``extra`` furniture of one kind of candidate)."""
    hint = f"{el.get('class') or ''} {el.get('id') or ''}"
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
    name: str, elements: list[Any], extra: re.Pattern[str] | None = None, head: list[Any] | None = None
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


def _pruned(element: Any, extra: re.Pattern[str] | None) -> Any:
    """A copy of ``element`` without its furniture (and ``extra`` furniture)."""
    element = copy.deepcopy(element)
    for el in list(element.iter(*_FURNITURE_TAGS)):
        if el.getparent() is not None:
            el.drop_tree()
    for el in list(element.iter()):
        if isinstance(el.tag, str) and el.getparent() is not None and _is_furniture(el, extra):
            el.drop_tree()
    return element
