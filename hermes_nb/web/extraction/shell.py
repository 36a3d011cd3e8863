"""Pages whose scripts render their text: what such a page serves is a notice or hidden scaffolding.

An application shell (an empty ``<div id="root">`` that scripts fill) serves no text of its own. An
extractor still finds some: the ``<noscript>`` line asking for JavaScript, or the few words the page
hides for screen readers and scripts (a site name, a skip link). Neither is the page's content.

- ``drop_script_notices``: short lines asking the reader to turn JavaScript on go, on every page.
- ``hidden_scaffolding``: a short reading whose words all come from elements the page hides (and
  that are not tab panels or accordions, whose hidden text is content), on a page that shows almost
  nothing outside links (``SHELL_WORDS``), is scaffolding, not a reading.

A page left with nothing is read as empty and says why (``pipeline``), so that a caller can render it
with a browser rather than take a notice for its text; so is a page that shows no word at all, with or
without the steps' drops, and holds a script (a forum app's splash screen and its empty mount point).
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from .choose import words
from .formats import markdown_to_text
from .lines import drop_lines
from .scripts import split_words
from .tree import disclosure, hidden_elements, unlinked_word_count

_NOTICE = re.compile(
    r"(?:\b(?:enable|turn\s+on|activate|allow)\s+(?:your\s+)?javascript\b"
    r"|\bjavascript\s+(?:is\s+)?(?:required|disabled|turned\s+off|not\s+enabled|must\s+be\s+enabled)\b"
    r"|\brequires?\s+javascript\b)",
    re.I,
)
NOTICE_WORDS = 20  # a longer line that speaks of JavaScript is prose about it, not a notice
SCAFFOLD_WORDS = 30  # a reading this short, all of it hidden text, is scaffolding
SHELL_WORDS = 150  # a page showing more words than this outside links has text of its own


def drop_script_notices(markdown: str) -> tuple[str, int]:
    """``markdown`` without its lines asking for JavaScript, and how many went (not in code or tables)."""
    return drop_lines(markdown, _notice)


def _notice(line: str) -> bool:
    # Every notice names JavaScript: the substring test spares most lines the case-folding regex.
    return "java" in line.lower() and bool(_NOTICE.search(line)) and len(split_words(line)) <= NOTICE_WORDS


def hidden_scaffolding(root: Any, markdown: str) -> bool:
    """True when ``markdown`` is short and every one of its words is text the page hides (see above).

    Words are the text a reader sees: link targets and Markdown marks do not count.
    """
    wanted = words(markdown_to_text(markdown))
    if not wanted or sum(wanted.values()) > SCAFFOLD_WORDS or unlinked_word_count(root) > SHELL_WORDS:
        return False
    body = root.find("body")
    hidden: Counter[str] = Counter()
    for el in hidden_elements(body if body is not None else root):
        if not disclosure(el):
            # Both ways of joining its text: element by element (a heading beside a list) and run on
            # (a word split by inline tags).
            hidden.update(words(" ".join(el.itertext())) | words(el.text_content()))
    return not wanted - hidden
