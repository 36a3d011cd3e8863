"""The web SDK facade: ``search``, ``extract``, ``crawl`` and their async twins.

Each call validates its input, consults the store according to ``cache.mode``, asks
``hermes_nb.web.selection`` for the provider(s), turns the provider's Hermes envelope into a typed
result and records which provider answered and what was tried.

``cache.mode``: ``read_write`` (default: fresh cached searches — younger than ``cache.ttl`` — and
cached pages are served, new answers are stored), ``replay`` (only the store answers; a miss raises
``CacheMissError`` and no provider is called), ``refresh`` (always call, overwrite), ``off``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from hermes_nb import config
from hermes_nb._async import acall_maybe_async, call_maybe_async
from hermes_nb.errors import CacheMissError, HermesError, InvalidInputError
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web import longtext, selection
from hermes_nb.web.envelopes import parse_crawl_envelope, parse_extract_envelope, parse_search_envelope
from hermes_nb.web.results import (
    Attempt,
    CrawlResult,
    ExtractResult,
    Page,
    SearchHit,
    SearchResult,
    page_from_record,
)

__all__ = [
    "CACHE_MODES",
    "MAX_LIMIT",
    "search",
    "asearch",
    "extract",
    "aextract",
    "crawl",
    "acrawl",
    "cache_mode",
]

log = logging.getLogger(__name__)

CACHE_MODES = ("read_write", "replay", "refresh", "off")
MAX_LIMIT = 100
MAX_CRAWL_PAGES = 500


def cache_mode() -> str:
    """The effective ``cache.mode`` (validated)."""
    mode = str(config.get("cache.mode", "read_write")).strip().lower()
    if mode not in CACHE_MODES:
        raise InvalidInputError(
            f"cache.mode is {mode!r}; set it to one of {', '.join(CACHE_MODES)} "
            "(hn.config.set('cache.mode', 'read_write'))"
        )
    return mode


def _ttl() -> float | None:
    value = config.get("cache.ttl")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


def _store() -> Any:
    from hermes_nb.store import get_store

    return get_store()


def _normalize_query(query: str) -> str:
    return " ".join(query.split()).casefold()


def _normalize_url(url: str) -> str:
    parts = urlsplit(url.strip())
    return urlunsplit((parts.scheme.lower(), parts.netloc.lower(), parts.path or "/", parts.query, ""))


def _backend_choice(capability: str, backend: str | None) -> str:
    name, _ = selection.configured_backend(capability, backend)
    return name or "auto"


def _check_query(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("search needs a non-empty query string, e.g. hn.search('python packaging')")
    return query.strip()


def _check_int(name: str, value: object, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidInputError(f"{name} must be an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except ValueError as exc:
        raise InvalidInputError(f"{name} must be an integer, got {value!r}") from exc
    return max(low, min(high, number))


def _check_url(url: object) -> str:
    # Offline checks only (scheme, userinfo, secrets): whichever provider extracts, no key may
    # leave inside a URL. Address checks belong to the fetcher (the `direct` provider).
    from hermes_nb.net.url_guard import check_syntax

    return check_syntax(url)


def _check_urls(urls: object) -> list[str]:
    items = [urls] if isinstance(urls, str) else urls
    if not isinstance(items, Sequence) or isinstance(items, (bytes, bytearray)):
        raise InvalidInputError("extract needs a URL or a list of URLs")
    checked = [_check_url(u) for u in items]
    if not checked:
        raise InvalidInputError("extract needs at least one URL")
    return checked


def _cache_get(key: str, max_age: float | None) -> tuple[Any, str] | None:
    try:
        found = _store().cache_get(key, max_age=max_age)
    except HermesError as exc:
        if cache_mode() == "replay":
            raise
        log.warning("cache read skipped: %s", exc)
        return None
    return None if found is None else (found[0], found[1])


def _cache_put(key: str, kind: str, provider: str, value: Any) -> None:
    try:
        _store().cache_put(key, kind, provider, value)
    except HermesError as exc:
        log.warning("cache write skipped: %s", exc)


def _index_pages(pages: Sequence[Page], provider: str) -> None:
    """Keep successful pages' full text in the store so ``local`` search finds them offline."""
    try:
        store = _store()
        for page in pages:
            if page.error is None:
                text = page.raw_content or page.content
                store.put_page(page.url, page.title, text, metadata=page.metadata, provider=provider)
    except HermesError as exc:
        log.warning("page index skipped: %s", exc)


def _miss(what: str) -> CacheMissError:
    return CacheMissError(
        f"cache.mode is 'replay' and the store has no {what}; run it once with "
        "hn.config.set('cache.mode', 'read_write') to record it"
    )


# --- search ----------------------------------------------------------------------------------


class _Search:
    def __init__(self, query: object, limit: object, backend: str | None) -> None:
        self.query = _check_query(query)
        self.limit = _check_int("limit", limit, 1, MAX_LIMIT)
        self.backend = backend
        self.mode = cache_mode()
        self.key = f"search|{_backend_choice('search', backend)}|{self.limit}|{_normalize_query(self.query)}"
        self.start = time.perf_counter()

    def from_cache(self) -> SearchResult | None:
        if self.mode in ("read_write", "replay"):
            found = _cache_get(self.key, _ttl() if self.mode == "read_write" else None)
            if found is not None:
                data, provider = found
                hits = [SearchHit(**hit) for hit in data["hits"]]
                return SearchResult(
                    query=self.query,
                    hits=hits,
                    provider=provider,
                    attempts=[],
                    duration_s=round(time.perf_counter() - self.start, 6),
                    limit=self.limit,
                    effective_limit=int(data.get("effective_limit", self.limit)),
                    cached=True,
                    warnings=list(data.get("warnings", [])),
                )
        if self.mode == "replay":
            raise _miss(f"search for {self.query!r} (limit {self.limit})")
        return None

    def parse(self, provider: WebSearchProvider, env: Any) -> tuple[list[SearchHit], int, list[str]]:
        hits, extras = parse_search_envelope(env, str(provider.name), self.limit)
        effective = self.limit
        for cap in (getattr(provider, "max_limit", None), extras.get("effective_limit")):
            if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0:
                effective = min(effective, cap)
        warnings = extras.get("warnings") or extras.get("warning") or []
        return hits, effective, [warnings] if isinstance(warnings, str) else [str(w) for w in warnings]

    def call(self, provider: WebSearchProvider) -> tuple[list[SearchHit], int, list[str]]:
        return self.parse(provider, call_maybe_async(provider.search, self.query, self.limit))

    async def acall(self, provider: WebSearchProvider) -> tuple[list[SearchHit], int, list[str]]:
        return self.parse(provider, await acall_maybe_async(provider.search, self.query, self.limit))

    def finish(
        self, value: tuple[list[SearchHit], int, list[str]], provider: str, attempts: list[Attempt]
    ) -> SearchResult:
        hits, effective, warnings = value
        result = SearchResult(
            query=self.query,
            hits=hits,
            provider=provider,
            attempts=attempts,
            duration_s=round(time.perf_counter() - self.start, 6),
            limit=self.limit,
            effective_limit=effective,
            warnings=warnings,
        )
        if self.mode in ("read_write", "refresh"):
            record = {"hits": [h.to_dict() for h in hits], "effective_limit": effective, "warnings": warnings}
            _cache_put(self.key, "search", provider, record)
        return result


def search(query: str, limit: int = 5, *, backend: str | None = None) -> SearchResult:
    """Search the web with the selected provider; ``limit`` is clamped to 1..100."""
    request = _Search(query, limit, backend)
    cached = request.from_cache()
    if cached is not None:
        return cached
    return request.finish(*selection.run("search", request.call, backend=backend))


async def asearch(query: str, limit: int = 5, *, backend: str | None = None) -> SearchResult:
    """Async twin of ``search``."""
    request = _Search(query, limit, backend)
    cached = request.from_cache()
    if cached is not None:
        return cached
    return request.finish(*await selection.arun("search", request.acall, backend=backend))


# --- extract ---------------------------------------------------------------------------------


class _Extract:
    def __init__(self, urls: object, backend: str | None, max_chars: int | None) -> None:
        self.urls = _check_urls(urls)
        self.max_chars = max_chars
        self.mode = cache_mode()
        self.choice = _backend_choice("extract", backend)
        self.start = time.perf_counter()
        self.found: dict[str, tuple[Page, str]] = {}
        unique = list(dict.fromkeys(self.urls))
        if self.mode in ("read_write", "replay"):
            for url in unique:
                hit = _cache_get(self._key(url), None)
                if hit is not None:
                    self.found[url] = (page_from_record(hit[0]), hit[1])
        self.missing = [u for u in unique if u not in self.found]
        if self.missing and self.mode == "replay":
            more = f" (and {len(self.missing) - 1} more)" if len(self.missing) > 1 else ""
            raise _miss(f"extracted page for {self.missing[0]}{more}")

    def _key(self, url: str) -> str:
        return f"extract|{self.choice}|{_normalize_url(url)}"

    def call(self, provider: WebSearchProvider) -> list[Page]:
        env = call_maybe_async(provider.extract, list(self.missing), format="markdown")
        return parse_extract_envelope(env, self.missing, str(provider.name))

    async def acall(self, provider: WebSearchProvider) -> list[Page]:
        env = await acall_maybe_async(provider.extract, list(self.missing), format="markdown")
        return parse_extract_envelope(env, self.missing, str(provider.name))

    def finish(self, pages: list[Page], provider: str | None, attempts: list[Attempt]) -> ExtractResult:
        fresh = dict(zip(self.missing, pages, strict=True))
        if self.mode in ("read_write", "refresh"):
            for url, page in fresh.items():
                if page.error is None:
                    _cache_put(self._key(url), "extract", provider or "", asdict(page))
        if provider is not None:
            _index_pages(pages, provider)
        out = []
        for url in self.urls:
            page = fresh[url] if url in fresh else self.found[url][0]
            out.append(longtext.apply(replace(page, metadata=dict(page.metadata)), self.max_chars))
        if provider is None:
            provider = self.found[self.urls[0]][1]
        return ExtractResult(
            pages=out,
            provider=provider,
            attempts=attempts,
            duration_s=round(time.perf_counter() - self.start, 6),
            cached=not self.missing,
        )


def extract(
    urls: str | Sequence[str], *, backend: str | None = None, max_chars: int | None = None
) -> ExtractResult:
    """Extract the text of each URL (per-URL errors, input order); long pages are truncated and stored."""
    request = _Extract(urls, backend, max_chars)
    if not request.missing:
        return request.finish([], None, [])
    return request.finish(*selection.run("extract", request.call, backend=backend))


async def aextract(
    urls: str | Sequence[str], *, backend: str | None = None, max_chars: int | None = None
) -> ExtractResult:
    """Async twin of ``extract``."""
    request = _Extract(urls, backend, max_chars)
    if not request.missing:
        return request.finish([], None, [])
    return request.finish(*await selection.arun("extract", request.acall, backend=backend))


# --- crawl -----------------------------------------------------------------------------------


class _Crawl:
    def __init__(self, url: object, depth: object, limit: object, backend: str | None) -> None:
        self.url = _check_url(url)
        self.depth = _check_int("depth", depth, 0, 10)
        self.limit = _check_int("limit", limit, 1, MAX_CRAWL_PAGES)
        self.mode = cache_mode()
        choice = _backend_choice("crawl", backend)
        self.key = f"crawl|{choice}|{self.depth}|{self.limit}|{_normalize_url(self.url)}"
        self.start = time.perf_counter()

    def from_cache(self) -> CrawlResult | None:
        if self.mode in ("read_write", "replay"):
            found = _cache_get(self.key, _ttl() if self.mode == "read_write" else None)
            if found is not None:
                pages = [longtext.apply(page_from_record(p)) for p in found[0]["pages"]]
                return self._result(pages, found[1], [], cached=True)
        if self.mode == "replay":
            raise _miss(f"crawl of {self.url} (depth {self.depth}, limit {self.limit})")
        return None

    def call(self, provider: WebSearchProvider) -> list[Page]:
        env = call_maybe_async(provider.crawl, self.url, depth=self.depth, limit=self.limit)
        return parse_crawl_envelope(env, str(provider.name))[: self.limit]

    async def acall(self, provider: WebSearchProvider) -> list[Page]:
        env = await acall_maybe_async(provider.crawl, self.url, depth=self.depth, limit=self.limit)
        return parse_crawl_envelope(env, str(provider.name))[: self.limit]

    def _result(
        self, pages: list[Page], provider: str, attempts: list[Attempt], *, cached: bool
    ) -> CrawlResult:
        return CrawlResult(
            start_url=self.url,
            pages=pages,
            provider=provider,
            attempts=attempts,
            duration_s=round(time.perf_counter() - self.start, 6),
            cached=cached,
        )

    def finish(self, pages: list[Page], provider: str, attempts: list[Attempt]) -> CrawlResult:
        if self.mode in ("read_write", "refresh"):
            _cache_put(self.key, "crawl", provider, {"pages": [asdict(p) for p in pages]})
        _index_pages(pages, provider)
        return self._result([longtext.apply(p) for p in pages], provider, attempts, cached=False)


def crawl(url: str, *, depth: int = 2, limit: int = 20, backend: str | None = None) -> CrawlResult:
    """Crawl from ``url`` (same site, breadth-first) with a provider that supports crawl."""
    request = _Crawl(url, depth, limit, backend)
    cached = request.from_cache()
    if cached is not None:
        return cached
    return request.finish(*selection.run("crawl", request.call, backend=backend))


async def acrawl(url: str, *, depth: int = 2, limit: int = 20, backend: str | None = None) -> CrawlResult:
    """Async twin of ``crawl``."""
    request = _Crawl(url, depth, limit, backend)
    cached = request.from_cache()
    if cached is not None:
        return cached
    return request.finish(*await selection.arun("crawl", request.acall, backend=backend))
