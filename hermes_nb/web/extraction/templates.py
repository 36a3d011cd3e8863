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
    dropped: set[Any] = set()
    unwrapped = 0
    for template in list(root.iter("template")):  # outer first: a dropped template takes its inner ones
        if any(outer in dropped for outer in template.iterancestors("template")):
            continue
        if any(template.get(name) for name in _SHADOW_ROOT):
            template.drop_tag()
            unwrapped += 1
        else:
            template.drop_tree()
            dropped.add(template)
    return len(dropped), unwrapped
