"""Hermes envelopes → typed results: the search, extract and crawl contracts a provider must answer with."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_nb.errors import ParseError, ProviderError
from hermes_nb.web.results import NO_RESULT_FOR_URL, Page, SearchHit

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
    extras: dict[str, Any] = {}
    items: Any
    if isinstance(env, dict):
        data = env.get("data", env)
        if isinstance(data, dict):
            items = data.get("web", data.get("results", []))
            extras = {k: v for k, v in data.items() if k not in ("web", "results")}
        else:
            items = data
        for key in ("warning", "warnings"):
            if key in env and key not in extras:
                extras[key] = env[key]
    elif isinstance(env, list):
        items = env
    else:
        raise ParseError(
            f"{provider} returned {type(env).__name__}, not a search envelope", provider=provider
        )
    if not isinstance(items, list):
        raise ParseError(
            f"{provider} returned a search envelope whose 'web' is not a list", provider=provider
        )
    hits: list[SearchHit] = []
    for item in items:
        if not isinstance(item, dict):
            continue
        url = _text(item.get("url") or item.get("link") or item.get("href"))
        if not url:
            continue
        title = _text(item.get("title")) or url
        description = _text(
            item.get("description") or item.get("snippet") or item.get("content") or item.get("body")
        )
        meta = item.get("metadata")  # e.g. xAI marks its citations model_generated
        hits.append(SearchHit(title=title, url=url, description=description, position=0,
                              metadata=dict(meta) if isinstance(meta, dict) else {}))
        if len(hits) >= limit:
            break
    for index, hit in enumerate(hits, start=1):
        hit.position = index
    return hits, extras


def _page_from_item(item: dict[str, Any], url: str) -> Page:
    error = item.get("error")
    raw_meta = item.get("metadata")
    metadata: dict[str, Any] = dict(raw_meta) if isinstance(raw_meta, dict) else {}
    if item.get("blocked_by_policy"):
        metadata = {**metadata, "blocked_by_policy": item["blocked_by_policy"]}
    content = item.get("content")
    raw = item.get("raw_content")
    return Page(
        url=url,
        title=_text(item.get("title")),
        content=content if isinstance(content, str) else "",
        raw_content=raw if isinstance(raw, str) and raw else None,
        metadata=dict(metadata),
        error=str(error) if error else None,
        error_code=str(item.get("code") or item.get("error_code") or "CONTENT_FETCH_FAILED")
        if error
        else None,
    )


def _rows(env: Any, provider: str) -> list[Any]:
    _failure(env, provider)
    if isinstance(env, list):
        return env
    if isinstance(env, dict):
        for key in ("data", "results"):
            value = env.get(key)
            if isinstance(value, list):
                return value
            if isinstance(value, dict) and isinstance(value.get("results"), list):
                return list(value["results"])
    raise ParseError(f"{provider} returned {type(env).__name__}, not an extract envelope", provider=provider)


def parse_extract_envelope(env: Any, urls: Sequence[str], provider: str = "provider") -> list[Page]:
    """Pages in input order from a bare list, ``{"data": [...]}`` or ``{"results": [...]}``."""
    rows = [row for row in _rows(env, provider) if isinstance(row, dict)]
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
            pages.append(Page(url=url, error=NO_RESULT_FOR_URL, error_code="CONTENT_FETCH_FAILED"))
    return pages


def parse_crawl_envelope(env: Any, provider: str = "provider") -> list[Page]:
    """Pages from ``{"results": [...]}`` (or a bare list), in the order the provider gave them."""
    pages = []
    for row in _rows(env, provider):
        if isinstance(row, dict) and _text(row.get("url")):
            pages.append(_page_from_item(row, _text(row["url"])))
    return pages
