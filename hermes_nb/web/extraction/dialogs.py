"""Dialogs and navigation (consent centres, pop-ups, menus, ARIA navigation) are not the page's text.

A consent manager's preference centre is a dialog of accordions, one per cookie category, each with a
paragraph of legal text; a reader sees it only on asking. Extractors read it as part of the page (and
``drop_hidden`` keeps what sits in accordions), as they read a fly-in menu or a newsletter pop-up.
Dialogs (``<dialog>``, ``role="dialog"`` or ``"alertdialog"``, ``aria-modal="true"``) go before the
extractors read the page, unless one holds most of the page's text (``CONTENT_SHARE``: an article
shown in a modal). A dialog about consent (it asks for it, or speaks of cookies and privacy) goes
however long it is: a consent manager's legal text can outweigh a thin page's own. Product pages
lose only those: shops open a product's description, size guide or specifications in a side sheet
that is a dialog too.

Many pop-ups say what they are only in their class (``elementor-popup-modal``, ``success-modal``,
``lc-modal``, ``a-popover-preload``): a block (not a link that opens one: a hypertext note is
``<a class="popup">``, its words part of a sentence) whose class has a ``modal``, ``popup`` or
``popover`` part is a dialog too, unless it holds the page's headline or an ``<article>`` (a news site
opens its stories in an overlay it names a modal, display:none until opened). On the tune part of
WCXB: 0.8907 → 0.8911 (8 pages up, a law firm's post +0.36 without its pop-up of other posts; 2 down,
a course page and a grid whose reference keeps a sign-up box); Readability's pages the same.

WAI-ARIA menus (``role="menu"`` or ``"menubar"``: a site's language picker, account menu or fly-out
of sections) are widgets of actions and links, and a ``role="navigation"`` landmark is a ``<nav>`` by
another name (extractors drop the element, not the role): neither is a page's text. They go on every
page, product pages included, unless one holds most of the page's text. On the tune part of WCXB,
menus: 0.8832 → 0.8836 (a grid 0.37 → 0.66, a chart 0.74 → 0.77, a service page −0.004); navigation:
→ 0.8841 (12 pages changed, 8 up: listings +0.08 to +0.22; 4 down, a bestsellers grid 0.69 → 0.56
where trafilatura then chose another block). Banners and footers by role (``banner``,
``contentinfo``) cost the tune part 0.0002 and 0.0001 and stay.
"""

from __future__ import annotations

import re
from typing import Any

from .tree import shown_chars

CONTENT_SHARE = 0.5  # a dialog holding this share of the page's text is the page's content, kept
_MODAL_TAGS = frozenset(("div", "section", "aside", "form"))  # a block: not a link that opens one
_MODAL_CLASS = re.compile(r"(?:^|[\s_-])(?:modal|popup|popover)(?:$|[\s_-])")
_DIALOG_ROLES = ("dialog", "alertdialog")
_NAVIGATION_ROLES = ("menu", "menubar", "navigation")
_CONSENT = re.compile(r"\bconsent")
_COOKIES = re.compile(r"\bcookies?\b")
_PRIVACY = re.compile(r"\b(?:privacy|accept|preferences|settings|partners|personal data)\b")


def drop_dialogs(root: Any, *, consent_only: bool = False) -> int:
    """Remove the page's dialogs, menus and navigation landmarks (of the dialogs, only those about
    consent when ``consent_only``); how many went."""
    found = [el for el in _marked(root) if _dialog(el) or _navigation(el)]
    if not found:
        return 0
    chosen = set(found)
    outermost = [el for el in found if not any(a in chosen for a in el.iterancestors())]
    body = root.find("body")
    total = shown_chars(body if body is not None else root)
    dropped = 0
    for el in outermost:
        if el.tag in ("html", "body"):
            continue
        # A consent centre goes however long its legal text; another dialog, a menu or a navigation
        # landmark only when it is not the page, and on a product page no other dialog.
        kept_kind = consent_only and not _navigation(el)
        if not _about_consent(el) and (
            kept_kind or _overlaid_page(el) or shown_chars(el) >= CONTENT_SHARE * total
        ):
            continue
        el.drop_tree()
        dropped += 1
    return dropped


def _marked(root: Any) -> list[Any]:
    """The elements that may be dialogs or navigation, in one walk of the tree (an XPath union that also
    tests classes walks it at twice the cost): ``_dialog`` and ``_navigation`` choose among them."""
    from lxml import etree

    marked = []
    for el in root.iter(etree.Element):
        get = el.get
        by_role = el.tag == "dialog" or get("role") is not None or get("aria-modal") is not None
        if by_role or (el.tag in _MODAL_TAGS and _modal_by_class(el)):  # the call only for blocks: cheap
            marked.append(el)
    return marked


def _dialog(el: Any) -> bool:
    return _aria_dialog(el) or _modal_by_class(el)


def _aria_dialog(el: Any) -> bool:
    return el.tag == "dialog" or el.get("role") in _DIALOG_ROLES or el.get("aria-modal") == "true"


def _modal_by_class(el: Any) -> bool:
    return el.tag in _MODAL_TAGS and bool(_MODAL_CLASS.search(el.get("class") or ""))


def _overlaid_page(el: Any) -> bool:
    """A modal named so only by its class that holds the page's headline or article: the page shown
    over another (a news site opens its stories in an overlay), not a pop-up."""
    if _aria_dialog(el) or _navigation(el):
        return False
    return el.find(".//h1") is not None or el.find(".//article") is not None


def _navigation(el: Any) -> bool:
    return el.get("role") in _NAVIGATION_ROLES


def _about_consent(el: Any) -> bool:
    """A dialog that asks for consent, or speaks of cookies and privacy (not a recipe for cookies)."""
    text = el.text_content().lower()
    return bool(_CONSENT.search(text) or (_COOKIES.search(text) and _PRIVACY.search(text)))
