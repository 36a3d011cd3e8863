"""Hermes envelopes → typed results: the search, extract and crawl contracts a provider must answer with.

An answer outside the contract (a list for search, ``data.webz``, ``42`` for extract, rows that are not
objects) is a ``PARSE_ERROR`` naming the provider, what came back and the expected shape
(``hermes_nb.plugins.contracts``). Answers longer than the limit are cut without being walked.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_nb.errors import ContentFetchError, ProviderError
from hermes_nb.plugins.contracts import violation
from hermes_nb.web.results import NO_RESULT_FOR_URL, Page, SearchHit, first_heading

__all__ = ["parse_search_envelope", "parse_extract_envelope", "parse_crawl_envelope"]


def _failure(env: Any, provider: str) -> None:
    if isinstance(env, dict) and env.get("success") is False:
        message = str(env.get("error") or "provider reported failure without a message")
        raise ProviderError(f"{provider}: {message}", provider=provider, retryable=True)


def _text(value: Any) -> str:
    return value.strip() if isinstance(value, str) else ("" if value is None else str(value))


def parse_search_envelope(env: Any, provider: str, limit: int) -> tuple[list[SearchHit], dict[str, Any]]:
    """Hits from a Hermes search envelope plus its ``data`` extras (``effective_limit``, ``warnings``)."""
    _failure(env, provider)
    if not isinstance(env, dict):
        problem = f"the answer is a {type(env).__name__}, not an envelope object"
        raise violation(provider, "search", env, problem)
    data = env.get("data")
    if not isinstance(data, dict):
        raise violation(provider, "search", env, "'data' is missing or not an object")
    items = data.get("web")
    if not isinstance(items, list):
        keys = ", ".join(repr(k) for k in list(data)[:8]) or "none"
        problem = f"'data.web' is missing or not a list (data has keys {keys})"
        raise violation(provider, "search", env, problem)
    extras = {k: v for k, v in data.items() if k != "web"}
    for key in ("warning", "warnings"):
        if key in env and key not in extras:
            extras[key] = env[key]
    hits: list[SearchHit] = []
    for index, item in enumerate(items):
        if len(hits) >= limit:
            break  # a provider that ignores the limit: the rest is never looked at
        if not isinstance(item, dict):
            problem = f"data.web[{index}] is a {type(item).__name__}, not a result object"
            raise violation(provider, "search", env, problem)
        url = _text(item.get("url") or item.get("link") or item.get("href"))
        if not url:
            continue
        title = _text(item.get("title")) or url
        description = _text(
            item.get("description") or item.get("snippet") or item.get("content") or item.get("body")
        )
        meta = item.get("metadata")  # e.g. xAI marks its citations model_generated
        hits.append(SearchHit(title=title, url=url, description=description, position=len(hits) + 1,
                              metadata=dict(meta) if isinstance(meta, dict) else {}))
    return hits, extras


def _page_from_item(item: dict[str, Any], url: str) -> Page:
    error = item.get("error")
    raw_meta = item.get("metadata")
    metadata: dict[str, Any] = dict(raw_meta) if isinstance(raw_meta, dict) else {}
    if item.get("blocked_by_policy"):
        metadata = {**metadata, "blocked_by_policy": item["blocked_by_policy"]}
    given = item.get("content")
    content = given if isinstance(given, str) else ""
    raw = item.get("raw_content")
    text = raw if isinstance(raw, str) and raw else content
    return Page(
        url=url,
        title=_text(item.get("title")) or ("" if error else first_heading(text)),  # the card's title too
        content=content,
        raw_content=raw if isinstance(raw, str) and raw else None,
        metadata=dict(metadata),
        error=str(error) if error else None,
        error_code=str(item.get("code") or item.get("error_code") or ContentFetchError.code)
        if error
        else None,
    )


def _rows(env: Any, provider: str, capability: str) -> list[dict[str, Any]]:
    _failure(env, provider)
    rows: Any = None
    if isinstance(env, list):
        rows = env
    elif isinstance(env, dict):
        for key in ("data", "results"):
            value = env.get(key)
            if isinstance(value, list):
                rows = value
                break
            if isinstance(value, dict) and isinstance(value.get("results"), list):
                rows = value["results"]
                break
    if rows is None:
        raise violation(provider, capability, env, f"no list of per-URL results in a {type(env).__name__}")
    for index, row in enumerate(rows):
        if not isinstance(row, dict):
            problem = f"result {index} is a {type(row).__name__}, not an object"
            raise violation(provider, capability, env, problem)
    return list(rows)


def parse_extract_envelope(env: Any, urls: Sequence[str], provider: str = "provider") -> list[Page]:
    """Pages in input order from a bare list, ``{"data": [...]}`` or ``{"results": [...]}``."""
    rows = _rows(env, provider, "extract")
    by_url: dict[str, list[dict[str, Any]]] = {}
    unmatched: list[dict[str, Any]] = []
    for row in rows:
        key = _text(row.get("url"))
        if key:
            by_url.setdefault(key, []).append(row)
        else:
            unmatched.append(row)
    pages: list[Page] = []
    for index, url in enumerate(urls):
        candidates = by_url.get(url) or by_url.get(url.rstrip("/")) or by_url.get(url + "/")
        if candidates:
            pages.append(_page_from_item(candidates.pop(0), url))
        elif index < len(rows) and not _text(rows[index].get("url")) and rows[index] in unmatched:
            # Rows without a URL are matched by position, as Hermes re-interleaves by index.
            unmatched.remove(rows[index])
            pages.append(_page_from_item(rows[index], url))
        else:
            pages.append(Page(url=url, error=NO_RESULT_FOR_URL, error_code=ContentFetchError.code))
    return pages


def parse_crawl_envelope(env: Any, provider: str = "provider", limit: int | None = None) -> list[Page]:
    """Pages from ``{"results": [...]}`` (or a bare list) in the provider's order, at most ``limit``."""
    pages: list[Page] = []
    for row in _rows(env, provider, "crawl"):
        if limit is not None and len(pages) >= limit:
            break
        if _text(row.get("url")):
            pages.append(_page_from_item(row, _text(row["url"])))
    return pages
