"""The web layer: the ``hn.search`` / ``extract`` / ``crawl`` facade and what it is built from.

``sdk`` (the facade and the cache modes), ``selection`` (which provider answers), ``results``
(typed results from Hermes envelopes), ``content`` (bytes → Markdown), ``crawler`` (the built-in
crawler), ``longtext`` (Hermes's truncate-and-store for long pages).
"""

from hermes_nb.web.sdk import (
    CACHE_MODES,
    MAX_LIMIT,
    acrawl,
    aextract,
    asearch,
    cache_mode,
    crawl,
    extract,
    search,
)

__all__ = [
    "CACHE_MODES", "MAX_LIMIT", "search", "asearch", "extract", "aextract", "crawl", "acrawl", "cache_mode",
]
