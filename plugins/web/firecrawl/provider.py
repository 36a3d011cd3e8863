"""Firecrawl v2: ``/v2/search``, ``/v2/scrape``, crawl jobs polled to a deadline; keyless through MCP.

Three modes: the cloud API with ``FIRECRAWL_API_KEY``; a self-hosted server at ``FIRECRAWL_API_URL``
or ``web.firecrawl.base_url`` (no key needed); with neither, Firecrawl's public MCP endpoint (search
and scrape only, rate-limited). A 429 names its delay only in the message; the error map reads it.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

import httpx

from hermes_nb.provider_api import (
    ContentError,
    ContentFetchError,
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
    WebSearchProvider,
    config,
    failed_page,
    get_client,
    mcp_call_tool,
    mcp_tool_text,
)

KEY_ENV = "FIRECRAWL_API_KEY"
BASE_URL_ENV = "FIRECRAWL_API_URL"
DEFAULT_BASE_URL = "https://api.firecrawl.dev"
DEFAULT_MCP_URL = "https://mcp.firecrawl.dev/v2/mcp"
MAX_RESULTS = 100
_RETRY_AFTER = re.compile(r"retry after (\d+(?:\.\d+)?)\s*s", re.IGNORECASE)
_DONE = ("completed", "failed", "cancelled")


class FirecrawlProvider(WebSearchProvider):
    """Firecrawl search, Markdown scrape and site crawl; a page it cannot read is a per-URL error."""

    poll_interval_s = 2.0  # between crawl status polls (tests set 0)
    keyless_capabilities = ("search", "extract")  # keyless mode: search and scrape, not crawl

    @property
    def name(self) -> str:
        return "firecrawl"

    @property
    def display_name(self) -> str:
        return "Firecrawl"

    @property
    def tier(self) -> str:
        return "self_hosted" if self._self_hosted() and not _key() else "commercial"

    def is_available(self) -> bool:
        return bool(_key()) or self._self_hosted()

    def is_keyless_available(self) -> bool:
        return True  # mcp.firecrawl.dev serves search and scrape without a key

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        count = max(1, min(int(limit), MAX_RESULTS))
        if self.is_available():
            body = self._request("POST", "/v2/search", {"query": query, "limit": count})
        else:
            body = self._mcp("firecrawl_search", {"query": query, "limit": count})
        hits = []
        for item in _web_items(body):
            if not item.get("url"):
                continue
            hits.append(
                {
                    "title": str(item.get("title") or item["url"]),
                    "url": str(item["url"]),
                    "description": str(item.get("description") or ""),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits, "effective_limit": count}}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        pages = []
        for url in urls:
            try:
                if self.is_available():
                    payload = {"url": url, "formats": ["markdown"], "onlyMainContent": True}
                    body = self._request("POST", "/v2/scrape", payload)
                    doc = body.get("data") if isinstance(body.get("data"), dict) else {}
                else:
                    doc = self._mcp("firecrawl_scrape", {"url": url, "formats": ["markdown"]})
            except (ContentError, InvalidInputError) as exc:
                pages.append(failed_page(url, exc.message))
            except ProviderUnavailableError as exc:
                if self.is_available():
                    raise
                pages.append(failed_page(url, exc.message))  # the MCP tool's own failure: this URL only
            else:
                pages.append(_page(url, doc))
        return pages

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        if not self.is_available():
            raise ProviderNotConfiguredError(
                f"Firecrawl crawls need {KEY_ENV} or a self-hosted server ({BASE_URL_ENV} or "
                "web.firecrawl.base_url); the keyless endpoint only searches and scrapes",
                provider=self.name,
            )
        payload = {
            "url": url,
            "limit": int(kwargs.get("limit", 20)),
            "scrapeOptions": {"formats": ["markdown"], "onlyMainContent": True},
        }
        depth = kwargs.get("depth")
        if isinstance(depth, int) and not isinstance(depth, bool):
            payload["maxDiscoveryDepth"] = max(0, depth)
        job = self._request("POST", "/v2/crawl", payload)
        if not job.get("id"):
            raise ParseError("Firecrawl started a crawl without returning its id", provider=self.name)
        limit_s = config.get("web.firecrawl.crawl_timeout")
        deadline = time.monotonic() + float(120.0 if limit_s is None else limit_s)
        status = self._request("GET", f"/v2/crawl/{job['id']}")
        while status.get("status") not in _DONE:
            if time.monotonic() >= deadline:
                raise TimeoutError_(
                    f"Firecrawl crawl {job['id']} was still {status.get('status')!r} at the deadline "
                    "(raise web.firecrawl.crawl_timeout)",
                    provider=self.name,
                )
            time.sleep(self.poll_interval_s)
            status = self._request("GET", f"/v2/crawl/{job['id']}")
        if status.get("status") != "completed":
            raise ProviderUnavailableError(
                f"Firecrawl crawl {job['id']} ended {status.get('status')!r}", provider=self.name
            )
        docs = list(status.get("data") or [])
        while status.get("next"):
            status = self._request("GET", str(status["next"]))
            docs += list(status.get("data") or [])
        pages = []
        for doc in docs:
            meta = (
                doc.get("metadata") if isinstance(doc, dict) and isinstance(doc.get("metadata"), dict) else {}
            )
            page_url = str(meta.get("sourceURL") or meta.get("url") or "")
            if page_url:
                pages.append(_page(page_url, doc))
        return {"results": pages}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "paid / free credits / self-hosted / keyless MCP",
            "tag": "Search, scrape to Markdown and crawl sites.",
            "env_vars": [
                {
                    "key": KEY_ENV,
                    "prompt": "Firecrawl API key",
                    "url": "https://www.firecrawl.dev/app/api-keys",
                },
                {"key": BASE_URL_ENV, "prompt": "Self-hosted Firecrawl URL (optional)", "url": ""},
            ],
        }

    def _self_hosted(self) -> bool:
        return bool(config.get("web.firecrawl.base_url") or config.get_env_value(BASE_URL_ENV))

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        base = config.get("web.firecrawl.base_url") or config.get_env_value(BASE_URL_ENV) or DEFAULT_BASE_URL
        url = path if path.startswith(("http://", "https://")) else f"{str(base).rstrip('/')}{path}"
        key = _key()
        headers = {"Authorization": f"Bearer {key}"} if key else {}
        client = get_client(self.name)
        if method == "GET":
            data = client.get_json(url, headers=headers, error_map=_error_for)
        else:
            data = client.post_json(url, json=payload, headers=headers, error_map=_error_for)
        if not isinstance(data, dict):
            raise ParseError(f"Firecrawl {path} answered with JSON that is not an object", provider=self.name)
        if data.get("success") is False:
            raise ProviderUnavailableError(
                f"Firecrawl {path} failed: {data.get('error') or 'no reason given'}", provider=self.name
            )
        return data

    def _mcp(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        url = str(config.get("web.firecrawl.mcp_url") or DEFAULT_MCP_URL)
        result = mcp_call_tool(get_client(self.name), url, tool, arguments, error_map=_error_for)
        if isinstance(result.get("structuredContent"), dict):
            return dict(result["structuredContent"])
        text = mcp_tool_text(result)
        try:
            body = json.loads(text)
        except ValueError:
            return {"markdown": text}  # a scrape answered as plain Markdown
        return body if isinstance(body, dict) else {"web": body}


def _key() -> str | None:
    return config.resolve_key(KEY_ENV)


def _web_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """v2 ``data.web[]``, v1 ``data[]`` or a bare ``web``/``results`` list (self-hosted versions differ)."""
    data = body.get("data", body)
    if isinstance(data, dict):
        data = data.get("web", data.get("results", []))
    return [item for item in data if isinstance(item, dict)] if isinstance(data, list) else []


def _page(url: str, doc: dict[str, Any]) -> dict[str, Any]:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    status = meta.get("statusCode")
    if meta.get("error") or (isinstance(status, int) and status >= 400):
        return failed_page(url, f"Firecrawl could not read this URL: {meta.get('error') or f'HTTP {status}'}")
    text = str(doc.get("markdown") or "").strip()
    metadata = {k: meta[k] for k in ("language", "statusCode", "description") if meta.get(k)}
    metadata["source"] = "firecrawl"
    return {
        "url": url,
        "title": str(meta.get("title") or ""),
        "content": text,
        "raw_content": text,
        "metadata": metadata,
    }



def _error_for(resp: httpx.Response) -> HermesError | None:
    """Firecrawl's ``{"success": false, "error"}``: 401 key, 402 credits, 403 site, 429 delay in the text."""
    status = resp.status_code
    try:
        body = resp.json()
    except ValueError:
        body = {}
    detail = str(body.get("error") or "") if isinstance(body, dict) else ""
    if status == 401:
        return ProviderAuthError(
            f"Firecrawl rejected the API key ({detail or status}); check {KEY_ENV}",
            provider="firecrawl",
            status=status,
        )
    if status == 402:
        return RateLimitedError(
            f"Firecrawl credits exhausted ({detail or status}); upgrade or wait for the reset",
            provider="firecrawl",
            status=status,
            retryable=False,
        )
    if status == 429:
        found = _RETRY_AFTER.search(detail)
        return RateLimitedError(
            f"Firecrawl rate limit: {detail or 'too many requests'}",
            provider="firecrawl",
            status=status,
            retry_after=float(found.group(1)) if found else None,
        )
    if status == 403:
        return ContentFetchError(
            f"Firecrawl refused this site: {detail or 'forbidden'}", provider="firecrawl", status=status
        )
    if status == 400:
        return InvalidInputError(
            f"Firecrawl refused the request: {detail or 'bad request'}", provider="firecrawl", status=status
        )
    return None
