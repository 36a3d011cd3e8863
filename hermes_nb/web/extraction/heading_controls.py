"""Controls a page sets inside its headings: permalink signs and edit links.

Documentation generators put a permalink after each heading (Sphinx's and MkDocs' "¶", GitHub's and
Docusaurus' "#", a "§" or a link icon) and wikis an edit link ("[edit]", MediaWiki's
``mw-editsection``). They are controls, not words, but the extractors read them into the heading:
"Installation¶", "## History\\[edit\\]". On the tune part of WCXB the readings of ten documentation
pages carried "¶" signs (up to 34 a page) that no reference has.

Inside a heading, or a definition term (an API entry's name, where Sphinx puts its permalink too), a
link to an anchor of the page whose text is no word (signs, an icon, nothing) goes, as does a link
reading "edit" or "edit source"; MediaWiki's edit-section spans go wherever they are.
"""

from __future__ import annotations

import re
from typing import Any

_IN_HEADINGS = (
    "//*[self::h1 or self::h2 or self::h3 or self::h4 or self::h5 or self::h6 or self::dt]"
    "//a[starts-with(normalize-space(@href), '#') or re:test(normalize-space(.), '^\\[?\\s*edit', 'i')]"
)
_EDIT_SECTIONS = "//span[contains(@class, 'editsection')]"
_NO_WORD = re.compile(r"[\W_]*")
_EDIT = re.compile(r"\[?\s*edit(?:\s+source)?\s*\]?", re.I)
_NAMESPACES = {"re": "http://exslt.org/regular-expressions"}


def drop_heading_controls(root: Any) -> int:
    """Remove the permalink and edit links of the page's headings (their tails stay); how many went."""
    doomed = [el for el in root.xpath(_EDIT_SECTIONS) if el.getparent() is not None]
    for link in root.xpath(_IN_HEADINGS, namespaces=_NAMESPACES):
        text = " ".join(link.text_content().split())
        anchor = (link.get("href") or "").strip().startswith("#")
        if (anchor and _NO_WORD.fullmatch(text)) or _EDIT.fullmatch(text):
            doomed.append(link)
    gone = 0
    for el in doomed:
        if el.getparent() is not None and not any(up in doomed for up in el.iterancestors()):
            el.drop_tree()
            gone += 1
    return gone
