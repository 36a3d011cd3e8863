"""Framesets: a page whose text lives in other documents, its frames.

A ``<frameset>`` page (old documentation sites, Javadoc before Java 9, intranet portals) has no
``<body>``: a browser fetches each ``<frame src>`` and shows them side by side. Its HTML holds no text
to extract, and readability's cleaner failed on it. Such a page is read as empty and names its
frames, absolute, so that a caller can extract those instead.

An ``<iframe>`` shows another document too, and never its own content: a browser treats what is written
between its tags as raw text and shows none of it. libxml2 keeps that text (often markup, such as
``<div>…</div>`` or an "update your browser" line), and an extractor's fallback that reads the whole
body printed it as the page's words; it goes before any reading.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urljoin

from .tree import document_base

_FRAMES = "//frameset//frame[@src]/@src"


def frame_sources(root: Any, url: str | None) -> list[str]:
    """The frames' addresses (absolute against ``url`` and the page's ``<base>``) of a frameset page
    with no body; else []."""
    if root.find("body") is not None:
        return []
    base = document_base(root, url or "")
    sources = (str(src).strip() for src in root.xpath(_FRAMES))
    return list(dict.fromkeys(urljoin(base, src) for src in sources if src))


def drop_inline_frame_text(root: Any) -> int:
    """Empty every ``<iframe>`` (its ``src`` and other attributes stay); how many held text or children."""
    emptied = 0
    for frame in root.iter("iframe"):
        if frame.text or len(frame):
            frame.text = None
            for child in list(frame):
                frame.remove(child)
            emptied += 1
    return emptied
