"""Framesets: a page whose text lives in other documents, its frames.

A ``<frameset>`` page (old documentation sites, Javadoc before Java 9, intranet portals) has no
``<body>``: a browser fetches each ``<frame src>`` and shows them side by side. Its HTML holds no text
to extract, and readability's cleaner failed on it. Such a page is read as empty and names its
frames, absolute, so that a caller can extract those instead.
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
