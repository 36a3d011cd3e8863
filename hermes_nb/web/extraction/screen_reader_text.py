"""An icon button's name: written for screen readers only, a control's name and not the page's text.

An icon button (a heart, a share arrow, a carousel's arrow) names itself for screen readers in a span
a style sheet moves off the screen: ``<button><svg/><span class="sr-only">Save this event: Tech
Summit</span></button>``. Browsers show the icon. trafilatura's main reading drops buttons, but its
fallback readings keep their text, so a listing of forty events read "Save this event: …Share this
event: …" under every card, and a shop's grid "Add to favorites 0 people have favorited this" under
every product. The names frameworks give such spans (``sr-only`` in Bootstrap 4 and Tailwind,
``visually-hidden`` in Bootstrap 5, WordPress's ``screen-reader-text``, Eventbrite's
``eds-is-hidden-accessible``, …) say that a sighted reader never sees their text; inside
a ``<button>`` that text goes, the text after it (its tail) staying. Tailwind's ``md:not-sr-only``
shows the element again on wider screens, so an element named so stays.

Only inside buttons. Screen-reader text elsewhere is often the page's text in another form: a
comparison table's ✓ read "Yes", a rating's "Number of reviews: 196", a grid card's own copy that
the card-finding step reads. Dropping it everywhere gained 0.0011 F1 on the tune part of WCXB and
lost 0.0014 on the held-out part (45 pages moved, three product grids by 0.45–0.58); inside buttons
only: tune +0.0003 (2 pages up), held out −0.00005 (one grid whose reference keeps its carousel's
"Previous - All Models" arrows).
"""

from __future__ import annotations

from typing import Any

from .caseless import Caseless

__all__ = ["drop_screen_reader_text"]

#: A class word that hides its element from sight and not from screen readers, alone or after a
#: framework's prefix (``eds-is-hidden-accessible``, ``u-visually-hidden``).
_SCREEN_READER_ONLY = Caseless(
    r"(?:^|\s)(?:[\w-]*?[_-])?(?:sr-only|sr-text|visually-?hidden|visuallyhidden|"
    r"screen-?reader(?:-text|-only)?|hidden-accessible|a11y-hidden|assistive-text|u-hidden-visually)"
    r"(?:$|[\s_])"
)


def drop_screen_reader_text(root: Any) -> int:
    """Remove the screen-reader-only elements inside the buttons below ``root``; how many went."""
    doomed = [
        el
        for button in root.iter("button")
        for el in button.iterdescendants()
        if isinstance(el.tag, str)
        and (names := el.get("class"))
        and "not-sr-only" not in names
        and _SCREEN_READER_ONLY.search(names)
    ]
    gone: set[Any] = set()
    for el in doomed:  # in document order: an element before what it holds, which goes with it
        if el.getparent() is not None and not any(a in gone for a in el.iterancestors()):
            el.drop_tree()
            gone.add(el)
    return len(gone)
