"""Content in elements that trafilatura takes for boilerplate because of a word in their class name.

trafilatura drops every element whose class contains one of its boilerplate words, wherever the word
sits in the name. So ``w-embed`` (Webflow's custom-code block, often a table) goes for ``embed``, a
listicle's ``slides`` for ``slide``, and an accordion's ``expand-collapse-content`` for ``expand``.
``viewport``, ``options``, ``meta`` and ``rating`` classes also hold whole descriptions. An element
that reads as prose (enough words, in sentences, few of them links) under such a name, and whose
names say nothing else about furniture (navigation, footer, sharing, related items, consent,
comments...), has the misleading words taken out of its class before the extractors read the page,
so trafilatura judges it by its text. So does one holding a table of data (``TABLE_ROWS`` rows of two
cells or more, few of them links): a comparison table's cells ("Yes", "~47M") are not prose, but the
table is content whatever its wrapper is called. (Doing the same for any element that wraps most of
the page's text, whatever its name, won four articles and lost six on the tune part of WCXB: not done.)

trafilatura also reads any element whose class starts with ``comment`` as the comment section, not as
the page's text. A post wrapped whole in such an element ("commentOnSelection": an "annotate this
passage" widget) was read as its comments alone. One comment-named element holding one article body
(``itemprop="articleBody"``, a ``post-content`` or ``article-body`` class) is such a wrapper and loses
its comment words; a thread's posts, many elements named alike, and a comment section holding several
bodies keep theirs.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .caseless import Caseless
from .scripts import SPACELESS_FULL_STOPS, word_count
from .tree import link_density, names, visible_text

PROSE_WORDS = 40  # an element with fewer words is a caption or a control, whatever its name
PROSE_SENTENCES = 2  # and it must say at least this many sentences
PROSE_LINK_DENSITY = 0.2  # an element more linked than this is a menu or a card list
TABLE_ROWS = 3  # a table of fewer rows (each of two cells or more) is layout, not data
#: Words trafilatura treats as boilerplate wherever they occur in a class name, and that name content
#: as often as furniture. On the tune part of WCXB, adding ``bar``, ``button`` and ``-icon`` cost 0.0003 F1.
_MISLEADING = Caseless(r"embed|slide|viewport|expand|options|meta|rating|timestamp|attachment")
#: Names of furniture: with one of these as well, trafilatura is right to drop a prose element.
_FURNITURE = Caseless(
    r"nav|menu|sidebar|footer|header|cookie|consent|gdpr|newsletter|subscri|share|sharing|social|"
    r"related|recommend|promo|advert|(?:^|[\s_-])ads?(?:$|[\s_-])|banner|modal|popup|overlay|"
    r"comment|disqus|review|breadcrumb|tags|author|byline|widget|paywall|premium|blurred|obfuscated",
)
#: A class or id word trafilatura takes for a comment section, and the names of an article's own body.
_COMMENTS = Caseless(r"^comment(?!ary)")
_ARTICLE_BODY = (
    "descendant::*[@itemprop='articleBody' or re:test(concat(@class, ' ', @id), "
    "'(?:post|article)[-_]?(?:content|body|text)|entry[-_]content|story[-_]?body', 'i')]"
)
_SENTENCE_END = re.compile(rf"[.!?](?:\s|$)|[{SPACELESS_FULL_STOPS}]")
_NS = {"re": "http://exslt.org/regular-expressions"}
_WRAPPERS = ("div", "section", "span")
_BLOCKS = (*_WRAPPERS, "p", "ul", "ol")


def unmask_misnamed(root: Any) -> int:
    """Take the misleading words out of the class of each misnamed element (see above); how many."""
    changed = _unmask_comment_wrappers([el for el in root.iter(*_WRAPPERS) if _comment_named(el)])
    for el in root.iter(*_BLOCKS):  # lxml's walk: an XPath for named blocks took twice as long
        cls = el.get("class") or ""
        if not cls or not _MISLEADING.search(cls) or _FURNITURE.search(f"{cls} {el.get('id') or ''}"):
            continue
        if _prose(el) or _data_table(el):
            el.set("class", " ".join(word for word in cls.split() if not _MISLEADING.search(word)))
            changed += 1
    return changed


def _unmask_comment_wrappers(named: list[Any]) -> int:
    """Take the comment words out of the class and id of each of the comment-``named`` elements that
    wraps a post; how many."""
    alike = Counter(el.get("class") for el in named)
    changed = 0
    for el in named:
        # One wrapper around one article body; a thread's posts are many, each named alike.
        if alike[el.get("class")] > 1 or len(el.xpath(_ARTICLE_BODY, namespaces=_NS)) != 1 or not _prose(el):
            continue
        for attr in ("class", "id"):
            if el.get(attr):
                el.set(attr, " ".join(word for word in el.get(attr).split() if not _COMMENTS.search(word)))
        changed += 1
    return changed


def _comment_named(el: Any) -> bool:
    """True when a word of ``el``'s class or id is a comment word (``_COMMENTS``), in any case."""
    name = names(el).lower()
    return "comment" in name and any(_COMMENTS.search(word) for word in name.split())  # substring first


def _data_table(el: Any) -> bool:
    """True when ``el`` holds a table of data: ``TABLE_ROWS`` rows of two cells or more, few links."""
    for table in el.iter("table"):
        rows = [row for row in table.iter("tr") if len(row.xpath("./td|./th")) >= 2]
        if len(rows) >= TABLE_ROWS and link_density(table) <= PROSE_LINK_DENSITY:
            return True
    return False


def _prose(el: Any) -> bool:
    text = visible_text(el)
    return (
        word_count(text) >= PROSE_WORDS
        and len(_SENTENCE_END.findall(text)) >= PROSE_SENTENCES
        and link_density(el) <= PROSE_LINK_DENSITY
    )
