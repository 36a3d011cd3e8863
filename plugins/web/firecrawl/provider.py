"""Firecrawl v2: ``/v2/search``, ``/v2/scrape``, crawl jobs polled to a deadline; keyless through MCP.

Three modes: the cloud API with ``FIRECRAWL_API_KEY``; a self-hosted server at ``FIRECRAWL_API_URL``
or ``web.firecrawl.base_url`` (no key needed); with neither, Firecrawl's public MCP endpoint (search
and scrape only, rate-limited). A 429 names its delay only in the message; the error map reads it.
"""

from __future__ import annotations

import json
import re
from typing import Any

import httpx

from hermes_nb.provider_api import (
    Backoff,
    KeyedHttpProvider,
    PolledJob,
    config,
    errors,
    extracted_page,
    failed_page,
    json_objects,
    mcp_tool_text,
    search_envelope,
    web_hits,
)

_RETRY_AFTER = re.compile(r"retry after (\d+(?:\.\d+)?)\s*s", re.IGNORECASE)
_DONE = ("completed", "failed", "cancelled")


class FirecrawlProvider(KeyedHttpProvider):
    """Firecrawl search, Markdown scrape and site crawl; a page it cannot read is a per-URL error."""

    name = "firecrawl"
    display_name = "Firecrawl"
    keyless_capabilities = ("search", "extract")  # keyless mode: search and scrape, not crawl
    key_env = "FIRECRAWL_API_KEY"
    docs_url = "https://www.firecrawl.dev/app/api-keys"
    default_base_url = "https://api.firecrawl.dev"
    base_url_env = "FIRECRAWL_API_URL"
    default_mcp_url = "https://mcp.firecrawl.dev/v2/mcp"
    max_limit = 100
    price_note = "paid / free credits / self-hosted / keyless MCP"
    tagline = "Search, scrape to Markdown and crawl sites."
    detail_fields = ("error",)
    auth_statuses = (401,)  # a 403 is the site refusing, not the key (error_for)
    invalid_statuses = (400,)
    credits_hint = "upgrade or wait for the reset"
    poll_interval_s = 2.0  # between crawl status polls (tests set 0)

    @property  # type: ignore[override]  # the tier follows the configuration
    def tier(self) -> str:
        return "self_hosted" if self._self_hosted() and not self.api_key() else "commercial"

    def is_available(self) -> bool:
        return bool(self.api_key()) or self._self_hosted()

    def is_keyless_available(self) -> bool:
        return True  # mcp.firecrawl.dev serves search and scrape without a key

    def supports_extract(self) -> bool:
        return True

    def supports_crawl(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        count = self.clamp(limit)
        if self.is_available():
            body = self._request("POST", "/v2/search", {"query": query, "limit": count})
        else:
            body = self._mcp("firecrawl_search", {"query": query, "limit": count})
        return search_envelope(web_hits(_web_items(body), count), count)

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
            except (errors.ContentError, errors.InvalidInputError) as exc:
                pages.append(failed_page(url, exc.message))
            except errors.ProviderUnavailableError as exc:
                if self.is_available():
                    raise
                pages.append(failed_page(url, exc.message))  # the MCP tool's own failure: this URL only
            else:
                pages.append(_page(url, doc))
        return pages

    def crawl(self, url: str, **kwargs: Any) -> dict[str, Any]:
        if not self.is_available():
            raise errors.ProviderNotConfiguredError(
                f"Firecrawl crawls need {self.key_env} or a self-hosted server ({self.base_url_env} or "
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
            raise errors.ParseError("Firecrawl started a crawl without returning its id", provider=self.name)
        limit_s = config.get("web.firecrawl.crawl_timeout")
        wait = PolledJob(
            self.name,
            f"Firecrawl crawl {job['id']}",
            timeout_s=float(120.0 if limit_s is None else limit_s),
            setting="web.firecrawl.crawl_timeout",
            backoff=Backoff(start=self.poll_interval_s, factor=1.0, cap=self.poll_interval_s),
        )
        status = wait.wait(
            lambda **_: self._request("GET", f"/v2/crawl/{job['id']}"),
            lambda answer: _finished_crawl(answer, job["id"]),
            cancel=lambda: self.client().request(
                "DELETE", self.url(f"/v2/crawl/{job['id']}"), headers=self.key_headers(), retry=False
            ),
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

    def _self_hosted(self) -> bool:
        return bool(config.get("web.firecrawl.base_url") or config.get_env_value(self.base_url_env))

    def _request(self, method: str, path: str, payload: dict[str, Any] | None = None) -> dict[str, Any]:
        data = self.get_json(path) if method == "GET" else self.post_json(path, payload)
        if data.get("success") is False:
            raise errors.ProviderUnavailableError(
                f"Firecrawl {path} failed: {data.get('error') or 'no reason given'}", provider=self.name
            )
        return data

    def _mcp(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.call_mcp_tool(tool, arguments)
        if isinstance(result.get("structuredContent"), dict):
            return dict(result["structuredContent"])
        text = mcp_tool_text(result)
        try:
            body = json.loads(text)
        except ValueError:
            return {"markdown": text}  # a scrape answered as plain Markdown
        return body if isinstance(body, dict) else {"web": body}

    def error_for(self, resp: httpx.Response) -> errors.HermesError | None:
        """``{"success": false, "error"}``: 401 key, 402 credits, 403 the site, 429 its delay in the text."""
        detail = self.error_detail(resp)
        if resp.status_code == 429:
            found = _RETRY_AFTER.search(detail)
            return errors.RateLimitedError(f"Firecrawl rate limit: {detail or 'too many requests'}",
                                    retry_after=float(found.group(1)) if found else None)
        if resp.status_code == 403:
            return errors.ContentFetchError(f"Firecrawl refused this site: {detail or 'forbidden'}")
        return super().error_for(resp)


def _web_items(body: dict[str, Any]) -> list[dict[str, Any]]:
    """v2 ``data.web[]``, v1 ``data[]`` or a bare ``web``/``results`` list (self-hosted versions differ)."""
    data = body.get("data", body)
    if isinstance(data, dict):
        data = data.get("web", data.get("results", []))
    return json_objects(data)


def _page(url: str, doc: dict[str, Any]) -> dict[str, Any]:
    meta = doc.get("metadata") if isinstance(doc.get("metadata"), dict) else {}
    status = meta.get("statusCode")
    if meta.get("error") or (isinstance(status, int) and status >= 400):
        return failed_page(url, f"Firecrawl could not read this URL: {meta.get('error') or f'HTTP {status}'}")
    text = str(doc.get("markdown") or "").strip()
    metadata = {k: meta[k] for k in ("language", "statusCode", "description") if meta.get(k)}
    metadata["source"] = "firecrawl"
    return extracted_page(url, text, title=str(meta.get("title") or ""), metadata=metadata)


def _finished_crawl(status: dict[str, Any], job_id: str) -> dict[str, Any] | None:
    """The crawl's last status once it has ended (``None`` while it runs); a failed crawl raises."""
    state = status.get("status")
    if state not in _DONE:
        return None
    if state != "completed":
        message = f"Firecrawl crawl {job_id} ended {state!r}"
        raise errors.ProviderUnavailableError(message, provider="firecrawl")
    return status
