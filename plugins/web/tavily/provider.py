"""Tavily: ``POST /search``, ``/extract`` and ``/crawl`` with ``Authorization: Bearer``."""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    KeyedHttpProvider,
    RateLimitedError,
    extracted_page,
    failed_page,
    json_objects,
    search_envelope,
    web_hits,
)

MAX_EXTRACT_URLS = 20  # URLs per /extract call


class TavilyProvider(KeyedHttpProvider):
    """Tavily search, extract and crawl; failed URLs come back as per-URL errors."""

    name = "tavily"
    display_name = "Tavily"
    tier = "commercial"
    keyless_capabilities = ("search", "extract")  # keyless mode: search and extract, not crawl
    key_env = "TAVILY_API_KEY"
    docs_url = "https://app.tavily.com/"
    default_base_url = "https://api.tavily.com"
    base_url_env = "TAVILY_BASE_URL"
    max_limit = 20  # /search max_results cap
    price_note = "paid / free credits"
    tagline = "Search, extract and crawl for agents."
    detail_fields = ("detail.error", "detail", "error.message", "error")
    credit_statuses = (432, 433)  # the plan's and the pay-as-you-go limit
    credits_hint = "upgrade the plan or wait for the reset"

    def is_keyless_available(self) -> bool:
        return True  # Tavily's keyless mode serves search and extract (not crawl) at a low rate

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        count = self.clamp(limit)
        body = self._post("/search", {"query": query, "max_results": count, "search_depth": "basic"})
        hits = web_hits(body.get("results"), count, description="content")
        return search_envelope(hits, count, answer=str(body.get("answer") or ""))

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        fmt = kwargs.get("format") if kwargs.get("format") in ("markdown", "text") else "markdown"
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(urls), MAX_EXTRACT_URLS):
            chunk = urls[start : start + MAX_EXTRACT_URLS]
            body = self._post("/extract", {"urls": chunk, "format": fmt, "extract_depth": "basic"})
            for item in json_objects(body.get("results")):
                if item.get("url"):
                    found[str(item["url"])] = _page(item)
            for item in json_objects(body.get("failed_results")) + json_objects(body.get("failed_urls")):
                url = str(item.get("url") or "")
                if url and url not in found:
                    reason = str(item.get("error") or "Tavily could not extract this URL")
                    found[url] = failed_page(url, reason)
        return [found.get(url) or failed_page(url, "Tavily returned nothing for this URL") for url in urls]

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        self.require_key(purpose="to crawl", note="; keyless mode only searches and extracts")
        depth = kwargs.get("depth", 2)
        payload: dict[str, Any] = {"url": url, "limit": int(kwargs.get("limit", 20)), "format": "markdown"}
        if isinstance(depth, str):  # Hermes's former crawl() took depth="basic"|"advanced"
            payload["extract_depth"] = depth
        else:
            payload["max_depth"] = max(1, int(depth))
        if kwargs.get("instructions"):
            payload["instructions"] = str(kwargs["instructions"])
        body = self._post("/crawl", payload)
        return {"results": [_page(item) for item in json_objects(body.get("results")) if item.get("url")]}

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        keyless = None if self.api_key() else {"X-Tavily-Access-Mode": "keyless"}
        return self.post_json(path, payload, headers=keyless)

    def error_for(self, resp: httpx.Response) -> HermesError | None:
        """Tavily's statuses: 401 bad key, 432 plan limit, 433 pay-as-you-go limit, 400 bad request;
        a keyless-mode 429 names its delay in the body."""
        wait = _keyless_wait(resp) if resp.status_code == 429 else None
        if wait is not None:
            return RateLimitedError(f"Tavily keyless limit reached ({self.error_detail(resp)}); "
                                    f"set {self.key_env} for more", retry_after=wait)
        return super().error_for(resp)


def _page(item: dict[str, Any]) -> dict[str, Any]:
    text = str(item.get("raw_content") or item.get("content") or "")
    metadata = {k: item[k] for k in ("images", "favicon") if item.get(k)}
    metadata["source"] = "tavily"
    return extracted_page(str(item["url"]), text, title=str(item.get("title") or ""), metadata=metadata)


def _keyless_wait(resp: httpx.Response) -> float | None:
    """``retry_after_seconds`` of a keyless-mode rejection (its delay is in the body)."""
    try:
        return float(resp.json()["error"]["retry_after_seconds"])
    except (ValueError, AttributeError, KeyError, TypeError):
        return None
