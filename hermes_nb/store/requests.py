"""Cache keys of web calls: built in one place and read back into normalised request dicts.

A key is ``kind|backend|…|subject``: ``search|auto|5|python packaging``,
``extract|auto|https://example.org/a``, ``crawl|auto|2|20|https://example.org/``. The query is
whitespace- and case-normalised, the URL's scheme and host lower-cased and its fragment dropped,
so that the same request always finds the same entry (in the store and in a cassette).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "normalize_query",
    "normalize_url",
    "search_key",
    "extract_key",
    "crawl_key",
    "request_of",
    "key_of",
    "describe",
]


def normalize_query(query: str) -> str:
    """Whitespace collapsed and case folded: ``"  Python   Packaging"`` → ``"python packaging"``."""
    return " ".join(query.split()).casefold()


def normalize_url(url: str) -> str:
    """Scheme and host lower-cased, an empty path made ``/``, the fragment dropped."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def search_key(backend: str, limit: int, query: str) -> str:
    return f"search|{backend}|{int(limit)}|{normalize_query(query)}"


def extract_key(backend: str, url: str) -> str:
    return f"extract|{backend}|{normalize_url(url)}"


def crawl_key(backend: str, depth: int, limit: int, url: str) -> str:
    return f"crawl|{backend}|{int(depth)}|{int(limit)}|{normalize_url(url)}"


def request_of(key: str) -> dict[str, Any]:
    """The request dict of a key (``{"kind": "search", "backend": …, "limit": …, "query": …}``)."""
    kind, _, rest = key.partition("|")
    if kind == "search":
        backend, limit, query = rest.split("|", 2)
        return {"kind": kind, "backend": backend, "limit": int(limit), "query": query}
    if kind == "extract":
        backend, url = rest.split("|", 1)
        return {"kind": kind, "backend": backend, "url": url}
    if kind == "crawl":
        backend, depth, limit, url = rest.split("|", 3)
        return {"kind": kind, "backend": backend, "depth": int(depth), "limit": int(limit), "url": url}
    return {"kind": kind, "key": rest}


def key_of(request: dict[str, Any]) -> str:
    """Inverse of ``request_of``."""
    kind = request.get("kind")
    if kind == "search":
        return search_key(request["backend"], request["limit"], request["query"])
    if kind == "extract":
        return extract_key(request["backend"], request["url"])
    if kind == "crawl":
        return crawl_key(request["backend"], request["depth"], request["limit"], request["url"])
    return f"{kind}|{request.get('key', '')}"


def describe(request: dict[str, Any]) -> str:
    """One line naming a request: ``search 'python' (limit 5, backend auto)``."""
    kind = request.get("kind")
    if kind == "search":
        return f"search {request['query']!r} (limit {request['limit']}, backend {request['backend']})"
    if kind == "extract":
        return f"extract {request['url']} (backend {request['backend']})"
    if kind == "crawl":
        return (
            f"crawl {request['url']} (depth {request['depth']}, limit {request['limit']}, "
            f"backend {request['backend']})"
        )
    if kind == "image":
        return (
            f"image {request.get('prompt')!r} ({request.get('provider') or 'any provider'}, "
            f"model {request.get('model') or 'default'}, {request.get('aspect_ratio')}, "
            f"seed {request.get('seed')}, n {request.get('n')})"
        )
    return f"{kind} {request}"
