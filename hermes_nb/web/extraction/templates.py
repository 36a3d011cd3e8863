"""``<template>`` elements, read as a browser shows them.

A plain ``<template>`` is inert: a browser never renders it; scripts clone it into the page when they
need it (the next card of a list, an empty-cart message, a dialog). The HTML parser keeps its content
as ordinary children, and the extractors read it as text: a card with empty fields, a "no results"
message, a dialog nobody opened. Such a template goes.

A declarative shadow root (``<template shadowrootmode="open">``, ``shadowroot`` in Chrome's first
version) is rendered: it is how a server-rendered web component shows its content. It is unwrapped
into its host, so its text stays where the page shows it.
"""

from __future__ import annotations

from typing import Any

_SHADOW_ROOT = ("shadowrootmode", "shadowroot")


def open_templates(root: Any) -> tuple[int, int]:
    """Drop inert templates and unwrap declarative shadow roots; (templates dropped, roots unwrapped)."""
    top = _top(root)
    dropped = unwrapped = 0
    for template in list(root.iter("template")):  # outer first: a dropped template takes its inner ones
        if _top(template) is not top:
            continue  # inside a template dropped already
        if any(template.get(name) for name in _SHADOW_ROOT):
            template.drop_tag()
            unwrapped += 1
        else:
            template.drop_tree()
            dropped += 1
    return dropped, unwrapped


def _top(el: Any) -> Any:
    """The outermost ancestor of ``el`` (itself when it has none): what a dropped subtree ends at."""
    ancestors = list(el.iterancestors())
    return ancestors[-1] if ancestors else el
