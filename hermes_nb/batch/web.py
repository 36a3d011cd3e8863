"""``search_many`` and ``extract_many``: web calls over the batch runner, as results or a DataFrame.

DataFrame columns (``as_frame=True``):

* ``search_many``: query, position, title, url, domain, description, provider, cached,
  error_code, error — one row per hit; a failed or empty query gives one row without a hit.
* ``extract_many``: url, title, chars, truncated, full_text_path, provider, cached, error_code,
  error, content — one row per URL.

Both return a ``BatchResult`` (a list in input order with ``.ok``, ``.errors``, ``.to_pandas()``),
take ``no_cache`` / ``refresh`` like the single calls, and honour the answering provider's
``batch.<provider>.rps`` / ``batch.<provider>.in_flight``. With ``stream=True`` they return an
iterator of ``(index, result)`` pairs in completion order instead. Their async twins
``asearch_many`` / ``aextract_many`` run on the running event loop (``batch.tasks.AsyncBatch``:
``await`` it, or ``async for`` it to stream).
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from typing import Any

from hermes_nb import web
from hermes_nb.batch.limits import RateLimit, provider_limits
from hermes_nb.batch.live import view_for
from hermes_nb.batch.result import BatchError, collected
from hermes_nb.batch.runner import many
from hermes_nb.batch.tasks import AsyncBatch
from hermes_nb.errors import HermesError
from hermes_nb.store.replay import Mode, call_mode
from hermes_nb.web import selection
from hermes_nb.web.results import (
    ExtractResult,
    SearchResult,
    extract_result_from_record,
    search_result_from_record,
    to_record,
)

__all__ = [
    "search_many", "asearch_many", "extract_many", "aextract_many", "SEARCH_COLUMNS", "EXTRACT_COLUMNS",
]  # fmt: skip

SEARCH_COLUMNS = [
    "query", "position", "title", "url", "domain", "description", "provider", "cached", "error_code", "error",
]  # fmt: skip
EXTRACT_COLUMNS = [
    "url", "title", "chars", "truncated", "full_text_path", "provider", "cached", "error_code", "error",
    "content",
]  # fmt: skip


def _search_one(
    query: str, *, limit: int, backend: str | None, no_cache: bool, refresh: bool
) -> SearchResult:
    return web.search(query, limit, backend=backend, no_cache=no_cache, refresh=refresh)


def _extract_one(url: str, **options: Any) -> ExtractResult:
    """``hn.extract`` of one URL with the batch's keywords (backend, max_chars, no_cache, refresh, images)."""
    return web.extract([url], **options)


async def _asearch_one(
    query: str, *, limit: int, backend: str | None, no_cache: bool, refresh: bool
) -> SearchResult:
    return await web.asearch(query, limit, backend=backend, no_cache=no_cache, refresh=refresh)


async def _aextract_one(url: str, **options: Any) -> ExtractResult:
    """Async twin of ``_extract_one``."""
    return await web.aextract([url], **options)


def _limits(capability: str, backend: str | None, concurrency: int, mode: Mode) -> tuple[RateLimit, int]:
    """The rate limit and concurrency of the provider that will answer (none while replaying)."""
    return provider_limits(
        lambda: selection.resolve(capability, backend),
        concurrency,
        mode,
        unresolved=lambda: selection.configured_backend(capability, backend)[0],
    )


def _has_async_path(capability: str, backend: str | None, mode: Mode) -> bool:
    """Whether the provider that will answer has an ``async def`` path (else tasks only add hand-overs)."""
    if not mode.calls:
        return False
    try:
        provider = selection.resolve(capability, backend)
    except HermesError:
        return False  # every item will report why
    return inspect.iscoroutinefunction(getattr(provider, capability, None))


def _search_rows(queries: Sequence[str], results: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for query, result in zip(queries, results, strict=True):
        if isinstance(result, BatchError):
            rows.append({"query": query, "error_code": result.code, "error": result.message})
            continue
        if not result.hits:
            rows.append({"query": query, "provider": result.provider, "cached": result.cached})
        for hit in result.hits:
            rows.append(
                {**hit.to_dict(), "domain": hit.domain, "query": query, "provider": result.provider,
                 "cached": result.cached}
            )  # fmt: skip
    return rows


def search_many(
    queries: Iterable[str],
    limit: int = 5,
    *,
    backend: str | None = None,
    executor: Executor | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    stream: bool = False,
) -> Any:
    """``hn.search`` for each query: a ``BatchResult`` of ``SearchResult``/``BatchError``, or a DataFrame.

    ``stream=True``: an iterator of ``(index, result)`` in completion order, every query once.
    """
    todo = list(queries)
    rate, bound = _limits("search", backend, concurrency, call_mode(no_cache=no_cache, refresh=refresh))
    one = functools.partial(_search_one, limit=limit, backend=backend, no_cache=no_cache, refresh=refresh)
    options: dict[str, Any] = {
        "executor": executor, "concurrency": bound, "rate": rate, "job": job,
        "encode": to_record, "decode": search_result_from_record,
        "view": view_for("search", progress, todo, _search_rows, SEARCH_COLUMNS, as_frame, rate.provider),
    }  # fmt: skip
    return many(
        one, todo, stream=stream, as_frame=as_frame, rows=_search_rows, columns=SEARCH_COLUMNS, **options
    )


def asearch_many(
    queries: Iterable[str],
    limit: int = 5,
    *,
    backend: str | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    no_cache: bool = False,
    refresh: bool = False,
) -> AsyncBatch:
    """Async twin of ``search_many``: ``await`` it for the result, or ``async for index, result in …``."""
    kw: dict[str, Any] = {"limit": limit, "backend": backend, "no_cache": no_cache, "refresh": refresh}
    return _async_twin(
        "search", list(queries), functools.partial(_asearch_one, **kw), functools.partial(_search_one, **kw),
        backend=backend, concurrency=concurrency, mode=call_mode(no_cache=no_cache, refresh=refresh),
        progress=progress, as_frame=as_frame, job=job, rows=_search_rows, columns=SEARCH_COLUMNS,
        decode=search_result_from_record,
    )  # fmt: skip


def _async_twin(
    capability: str, todo: list[Any], one: Any, sync_one: Any, *, backend: str | None, concurrency: int,
    mode: Mode, progress: bool | None, as_frame: bool, job: str | None, rows: Any, columns: Any, decode: Any,
) -> AsyncBatch:  # fmt: skip
    """The ``AsyncBatch`` of an async twin: ``one`` as tasks when the provider has an async path,
    else ``sync_one`` on the pooled threads; the mode is computed once by the caller."""
    rate, bound = _limits(capability, backend, concurrency, mode)

    result = functools.partial(collected, items=todo, rows=rows, columns=columns, as_frame=as_frame)
    sync = None if _has_async_path(capability, backend, mode) else sync_one
    return AsyncBatch(
        one, todo, concurrency=bound, rate=rate, job=job, encode=to_record, decode=decode,
        view=view_for(capability, progress, todo, rows, columns, as_frame, rate.provider),
        result=result, sync_func=sync,
    )  # fmt: skip


def _extract_rows(urls: Sequence[str], results: list[Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for url, result in zip(urls, results, strict=True):
        if isinstance(result, BatchError):
            rows.append({"url": url, "error_code": result.code, "error": result.message})
            continue
        for page in result.pages:
            rows.append(
                {
                    "url": page.url,
                    "title": page.title,
                    "chars": page.total_chars or len(page.content),
                    "truncated": page.truncated,
                    "full_text_path": page.full_text_path,
                    "provider": result.provider,
                    "cached": result.cached,
                    "error_code": page.error_code,
                    "error": page.error,
                    "content": page.content,
                }
            )
    return rows


def extract_many(
    urls: Iterable[str],
    *,
    backend: str | None = None,
    max_chars: int | None = None,
    executor: Executor | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    stream: bool = False,
    images: bool | None = None,
) -> Any:
    """``hn.extract`` of each URL alone: a ``BatchResult`` of ``ExtractResult``/``BatchError``, or a frame.

    ``stream=True``: an iterator of ``(index, result)`` in completion order, every URL once.
    ``images``: as in ``hn.extract`` (``None`` follows ``web.extract.images``).
    """
    todo = list(urls)
    rate, bound = _limits("extract", backend, concurrency, call_mode(no_cache=no_cache, refresh=refresh))
    one = functools.partial(
        _extract_one, backend=backend, max_chars=max_chars, no_cache=no_cache, refresh=refresh, images=images
    )
    options: dict[str, Any] = {
        "executor": executor, "concurrency": bound, "rate": rate, "job": job,
        "encode": to_record, "decode": extract_result_from_record,
        "view": view_for("extract", progress, todo, _extract_rows, EXTRACT_COLUMNS, as_frame, rate.provider),
    }  # fmt: skip
    return many(
        one, todo, stream=stream, as_frame=as_frame, rows=_extract_rows, columns=EXTRACT_COLUMNS, **options
    )


def aextract_many(
    urls: Iterable[str],
    *,
    backend: str | None = None,
    max_chars: int | None = None,
    concurrency: int = 4,
    progress: bool | None = None,
    as_frame: bool = False,
    job: str | None = None,
    no_cache: bool = False,
    refresh: bool = False,
    images: bool | None = None,
) -> AsyncBatch:
    """Async twin of ``extract_many``: ``await`` it for the result, or ``async for index, result in …``."""
    kw: dict[str, Any] = {
        "backend": backend, "max_chars": max_chars, "no_cache": no_cache, "refresh": refresh,
        "images": images,
    }  # fmt: skip
    return _async_twin(
        "extract", list(urls), functools.partial(_aextract_one, **kw), functools.partial(_extract_one, **kw),
        backend=backend, concurrency=concurrency, mode=call_mode(no_cache=no_cache, refresh=refresh),
        progress=progress, as_frame=as_frame, job=job, rows=_extract_rows, columns=EXTRACT_COLUMNS,
        decode=extract_result_from_record,
    )  # fmt: skip
