"""Tavily: ``POST /search``, ``/extract`` and ``/crawl`` with ``Authorization: Bearer``."""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    RateLimitedError,
    WebSearchProvider,
    config,
    failed_page,
    get_client,
)

KEY_ENV = "TAVILY_API_KEY"
BASE_URL_ENV = "TAVILY_BASE_URL"
DEFAULT_BASE_URL = "https://api.tavily.com"
MAX_RESULTS = 20  # /search max_results cap
MAX_EXTRACT_URLS = 20  # URLs per /extract call


class TavilyProvider(WebSearchProvider):
    """Tavily search, extract and crawl; failed URLs come back as per-URL errors."""

    tier = "commercial"
    keyless_capabilities = ("search", "extract")  # keyless mode: search and extract, not crawl

    @property
    def name(self) -> str:
        return "tavily"

    @property
    def display_name(self) -> str:
        return "Tavily"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def is_keyless_available(self) -> bool:
        return True  # Tavily's keyless mode serves search and extract (not crawl) at a low rate

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        count = max(1, min(int(limit), MAX_RESULTS))
        body = self._post("/search", {"query": query, "max_results": count, "search_depth": "basic"})
        hits = []
        for item in _list(body, "results"):
            if not item.get("url"):
                continue
            hits.append(
                {
                    "title": str(item.get("title") or item["url"]),
                    "url": str(item["url"]),
                    "description": str(item.get("content") or ""),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        data: dict[str, Any] = {"web": hits, "effective_limit": count}
        if body.get("answer"):
            data["answer"] = str(body["answer"])
        return {"success": True, "data": data}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        fmt = kwargs.get("format") if kwargs.get("format") in ("markdown", "text") else "markdown"
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(urls), MAX_EXTRACT_URLS):
            chunk = urls[start : start + MAX_EXTRACT_URLS]
            body = self._post("/extract", {"urls": chunk, "format": fmt, "extract_depth": "basic"})
            for item in _list(body, "results"):
                if item.get("url"):
                    found[str(item["url"])] = _page(item)
            for item in _list(body, "failed_results") + _list(body, "failed_urls"):
                url = str(item.get("url") or "")
                if url and url not in found:
                    reason = str(item.get("error") or "Tavily could not extract this URL")
                    found[url] = failed_page(url, reason)
        return [found.get(url) or failed_page(url, "Tavily returned nothing for this URL") for url in urls]

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        depth = kwargs.get("depth", 2)
        payload: dict[str, Any] = {"url": url, "limit": int(kwargs.get("limit", 20)), "format": "markdown"}
        if isinstance(depth, str):  # Hermes's former crawl() took depth="basic"|"advanced"
            payload["extract_depth"] = depth
        else:
            payload["max_depth"] = max(1, int(depth))
        if kwargs.get("instructions"):
            payload["instructions"] = str(kwargs["instructions"])
        body = self._post("/crawl", payload)
        return {"results": [_page(item) for item in _list(body, "results") if item.get("url")]}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "paid / free credits",
            "tag": "Search, extract and crawl for agents.",
            "env_vars": [{"key": KEY_ENV, "prompt": "Tavily API key", "url": "https://app.tavily.com/"}],
        }

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        key = config.resolve_key(KEY_ENV)
        if not key and path == "/crawl":
            raise ProviderNotConfiguredError(
                f"Tavily crawls need an API key: set {KEY_ENV} (https://app.tavily.com/) "
                f"or call hn.config.set_key('{KEY_ENV}', ...); keyless mode only searches and extracts",
                provider=self.name,
            )
        auth = {"Authorization": f"Bearer {key}"} if key else {"X-Tavily-Access-Mode": "keyless"}
        base = config.get("web.tavily.base_url") or config.get_env_value(BASE_URL_ENV) or DEFAULT_BASE_URL
        body = get_client(self.name).post_json(
            f"{str(base).rstrip('/')}{path}",
            json=payload,
            headers=auth,
            error_map=_error_for,
        )
        if not isinstance(body, dict):
            raise ParseError(f"Tavily {path} answered with JSON that is not an object", provider=self.name)
        return body


def _list(body: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = body.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _page(item: dict[str, Any]) -> dict[str, Any]:
    text = str(item.get("raw_content") or item.get("content") or "")
    metadata = {k: item[k] for k in ("images", "favicon") if item.get(k)}
    metadata["source"] = "tavily"
    return {
        "url": str(item["url"]),
        "title": str(item.get("title") or ""),
        "content": text,
        "raw_content": text,
        "metadata": metadata,
    }



def _error_for(resp: httpx.Response) -> HermesError | None:
    """Tavily's statuses: 401 bad key, 432 plan limit, 433 pay-as-you-go limit, 400 bad request."""
    status = resp.status_code
    detail = _detail(resp)
    if status in (401, 403):
        return ProviderAuthError(
            f"Tavily rejected the API key ({detail or status}); check {KEY_ENV}",
            provider="tavily", status=status,
        )
    if status in (432, 433):
        which = "plan" if status == 432 else "pay-as-you-go"
        return RateLimitedError(
            f"Tavily {which} limit reached ({detail or status}); upgrade the plan or wait for the reset",
            provider="tavily", status=status, retryable=False,
        )
    if status == 400:
        return InvalidInputError(f"Tavily refused the request: {detail or 'bad request'}", provider="tavily",
                                 status=status)
    if status == 429 and _keyless_wait(resp) is not None:
        return RateLimitedError(f"Tavily keyless limit reached ({detail}); set {KEY_ENV} for more",
                                provider="tavily", status=status, retry_after=_keyless_wait(resp))
    return None


def _keyless_wait(resp: httpx.Response) -> float | None:
    """``retry_after_seconds`` of a keyless-mode rejection (its delay is in the body)."""
    try:
        error = resp.json().get("error")
        return float(error["retry_after_seconds"])
    except (ValueError, AttributeError, KeyError, TypeError):
        return None


def _detail(resp: httpx.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return ""
    if not isinstance(body, dict):
        return ""
    detail = body.get("detail")
    if isinstance(detail, dict):
        return str(detail.get("error") or "")
    if isinstance(detail, str):
        return detail
    error = body.get("error")
    if isinstance(error, dict):
        return str(error.get("message") or "")
    return str(error or "")
