"""``search_many`` and ``extract_many``: web calls over the batch runner, as results or a DataFrame.

DataFrame columns (``as_frame=True``):

* ``search_many``: query, position, title, url, domain, description, provider, cached,
  error_code, error — one row per hit; a failed or empty query gives one row without a hit.
* ``extract_many``: url, title, chars, truncated, full_text_path, provider, cached, error_code,
  error, content — one row per URL.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from concurrent.futures import Executor
from typing import Any

from hermes_nb import web
from hermes_nb.batch.runner import BatchError, run_batch
from hermes_nb.errors import InvalidInputError
from hermes_nb.web.results import (
    ExtractResult,
    SearchResult,
    extract_result_from_record,
    search_result_from_record,
    to_record,
)

__all__ = ["search_many", "extract_many", "SEARCH_COLUMNS", "EXTRACT_COLUMNS"]

SEARCH_COLUMNS = [
    "query", "position", "title", "url", "domain", "description", "provider", "cached", "error_code", "error",
]  # fmt: skip
EXTRACT_COLUMNS = [
    "url", "title", "chars", "truncated", "full_text_path", "provider", "cached", "error_code", "error",
    "content",
]  # fmt: skip

def _search_one(query: str, *, limit: int, backend: str | None) -> SearchResult:
    return web.search(query, limit, backend=backend)


def _extract_one(url: str, *, backend: str | None, max_chars: int | None) -> ExtractResult:
    return web.extract([url], backend=backend, max_chars=max_chars)


def _frame(rows: list[dict[str, Any]], columns: list[str]) -> Any:
    try:
        import pandas as pd
    except ImportError as exc:
        raise InvalidInputError("as_frame=True needs pandas: pip install pandas") from exc
    return pd.DataFrame(rows, columns=columns)


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
) -> Any:
    """``hn.search`` for each query: a list of ``SearchResult``/``BatchError``, or a DataFrame."""
    todo = list(queries)
    results = run_batch(
        functools.partial(_search_one, limit=limit, backend=backend),
        todo,
        executor=executor,
        concurrency=concurrency,
        progress=progress,
        job=job,
        desc="search",
        encode=to_record,
        decode=search_result_from_record,
    )
    return _frame(_search_rows(todo, results), SEARCH_COLUMNS) if as_frame else results


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
) -> Any:
    """``hn.extract`` of each URL on its own: a list of ``ExtractResult``/``BatchError``, or a DataFrame."""
    todo = list(urls)
    results = run_batch(
        functools.partial(_extract_one, backend=backend, max_chars=max_chars),
        todo,
        executor=executor,
        concurrency=concurrency,
        progress=progress,
        job=job,
        desc="extract",
        encode=to_record,
        decode=extract_result_from_record,
    )
    return _frame(_extract_rows(todo, results), EXTRACT_COLUMNS) if as_frame else results
