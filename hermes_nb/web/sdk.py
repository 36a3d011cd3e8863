"""The web SDK facade: ``search``, ``extract``, ``crawl`` and their async twins.

Each call validates its input, consults the store according to ``cache.mode``, asks
``hermes_nb.web.selection`` for the provider(s), turns the provider's Hermes envelope into a typed
result and records which provider answered and what was tried.

How a call uses the cache (``cache.mode``, replay cassettes, the per-call ``no_cache=True`` and
``refresh=True``) is decided by ``hermes_nb.store.replay``; cached results carry ``cached_at``.
Answers of ``offline`` providers (``local`` search) are a view of the store itself: they are
recorded into cassettes but never cached, so a re-index shows at once.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Sequence
from dataclasses import asdict, replace
from typing import Any

from hermes_nb import config
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.notices import note
from hermes_nb.plugins.deadline import acall_with_deadline, call_with_deadline, deadline_for
from hermes_nb.plugins.events import announces
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.store import get_store, replay, requests
from hermes_nb.store.cassette import iso
from hermes_nb.store.replay import CACHE_MODES, Mode, cache_mode, call_mode
from hermes_nb.web import local_files, longtext, selection
from hermes_nb.web.envelopes import parse_crawl_envelope, parse_extract_envelope, parse_search_envelope
from hermes_nb.web.extraction import formats
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

MAX_LIMIT = 100
MAX_CRAWL_PAGES = 500
#: The tier of providers that answer from the store itself: their answers are never cached.
_STORE_VIEW_TIER = "offline"


def _cacheable(provider: WebSearchProvider) -> bool:
    """False for a provider whose answers are a view of the store (``local``): kept, they go stale."""
    return provider.tier != _STORE_VIEW_TIER


def index_pages(pages: Sequence[Page], provider: str) -> None:
    """Keep successful pages' full text in the store so ``local`` search finds them offline."""
    try:
        store = get_store()
        for page in pages:
            if page.error is None:
                text = page.raw_content or page.content
                store.put_page(page.url, page.title, text, metadata=page.metadata, provider=provider)
    except HermesError as exc:
        log.warning("page index skipped: %s", exc)


def _backend_choice(capability: str, backend: str | None) -> str:
    name, _ = selection.configured_backend(capability, backend)
    return name or "auto"


def _no_hits(value: tuple[list[SearchHit], int, list[str]]) -> bool:
    """A search answer with no hits (a fallback chain moves on)."""
    return not value[0]


def _no_pages(pages: list[Page]) -> bool:
    """An extract or crawl answer without one usable page (a fallback chain moves on)."""
    return not any(p.error is None and (p.content or p.raw_content) for p in pages)


def _check_query(query: object) -> str:
    if not isinstance(query, str) or not query.strip():
        raise InvalidInputError("search needs a non-empty query string, e.g. hn.search('python packaging')")
    return query.strip()


def _check_int(name: str, value: object, low: int, high: int) -> int:
    """``value`` as an int in ``low..``; below ``low`` is an error, above ``high`` is capped."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidInputError(f"{name} must be an integer, got {type(value).__name__}")
    try:
        number = int(value)
    except ValueError as exc:
        raise InvalidInputError(f"{name} must be an integer, got {value!r}") from exc
    if number < low:
        raise InvalidInputError(f"{name} must be at least {low}, got {number}")
    return min(high, number)


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


# --- search ----------------------------------------------------------------------------------


class _Search:
    def __init__(self, query: object, limit: object, backend: str | None, mode: Mode) -> None:
        self.query = _check_query(query)
        self.asked = _check_int("limit", limit, 1, 1 << 31)
        self.limit = min(self.asked, MAX_LIMIT)
        self.backend = backend
        self.mode = mode
        self.key = requests.search_key(_backend_choice("search", backend), self.limit, self.query)
        self.start = time.perf_counter()
        self.cacheable = True

    def from_cache(self) -> SearchResult | None:
        found = replay.read(self.key, self.mode)  # a miss while replaying raises CACHE_MISS
        if found is None:
            return None
        data, provider, created = found
        hits = [SearchHit(**hit) for hit in data["hits"]]
        _note(data.get("warnings", []))
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
            cached_at=iso(created),
        )

    def parse(self, provider: WebSearchProvider, env: Any) -> tuple[list[SearchHit], int, list[str]]:
        self.cacheable = _cacheable(provider)
        hits, extras = parse_search_envelope(env, str(provider.name), self.limit)
        effective = self.limit
        for cap in (provider.max_limit, extras.get("effective_limit")):
            if isinstance(cap, int) and not isinstance(cap, bool) and cap > 0:
                effective = min(effective, cap)
        given = extras.get("warnings") or extras.get("warning") or []
        warnings = [given] if isinstance(given, str) else [str(w) for w in given]
        if effective < self.limit:
            warnings.append(f"{provider.name} returns at most {effective} results; asked for {self.limit}")
        if self.asked > self.limit:
            warnings.append(f"at most {MAX_LIMIT} results per search; asked for {self.asked}")
        return hits, effective, warnings

    def call(self, provider: WebSearchProvider) -> tuple[list[SearchHit], int, list[str]]:
        deadline = deadline_for("search")
        env = call_with_deadline(deadline, provider.name, provider.search, self.query, self.limit)
        return self.parse(provider, env)

    async def acall(self, provider: WebSearchProvider) -> tuple[list[SearchHit], int, list[str]]:
        deadline = deadline_for("search")
        env = await acall_with_deadline(deadline, provider.name, provider.search, self.query, self.limit)
        return self.parse(provider, env)

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
        record = {"hits": [h.to_dict() for h in hits], "effective_limit": effective, "warnings": warnings}
        replay.keep(self.key, provider, record, self.mode, store=self.cacheable)
        _note(warnings)
        return result


def _note(warnings: list[str]) -> None:
    """The result's notes, shown even when the result is assigned and never displayed."""
    for warning in warnings:
        note(str(warning))



def _searched(result: SearchResult) -> dict[str, Any]:
    return {"query": result.query, "provider": result.provider, "results": len(result.hits),
            "cached": result.cached}  # fmt: skip


def _extracted(result: ExtractResult) -> dict[str, Any]:
    failed = sum(1 for page in result.pages if getattr(page, "error", None))
    return {"urls": [page.url for page in result.pages], "provider": result.provider,
            "pages": len(result.pages) - failed, "failed": failed, "cached": result.cached}  # fmt: skip


def _crawled(result: CrawlResult) -> dict[str, Any]:
    return {"url": result.start_url, "provider": result.provider, "pages": len(result.pages),
            "cached": result.cached}  # fmt: skip


@announces("search_finished", _searched)  # plugins' ctx.subscribe("search_finished", ...) hear of it
@config.consistent()  # one look at config.yaml per call
def search(
    query: str, limit: int = 5, *, backend: str | None = None, no_cache: bool = False, refresh: bool = False
) -> SearchResult:
    """Search the web with the selected provider; ``limit`` is clamped to 1..100.

    ``no_cache=True`` neither reads nor writes the cache; ``refresh=True`` asks again and overwrites.
    """
    request = _Search(query, limit, backend, call_mode(no_cache=no_cache, refresh=refresh))
    cached = request.from_cache()
    if cached is not None:
        return cached
    return request.finish(*selection.run("search", request.call, backend=backend, empty=_no_hits))


@announces("search_finished", _searched)
async def asearch(
    query: str, limit: int = 5, *, backend: str | None = None, no_cache: bool = False, refresh: bool = False
) -> SearchResult:
    """Async twin of ``search``."""
    with config.consistent():
        request = _Search(query, limit, backend, call_mode(no_cache=no_cache, refresh=refresh))
        cached = request.from_cache()
        if cached is not None:
            return cached
        return request.finish(*await selection.arun("search", request.acall, backend=backend, empty=_no_hits))


# --- extract ---------------------------------------------------------------------------------


def _check_max_chars(max_chars: object) -> int | None:
    """``max_chars`` within the window kept inline; a value outside it is noted, never silently moved."""
    if max_chars is None:
        return None
    number = _check_int("max_chars", max_chars, 1, 1 << 62)
    budget = longtext.char_budget(number)
    if budget != number:
        where = "below the floor" if budget > number else "above the ceiling"
        note(f"max_chars={number:,} is {where} of {budget:,} characters kept inline; using {budget:,}")
    return budget


class _Extract:
    def __init__(
        self,
        urls: object,
        backend: str | None,
        max_chars: int | None,
        mode: Mode,
        fmt: str = "markdown",
        images: object = None,
    ) -> None:
        self.urls = _check_urls(urls)
        self.max_chars = max_chars
        self.fmt = fmt
        self.mode = mode
        self.images, self.options = _figures(images)
        self.choice = _backend_choice("extract", backend)
        self.start = time.perf_counter()
        unique = list(dict.fromkeys(self.urls))
        # pages do not expire; a miss while replaying raises CACHE_MISS
        hits = replay.read_many([self._key(url) for url in unique], self.mode, expires=False)
        self.found: dict[str, tuple[Page, str, float]] = {}
        for url in unique:
            hit = hits.get(self._key(url))
            if hit is not None:
                self.found[url] = (page_from_record(hit[0]), hit[1], hit[2])
        self.missing = [u for u in unique if u not in self.found]

    def _key(self, url: str) -> str:
        return requests.extract_key(self.choice, url, images=self.images)

    def call(self, provider: WebSearchProvider) -> list[Page]:
        env = call_with_deadline(
            deadline_for("extract"), provider.name, provider.extract, list(self.missing), format="markdown",
            **self.options,
        )
        return parse_extract_envelope(env, self.missing, str(provider.name))

    async def acall(self, provider: WebSearchProvider) -> list[Page]:
        env = await acall_with_deadline(
            deadline_for("extract"), provider.name, provider.extract, list(self.missing), format="markdown",
            **self.options,
        )
        return parse_extract_envelope(env, self.missing, str(provider.name))

    def finish(self, pages: list[Page], provider: str | None, attempts: list[Attempt]) -> ExtractResult:
        fresh = dict(zip(self.missing, pages, strict=True))
        for url, page in fresh.items():
            if page.error is None:
                replay.keep(self._key(url), provider or "", asdict(page), self.mode)
        if provider is not None:
            index_pages(pages, provider)
        out = []
        for url in self.urls:
            page = fresh[url] if url in fresh else self.found[url][0]
            out.append(longtext.apply(_in_format(page, self.fmt), self.max_chars))
        if provider is None:
            provider = self.found[self.urls[0]][1]
        return ExtractResult(
            pages=out,
            provider=provider,
            attempts=attempts,
            duration_s=round(time.perf_counter() - self.start, 6),
            cached=not self.missing,
            cached_at="" if self.missing else iso(min(found[2] for found in self.found.values())),
        )


def _figures(images: object) -> tuple[bool, dict[str, bool]]:
    """Whether pages are read with their figures (``images``, else ``web.extract.images``), and the
    keywords that ask the provider so: ``images=`` goes along when it is on, or when this call turns
    the setting off (``direct`` reads the setting when the keyword is absent)."""
    configured = bool(config.get("web.extract.images", False))
    if images is None:
        return configured, {"images": True} if configured else {}
    if not isinstance(images, bool):
        raise InvalidInputError(f"images must be True or False, not {images!r}")
    return images, {"images": images} if images or configured else {}


def _check_format(value: object) -> str:
    try:
        return formats.check_format(value if isinstance(value, str) else repr(value))
    except ValueError as exc:
        raise InvalidInputError(str(exc)) from None


def _in_format(page: Page, fmt: str) -> Page:
    """A copy of ``page`` with its (cached, Markdown) content in ``fmt``; errors stay as they are."""
    if fmt == formats.DEFAULT_FORMAT or page.error is not None:
        return replace(page, metadata=dict(page.metadata))
    full = formats.render(page.raw_content or page.content, fmt)  # longtext reads the full text
    return replace(page, content=full, raw_content=full, metadata={**page.metadata, "format": fmt})


@announces("extract_finished", _extracted)  # plugins' ctx.subscribe("extract_finished", ...) hear of it
@config.consistent()  # one look at config.yaml per call
def extract(
    urls: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    backend: str | None = None,
    max_chars: int | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    format: str = "markdown",  # noqa: A002  # the name users pass (hn.extract(url, format="text"))
    images: bool | None = None,
) -> ExtractResult:
    """Extract the text of each URL (per-URL errors, input order); long pages are truncated and stored.

    ``no_cache=True`` neither reads nor writes the cache; ``refresh=True`` fetches again and overwrites.
    A ``pathlib.Path`` is a local file, read through the same converters (PDF, HTML, Markdown, CSV …).
    ``max_chars`` outside 2,000..500,000 is noted (a ``HermesWarning``) and moved to the bound.
    ``format``: ``"markdown"`` (default), ``"text"`` (plain text: headings on their own lines,
    paragraphs separated by blank lines) or ``"html"`` (the cleaned main-content HTML); each is
    derived from the Markdown the cache stores, so one cached extraction serves every format.
    ``images``: the page's figures in the Markdown, ``![alt](src)`` where the words around them place
    them (``direct`` and local files; other providers are asked with ``images=True`` and send what
    their service sends). ``None`` (default) follows ``web.extract.images``. Pages read with and
    without figures are cached apart.
    """
    max_chars = _check_max_chars(max_chars)
    fmt = _check_format(format)
    if local_files.has_paths(urls):
        figures = _figures(images)[0]
        return local_files.extract_mixed(
            urls,
            lambda rest: extract(
                rest, backend=backend, max_chars=max_chars, no_cache=no_cache, refresh=refresh, format=fmt,
                images=figures,
            ),
            max_chars,
            fmt,
            images=figures,
        )
    mode = call_mode(no_cache=no_cache, refresh=refresh)
    request = _Extract(urls, backend, max_chars, mode, fmt, images)
    if not request.missing:
        return request.finish([], None, [])
    return request.finish(*selection.run("extract", request.call, backend=backend, empty=_no_pages))


@announces("extract_finished", _extracted)
async def aextract(
    urls: str | os.PathLike[str] | Sequence[str | os.PathLike[str]],
    *,
    backend: str | None = None,
    max_chars: int | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    format: str = "markdown",  # noqa: A002  # as in extract
    images: bool | None = None,
) -> ExtractResult:
    """Async twin of ``extract``."""
    max_chars = _check_max_chars(max_chars)
    fmt = _check_format(format)
    with config.consistent():
        if local_files.has_paths(urls):  # files are read in a worker thread; URLs go the usual way
            return await asyncio.to_thread(
                extract, urls, backend=backend, max_chars=max_chars, no_cache=no_cache, refresh=refresh,
                format=fmt, images=images,
            )
        mode = call_mode(no_cache=no_cache, refresh=refresh)
        request = _Extract(urls, backend, max_chars, mode, fmt, images)
        if not request.missing:
            return request.finish([], None, [])
        answer = await selection.arun("extract", request.acall, backend=backend, empty=_no_pages)
        return request.finish(*answer)


# --- crawl -----------------------------------------------------------------------------------


class _Crawl:
    def __init__(
        self,
        url: object,
        depth: object,
        limit: object,
        backend: str | None,
        mode: Mode,
        images: object = None,
    ) -> None:
        self.url = _check_url(url)
        self.depth = _check_int("depth", depth, 0, 10)
        self.limit = _check_int("limit", limit, 1, MAX_CRAWL_PAGES)
        self.mode = mode
        self.images, self.options = _figures(images)
        choice = _backend_choice("crawl", backend)
        self.key = requests.crawl_key(choice, self.depth, self.limit, self.url, images=self.images)
        self.start = time.perf_counter()

    def from_cache(self) -> CrawlResult | None:
        found = replay.read(self.key, self.mode)  # a miss while replaying raises CACHE_MISS
        if found is None:
            return None
        pages = [longtext.apply(page_from_record(p)) for p in found[0]["pages"]]
        return self._result(pages, found[1], [], cached_at=iso(found[2]))

    def call(self, provider: WebSearchProvider) -> list[Page]:
        deadline = deadline_for("crawl", pages=self.limit)
        env = call_with_deadline(deadline, provider.name, provider.crawl, self.url, depth=self.depth,
                                 limit=self.limit, **self.options)
        return parse_crawl_envelope(env, str(provider.name), self.limit)

    async def acall(self, provider: WebSearchProvider) -> list[Page]:
        deadline = deadline_for("crawl", pages=self.limit)
        env = await acall_with_deadline(deadline, provider.name, provider.crawl, self.url,
                                        depth=self.depth, limit=self.limit, **self.options)
        return parse_crawl_envelope(env, str(provider.name), self.limit)

    def _result(
        self, pages: list[Page], provider: str, attempts: list[Attempt], *, cached_at: str = ""
    ) -> CrawlResult:
        return CrawlResult(
            start_url=self.url,
            pages=pages,
            provider=provider,
            attempts=attempts,
            duration_s=round(time.perf_counter() - self.start, 6),
            cached=bool(cached_at),
            cached_at=cached_at,
        )

    def finish(self, pages: list[Page], provider: str, attempts: list[Attempt]) -> CrawlResult:
        replay.keep(self.key, provider, {"pages": [asdict(p) for p in pages]}, self.mode)
        index_pages(pages, provider)
        return self._result([longtext.apply(p) for p in pages], provider, attempts)


@announces("crawl_finished", _crawled)  # plugins' ctx.subscribe("crawl_finished", ...) hear of it
@config.consistent()  # one look at config.yaml per call
def crawl(
    url: str,
    *,
    depth: int = 2,
    limit: int = 20,
    backend: str | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    images: bool | None = None,
) -> CrawlResult:
    """Crawl from ``url`` (same site, breadth-first) with a provider that supports crawl.

    ``no_cache=True`` neither reads nor writes the cache; ``refresh=True`` crawls again and overwrites.
    ``images``: each page's figures in its Markdown, as in ``extract`` (``None``: ``web.extract.images``).
    """
    request = _Crawl(url, depth, limit, backend, call_mode(no_cache=no_cache, refresh=refresh), images)
    cached = request.from_cache()
    if cached is not None:
        return cached
    return request.finish(*selection.run("crawl", request.call, backend=backend, empty=_no_pages))


@announces("crawl_finished", _crawled)
async def acrawl(
    url: str,
    *,
    depth: int = 2,
    limit: int = 20,
    backend: str | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    images: bool | None = None,
) -> CrawlResult:
    """Async twin of ``crawl``."""
    with config.consistent():
        request = _Crawl(url, depth, limit, backend, call_mode(no_cache=no_cache, refresh=refresh), images)
        cached = request.from_cache()
        if cached is not None:
            return cached
        return request.finish(*await selection.arun("crawl", request.acall, backend=backend, empty=_no_pages))
