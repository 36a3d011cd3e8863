"""The one request-key scheme: how every cached or recorded request is named, built here only.

A request is a dict of what makes two calls the same.

* Web requests (``WEB_KINDS``) have readable keys that read back into the request dict:
  ``search|auto|5|python packaging``, ``extract|auto|https://example.org/a``,
  ``crawl|auto|2|20|https://example.org/``. The query is whitespace- and case-normalised, the
  URL's scheme and host lower-cased and its fragment dropped, so that the same request always
  finds the same entry (in the store and in a cassette).
* Requests for files (images, and any later media kind) hold open-ended parameters (long prompts,
  reference images), so they are named by ``digest(request)``: the first 32 hex digits of the
  SHA-256 of the request's canonical JSON, kept on each file's row as ``request_hash``. It is the
  digest image rows have always carried, so rows written before this module still match; a
  cassette keeps the request itself and matches it field by field (``hermes_nb.store.replay``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

__all__ = [
    "WEB_KINDS",
    "normalize_query",
    "normalize_url",
    "search_key",
    "extract_key",
    "crawl_key",
    "digest",
    "request_of",
    "key_of",
    "describe",
]

#: Kinds whose answer is a JSON value in the store's cache table (the rest are files).
WEB_KINDS = ("search", "extract", "crawl")


def normalize_query(query: str) -> str:
    """Whitespace collapsed and case folded: ``"  Python   Packaging"`` → ``"python packaging"``."""
    return " ".join(query.split()).casefold()


def normalize_url(url: str) -> str:
    """Scheme and host lower-cased, an empty path made ``/``, the fragment dropped."""
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def search_key(backend: str, limit: int, query: str) -> str:
    return f"search|{backend}|{int(limit)}|{normalize_query(query)}"


#: Marks the key of a page read with its figures (``images=True``): an address never starts with it.
_FIGURES = "images|"
_FIGURES_NOTE = ", with its figures"  # how ``describe`` says so


def extract_key(backend: str, url: str, *, images: bool = False) -> str:
    return f"extract|{backend}|{_FIGURES if images else ''}{normalize_url(url)}"


def crawl_key(backend: str, depth: int, limit: int, url: str, *, images: bool = False) -> str:
    return f"crawl|{backend}|{int(depth)}|{int(limit)}|{_FIGURES if images else ''}{normalize_url(url)}"


def digest(request: dict[str, Any]) -> str:
    """The digest of a file request: 32 hex digits of the SHA-256 of its canonical JSON."""
    blob = json.dumps(request, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()[:32]


def request_of(key: str) -> dict[str, Any]:
    """The request dict of a key (``{"kind": "search", "backend": …, "limit": …, "query": …}``)."""
    kind, _, rest = key.partition("|")
    if kind == "search":
        backend, limit, query = rest.split("|", 2)
        return {"kind": kind, "backend": backend, "limit": int(limit), "query": query}
    if kind == "extract":
        backend, url = rest.split("|", 1)
        return _with_figures({"kind": kind, "backend": backend}, url)
    if kind == "crawl":
        backend, depth, limit, url = rest.split("|", 3)
        request = {"kind": kind, "backend": backend, "depth": int(depth), "limit": int(limit)}
        return _with_figures(request, url)
    return {"kind": kind, "key": rest}


def _with_figures(request: dict[str, Any], url: str) -> dict[str, Any]:
    """``request`` with its ``url``, and ``"images": True`` where the key says the pages were read with
    their figures (a request without them has no ``images``)."""
    if url.startswith(_FIGURES):
        return {**request, "url": url[len(_FIGURES) :], "images": True}
    return {**request, "url": url}


def key_of(request: dict[str, Any]) -> str:
    """Inverse of ``request_of``."""
    kind = request.get("kind")
    if kind == "search":
        return search_key(request["backend"], request["limit"], request["query"])
    if kind == "extract":
        return extract_key(request["backend"], request["url"], images=bool(request.get("images")))
    if kind == "crawl":
        depth, limit, figures = request["depth"], request["limit"], bool(request.get("images"))
        return crawl_key(request["backend"], depth, limit, request["url"], images=figures)
    return f"{kind}|{request.get('key', '')}"


def describe(request: dict[str, Any]) -> str:
    """One line naming a request: ``search 'python' (limit 5, backend auto)``."""
    kind = request.get("kind")
    figures = _FIGURES_NOTE if request.get("images") else ""  # pages read with their figures
    if kind == "search":
        return f"search {request['query']!r} (limit {request['limit']}, backend {request['backend']})"
    if kind == "extract":
        return f"extract {request['url']} (backend {request['backend']}{figures})"
    if kind == "crawl":
        return (
            f"crawl {request['url']} (depth {request['depth']}, limit {request['limit']}, "
            f"backend {request['backend']}{figures})"
        )
    if kind == "image":
        return (
            f"image {request.get('prompt')!r} ({request.get('provider') or 'any provider'}, "
            f"model {request.get('model') or 'default'}, {request.get('aspect_ratio')}, "
            f"seed {request.get('seed')}, n {request.get('n')})"
        )
    if "prompt" in request:  # another file kind (video …): its prompt, then its other fields
        rest = ", ".join(
            f"{name} {value}" for name, value in request.items()
            if name not in ("kind", "prompt", "provider", "model")
        )  # fmt: skip
        head = f"{request.get('provider') or 'any provider'}, model {request.get('model') or 'default'}"
        return f"{kind} {request['prompt']!r} ({head}{', ' + rest if rest else ''})"
    return f"{kind} {request}"
