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

_HEADINGS = ("h1", "h2", "h3", "h4", "h5", "h6", "dt")
_NO_WORD = re.compile(r"[\W_]*")
_EDIT = re.compile(r"\[?\s*edit(?:\s+source)?\s*\]?", re.I)


def drop_heading_controls(root: Any) -> int:
    """Remove the permalink and edit links of the page's headings (their tails stay); how many went."""
    doomed = [span for span in root.iter("span") if "editsection" in (span.get("class") or "")]
    for heading in root.iter(*_HEADINGS):
        for link in heading.iter("a"):
            text = " ".join(link.text_content().split())
            anchor = (link.get("href") or "").strip().startswith("#")
            if (anchor and _NO_WORD.fullmatch(text)) or _EDIT.fullmatch(text):
                doomed.append(link)
    gone = 0
    chosen = dict.fromkeys(doomed)  # once each (a heading in a heading lists its links twice), in order
    for el in chosen:
        if el.getparent() is not None and not any(up in chosen for up in el.iterancestors()):
            el.drop_tree()
            gone += 1
    return gone
