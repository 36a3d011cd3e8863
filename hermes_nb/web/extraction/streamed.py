"""React's streamed HTML: content a page sends hidden at the end and its scripts move into place.

A React 18+ server that streams (Next.js's app router, Remix, any ``renderToPipeableStream``) sends
each late part of the page as ``<div hidden id="S:n">`` after the shell, with a one-line script —
``$RC("B:m","S:n")`` fills the boundary ``<template id="B:m">``, ``$RS("S:n","P:m")`` the placeholder
``<template id="P:m">`` — that moves it into place once it arrives. A reader sees that content where
the script puts it; an extractor reading the raw page sees it hidden at the bottom, or drops it with
the other hidden elements. ``place_streamed`` does what the scripts would do.
"""

from __future__ import annotations

import re
from typing import Any

_SWAP = re.compile(r"\$R([CS])\(\s*[\"']([BSP]:[\w-]+)[\"']\s*,\s*[\"']([BSP]:[\w-]+)[\"']")
_SEGMENTS = "//div[@hidden][starts-with(@id, 'S:')]"


def place_streamed(root: Any) -> int:
    """Move each streamed segment to the template its script names; how many were placed.

    Segments whose script is missing stay where they are, no longer hidden (``streamed_segment``
    tells ``drop_hidden`` to keep them): what the reader sees is their content, wherever it lands.
    """
    segments = {el.get("id"): el for el in root.xpath(_SEGMENTS)}
    if not segments:
        return 0
    slots = {el.get("id"): el for el in root.iter("template") if el.get("id")}
    placed = 0
    for script in root.iter("script"):
        text = script.text or ""
        if "$R" not in text:
            continue
        for kind, first, second in _SWAP.findall(text):
            # $RC(boundary, segment); $RS(segment, placeholder)
            segment_id, slot_id = (second, first) if kind == "C" else (first, second)
            segment, slot = segments.get(segment_id), slots.get(slot_id)
            if segment is None or slot is None or slot.getparent() is None:
                continue
            _replace(slot, segment)
            placed += 1
    return placed


def streamed_segment(el: Any) -> bool:
    """True for a React streamed segment still hidden at the end of the page."""
    return el.tag == "div" and (el.get("id") or "").startswith("S:")


def _replace(slot: Any, segment: Any) -> None:
    """Put ``segment``'s content where ``slot`` is; both elements go (their tails stay)."""
    parent = slot.getparent()
    at = parent.index(slot)
    if segment.text:
        if at:
            before = parent[at - 1]
            before.tail = (before.tail or "") + segment.text
        else:
            parent.text = (parent.text or "") + segment.text
    for child in list(segment):
        parent.insert(at, child)
        at += 1
    slot.drop_tree()
    if segment.getparent() is not None:
        segment.drop_tree()
