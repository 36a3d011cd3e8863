"""Search results every emulated search API shares: deterministic hits for a query, and request ids."""

from __future__ import annotations

import re
import uuid
from typing import Any

from hermes_nb.testing._pages import words
from hermes_nb.testing._wire import Call

__all__ = ["hits", "request_id"]

_DOMAINS = (
    "docs.example.com",
    "blog.example.org",
    "news.example.net",
    "wiki.example.com",
    "learn.example.edu",
)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:40] or "page"


def hits(call: Call, query: str, count: int, start: int = 0) -> list[dict[str, Any]]:
    """``count`` deterministic results for ``query`` starting at index ``start`` (title, url, snippet)."""
    emu = call.emu
    out = []
    for index in range(start, start + count):
        rng = emu.rng("hit", query, index)
        topic = words(rng, 3)
        slug = f"{_slug(query)}-{index + 1}"
        if emu.results_link_to_site:
            url = f"{emu.url}/site/articles/{slug}.html"
        else:
            url = f"https://{_DOMAINS[rng.randrange(len(_DOMAINS))]}/{_slug(topic)}/{slug}"
        out.append(
            {
                "title": f"{query.strip().title()}: {topic.title()} ({index + 1})",
                "url": url,
                "snippet": f"All about {query.strip()} and {topic}. {words(rng, 12).capitalize()}.",
                "date": f"2024-{rng.randrange(1, 13):02d}-{rng.randrange(1, 29):02d}",
            }
        )
    return out


def request_id(call: Call, *parts: object) -> str:
    return str(uuid.UUID(int=call.emu.rng("request-id", *parts, call.emu.request_count()).getrandbits(128)))
