"""Dialogs: cookie-consent preference centres, menus, sign-up and shipping pop-ups, not the page's text.

A consent manager's preference centre is a dialog of accordions, one per cookie category, each with a
paragraph of legal text; a reader sees it only on asking. Extractors read it as part of the page (and
``drop_hidden`` keeps what sits in accordions), as they read a fly-in menu or a newsletter pop-up.
Dialogs (``<dialog>``, ``role="dialog"`` or ``"alertdialog"``, ``aria-modal="true"``) go before the
extractors read the page, unless one holds most of the page's text (``CONTENT_SHARE``: an article
shown in a modal). Product pages lose only the dialogs about cookies or consent: shops open a
product's description, size guide or specifications in a side sheet that is a dialog too.
"""

from __future__ import annotations

import re
from typing import Any

from .tree import shown_chars

CONTENT_SHARE = 0.5  # a dialog holding this share of the page's text is the page's content, kept
_DIALOGS = "//dialog|//*[@role='dialog' or @role='alertdialog' or @aria-modal='true']"
_CONSENT = re.compile(r"\bcookies?\b|\bconsent", re.I)


def drop_dialogs(root: Any, *, consent_only: bool = False) -> int:
    """Remove the page's dialogs (only those about cookies or consent when ``consent_only``); how many."""
    found = root.xpath(_DIALOGS)
    if not found:
        return 0
    chosen = set(found)
    outermost = [el for el in found if not any(a in chosen for a in el.iterancestors())]
    body = root.find("body")
    total = shown_chars(body if body is not None else root)
    dropped = 0
    for el in outermost:
        if el.tag in ("html", "body") or shown_chars(el) >= CONTENT_SHARE * total:
            continue
        if consent_only and not _CONSENT.search(el.text_content()):
            continue
        el.drop_tree()
        dropped += 1
    return dropped
