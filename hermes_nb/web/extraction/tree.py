"""Parse an HTML page once into an lxml tree, drop what a reader never sees, and measure its text."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import urljoin

from .caseless import Caseless
from .scripts import word_count
from .streamed import streamed_segment
from .unclosed import close_unclosed

#: Classes Bootstrap and Tailwind define as ``display: none`` (``d-none``, ``hidden``).
_HIDDEN_CLASS = re.compile(r"(?:^|\s)(?:d-none|hidden)(?:$|\s)")
#: What shows such an element again from some screen width on (``d-md-block``, ``lg:flex``).
_SHOWN_AT_WIDTH = re.compile(r"(?:^|\s)(?:d-(?:sm|md|lg|xl|xxl)-|(?:sm|md|lg|xl|2xl):)\S")
_HIDDEN_STYLE = Caseless(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!important)?\s*(?:;|$)"
)
_SPACE = re.compile(r"\s+")
UNSEEN = ("script", "style", "noscript", "template")  # elements whose text a reader never sees
CODE_TAGS = frozenset(("pre", "code", "kbd", "samp", "tt"))  # elements whose text is code, shown as written
#: Elements a browser lays out as blocks of their own: a value or a field holding one is not inline text.
BLOCK_TAGS = frozenset((
    "address", "article", "aside", "blockquote", "details", "dialog", "div", "dl", "fieldset", "figure",
    "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "nav", "ol", "p",
    "pre", "section", "table", "ul",
))
#: Elements that break a block's text without being blocks themselves: a line break, a rule, a cell.
BREAKS = frozenset(("br", "hr", "td", "th", "tr", "dt", "dd", "figcaption", "caption"))
#: The page's own furniture by landmark: its navigation, header, footer and sidebars, by tag, and by
#: ARIA role (with its menus); what is in them is not the page's text.
LANDMARKS = ("nav", "header", "footer", "aside")
LANDMARK_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "menu", "menubar"})
CURTAIN = 0.6  # a hidden element holding this share of the page's text is a loading curtain, kept
_DISCLOSURE = Caseless(
    r"tabpanel|tab-pane|tab-content|tabs?[-_]panel|accordion|collaps|expand|disclosure|read-?more|"
    r"show-?more|faq|answer|description|details|specification",
)
#: Elements whose text (not their tail) a reader never sees: the head's, and an iframe's own (a browser
#: shows the framed document instead, frames.py).
_UNSEEN_TEXT = frozenset((*UNSEEN, "head", "iframe"))
_UNLINKED_TEXT = _UNSEEN_TEXT | {"a"}  # and the text of links


_parser: Any = None


def parse_html(html: str) -> Any | None:
    """The page as an ``lxml.html`` tree, or ``None`` when lxml cannot make one."""
    import lxml.html  # heavy: only pages that are HTML pay for it

    if "<?xml" in html[:100]:  # lxml refuses str input with an encoding declaration
        html = re.sub(r"^\s*<\?xml[^>]*\?>", "", html, count=1)
    if "\x00" in html:  # a browser ignores NUL in a page's text; libxml2 would print U+FFFD for it
        html = html.replace("\x00", "")
    global _parser
    if _parser is None:
        # Comments and processing instructions dropped while parsing: every extractor skips them anyway.
        _parser = lxml.html.HTMLParser(
            collect_ids=False, default_doctype=False, remove_comments=True, remove_pis=True,
            huge_tree=True,  # read past 256 levels of nesting (nesting.py flattens what is deeper)
        )
        # Every element an ``HtmlElement``, chosen in C: lxml.html's own lookup calls Python for each
        # element the extractors touch (millions a batch) only to pick form-field classes none of them use.
        _parser.set_element_class_lookup(
            lxml.etree.ElementDefaultClassLookup(
                element=lxml.html.HtmlElement,
                comment=lxml.html.HtmlComment,
                pi=lxml.html.HtmlProcessingInstruction,
                entity=lxml.html.HtmlEntity,
            )
        )
    try:
        return lxml.html.document_fromstring(close_unclosed(html), parser=_parser)
    except (ValueError, TypeError, lxml.etree.ParserError):
        return None


def drop_hidden(root: Any, *, keep_disclosures: bool = False) -> int:
    """Remove elements hidden from readers (``hidden``, ``display:none``, ``visibility:hidden``, a
    ``d-none`` or ``hidden`` class not shown again at some width); count.

    The classes: Bootstrap's and Tailwind's for ``display: none``. Threads hide a post's machine date
    so (``<time class="d-none">2019-01-21T21:40:59Z</time>``), and it read as a line of each post; on
    the tune part of WCXB 0.8911 → 0.8914 (12 pages up, threads +0.02 to +0.12; one −0.0006), and
    Readability's pages 0.9617 → 0.9618.

    ``keep_disclosures``: keep hidden content a reader opens with a click — tab panels, accordions,
    collapsed sections, "read more" text (a role or class naming one) — and what sits inside one.
    """
    doomed = [
        el
        for el in hidden_elements(root)
        if not (keep_disclosures and disclosure(el)) and not streamed_segment(el)
    ]
    if keep_disclosures and doomed:
        # A page hidden until its scripts run (a loading curtain round most of its text) is not
        # hidden content: such an element stays. Shares count the text a reader would see, not the
        # state a page's scripts carry (often a hundred times the page's text).
        body = root.find("body")
        total = shown_chars(body if body is not None else root)
        doomed = [el for el in doomed if shown_chars(el) < CURTAIN * total]
    for el in doomed:
        if el.getparent() is not None:
            el.drop_tree()
    return len(doomed)


def document_base(root: Any, url: str) -> str:
    """The address a page's relative links resolve against: its ``<base href>`` (itself resolved
    against ``url``), else ``url``, as a browser resolves them."""
    for base in root.iter("base"):  # the first that has an address (a walk in C)
        href = base.get("href")
        if href is not None:
            return urljoin(url, href.strip())
    return url


def hidden_elements(root: Any) -> list[Any]:
    """The elements below ``root`` (the body excepted) that are themselves hidden (``is_hidden``)."""
    return [el for el in _may_be_hidden(root) if el.tag != "body" and is_hidden(el)]


def _may_be_hidden(root: Any) -> Iterator[Any]:
    """The elements below ``root`` with a ``hidden`` or ``style`` attribute or a class that may hide
    them: one walk of the tree (an XPath that also tests classes walks it at half again the cost)."""
    import lxml.etree

    for el in root.iterdescendants(lxml.etree.Element):
        attrib = el.attrib
        classes = attrib.get("class") or ""
        if "hidden" in attrib or "style" in attrib or "d-none" in classes or "hidden" in classes:
            yield el


def names(el: Any) -> str:
    """``el``'s class and id, space-separated: the words its authors named it by."""
    return f"{el.get('class') or ''} {el.get('id') or ''}"


def is_hidden(el: Any) -> bool:
    """True when ``el`` itself is hidden (``hidden``, ``display:none``, ``visibility:hidden``, or a
    class the common style sheets define so and no class that shows it at some screen width)."""
    if el.get("hidden") is not None or _HIDDEN_STYLE.search(el.get("style") or ""):
        return True
    classes = el.get("class")
    return bool(classes) and bool(_HIDDEN_CLASS.search(classes)) and not _SHOWN_AT_WIDTH.search(classes)


def table_rows(table: Any) -> list[Any]:
    """``table``'s own rows (in its body, head or foot too), not those of a table nested in it."""
    return list(table.xpath("./tr|./*/tr"))


def within(el: Any, tags: frozenset[str]) -> bool:
    """True when ``el`` or one of its ancestors is one of ``tags`` (a walk in C)."""
    return el.tag in tags or next(el.iterancestors(*tags), None) is not None


def texts_outside(root: Any, tags: frozenset[str], *, holding: str = "") -> Iterator[tuple[Any, str, str]]:
    """Each text below ``root`` that no element of ``tags`` holds, as ``(element, "text" or "tail",
    the text)`` to read or set back; with ``holding``, only the texts that contain it (found in C)."""
    query = f"//text()[contains(., '{holding}')]" if holding else "//text()"
    for text in root.xpath(query):
        owner = text.getparent()
        if owner is None:
            continue
        holder = owner if text.is_text else owner.getparent()  # a tail is its parent's text
        if holder is None or within(holder, tags):
            continue
        yield owner, "text" if text.is_text else "tail", str(text)


def shown_chars(el: Any) -> int:
    """Characters of ``el``'s text outside scripts, styles and templates."""
    unseen = sum(len(s.text_content()) for s in el.iter(*UNSEEN))
    return len(el.text_content()) - unseen


def disclosure(el: Any) -> bool:
    """True when ``el`` (or an ancestor within three levels) is a tab panel, accordion or collapsed text."""
    for node in (el, *list(el.iterancestors())[:3]):
        hint = f"{node.get('role') or ''} {names(node)}"
        if _DISCLOSURE.search(hint):
            return True
    return False


def visible_text(root: Any) -> str:
    """Whitespace-squashed text of ``root`` without scripts, styles and the head (``root`` untouched)."""
    if root is None:
        return ""
    return squash(" ".join(_texts(root, _UNSEEN_TEXT)))


def inline_text(el: Any) -> str:
    """Whitespace-squashed text of ``el`` run together as a browser runs inline elements ("<b>S</b>aving"
    is "Saving"), without scripts and styles: for a heading, a button, a paragraph."""
    if next(el.iter(*UNSEEN), None) is not None:
        return visible_text(el)
    return squash(el.text_content())


def unlinked_word_count(root: Any) -> int:
    """Words a reader sees outside links (menus and link lists left out)."""
    if root is None:
        return 0
    return sum(word_count(t) for t in _texts(root, _UNLINKED_TEXT))


def link_density(el: Any, link_chars: Mapping[Any, int] | None = None, *, chars: int | None = None) -> float:
    """Share of ``el``'s text that sits inside links (0 when it has no text); ``link_chars``, the
    squashed length of each link's text, measured once for a caller that asks of many nested blocks,
    and ``chars``, the squashed length of ``el``'s own text, for a caller that measured it."""
    text = squashed_len(el.text_content()) if chars is None else chars
    if not text:
        return 0.0
    if link_chars is None:
        linked = sum(squashed_len(a.text_content()) for a in el.iter("a"))
    else:
        linked = sum(link_chars[a] for a in el.iter("a"))
    return min(1.0, linked / text)


def _texts(root: Any, unseen: frozenset[str]) -> list[str]:
    """The text nodes below ``root`` in document order, leaving out those inside an ``unseen`` element
    (``root`` or one of its ancestors included) but not an unseen element's tail, which follows it.

    What ``.//text()[not(ancestor::script or ...)]`` selects, walked here instead: libxml2 tests each
    text node's every ancestor for each name, several times slower on a page's body.
    """
    if next(root.iterancestors(*unseen), None) is not None:
        return []
    if next(root.iter(*unseen), None) is None:  # nothing unseen below (most cards, paragraphs): lxml's walk
        return list(root.itertext())
    if root.tag in unseen:
        return []
    found = [root.text] if root.text else []
    path = [root]  # the open elements, innermost last
    children = [iter(root)]
    while children:
        for child in children[-1]:
            if isinstance(child.tag, str) and child.tag not in unseen:
                if child.text:
                    found.append(child.text)
                path.append(child)
                children.append(iter(child))
                break
            if child.tail:  # a comment's or an unseen element's tail is seen text
                found.append(child.tail)
        else:
            children.pop()
            done = path.pop()
            if path and done.tail:
                found.append(done.tail)
    return found


def text_with_breaks(block: Any, spans_of: str = "") -> tuple[str, dict[Any, tuple[int, int]]]:
    """``block``'s text as a reader sees it, a newline where a block inside it (or a line break, a
    cell) starts or ends; and where in that text each element named ``spans_of`` (``"a"``) stands."""
    from lxml import etree

    parts: list[str] = []
    size = 0
    opened: dict[Any, int] = {}
    spans: dict[Any, tuple[int, int]] = {}

    def add(text: str | None) -> None:
        nonlocal size
        if text:
            parts.append(text)
            size += len(text)

    walker = etree.iterwalk(block, events=("start", "end"))  # no recursion: pages nest 2,000 deep
    for event, el in walker:
        tag = el.tag if isinstance(el.tag, str) else None  # a comment's or instruction's is not
        if el is block:
            add(el.text if event == "start" else None)
            continue
        read = tag is not None and tag not in UNSEEN
        boundary = read and (tag in BLOCK_TAGS or tag in BREAKS)
        if event == "start":
            if not read:
                walker.skip_subtree()
                continue
            add("\n" if boundary else None)
            if tag == spans_of:
                opened[el] = size
            add(el.text)
        else:
            if tag == spans_of and el in opened:
                spans[el] = (opened[el], size)
            add("\n" if boundary else None)
            add(el.tail)
    return "".join(parts), spans


def composed(text: str) -> str:
    """``text`` in composed form (NFC), as readings are written; ASCII text as it is, without a pass."""
    return text if text.isascii() else unicodedata.normalize("NFC", text)


def squash(text: str) -> str:
    """``text`` with every run of whitespace one space, stripped."""
    return _SPACE.sub(" ", text).strip()


def squashed_len(text: str) -> int:
    """``len(squash(text))`` without building the string (``str.split`` and ``\\s`` agree on whitespace)."""
    words = text.split()
    return sum(map(len, words)) + len(words) - 1 if words else 0
