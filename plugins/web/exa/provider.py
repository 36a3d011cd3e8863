"""Exa: ``POST /search`` and ``/contents`` with ``x-api-key``; without a key, the public MCP endpoint."""

from __future__ import annotations

import json
from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderUnavailableError,
    RateLimitedError,
    WebSearchProvider,
    config,
    failed_page,
    get_client,
    mcp_call_tool,
    mcp_tool_text,
)

KEY_ENV = "EXA_API_KEY"
DEFAULT_BASE_URL = "https://api.exa.ai"
DEFAULT_MCP_URL = "https://mcp.exa.ai/mcp"
MAX_RESULTS = 100  # numResults cap with highlights
SEARCH_TYPES = ("auto", "neural", "keyword", "fast", "instant", "deep")
CONTENTS = ("highlights", "text", "none")
_FIELDS = {"title": "title", "url": "url", "text": "text", "published date": "publishedDate"}


class ExaProvider(WebSearchProvider):
    """Exa neural/keyword search and page contents; a URL Exa cannot read is a per-URL error."""

    tier = "commercial"

    @property
    def name(self) -> str:
        return "exa"

    @property
    def display_name(self) -> str:
        return "Exa"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def is_keyless_available(self) -> bool:
        return True  # mcp.exa.ai answers without a key, at a low rate

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **kwargs: Any) -> dict[str, Any]:
        count = max(1, min(int(limit), MAX_RESULTS))
        if not config.resolve_key(KEY_ENV):
            text = self._mcp("web_search_exa", {"query": query, "numResults": count})
            items = _records(text)
        else:
            kind = str(kwargs.get("type") or config.get("web.exa.search_type") or "auto")
            contents = str(kwargs.get("contents") or config.get("web.exa.contents") or "highlights")
            if kind not in SEARCH_TYPES or contents not in CONTENTS:
                raise InvalidInputError(
                    f"Exa: web.exa.search_type must be one of {SEARCH_TYPES} and web.exa.contents one of "
                    f"{CONTENTS} (got {kind!r}, {contents!r})",
                    provider=self.name,
                )
            payload: dict[str, Any] = {"query": query, "type": kind, "numResults": count}
            if contents == "highlights":
                payload["contents"] = {"highlights": True}
            elif contents == "text":
                payload["contents"] = {"text": {"maxCharacters": 2000}}
            items = _list(self._post("/search", payload), "results")
        hits = []
        for item in items:
            if not item.get("url"):
                continue
            highlights = item.get("highlights")
            snippet = " … ".join(map(str, highlights)) if isinstance(highlights, list) and highlights else ""
            hits.append(
                {
                    "title": str(item.get("title") or item["url"]),
                    "url": str(item["url"]),
                    "description": snippet or str(item.get("text") or "")[:500],
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits, "effective_limit": count}}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        if not config.resolve_key(KEY_ENV):
            for url in urls:
                try:
                    text = self._mcp("crawling_exa", {"url": url, "maxCharacters": 20000})
                except ProviderUnavailableError as exc:  # the tool's own failure: this URL only
                    found[url] = failed_page(url, exc.message)
                    continue
                for item in _records(text)[:1]:
                    found[url] = _page({**item, "url": url})
        else:
            body = self._post("/contents", {"urls": urls, "text": True})
            for item in _list(body, "results"):
                url = str(item.get("url") or item.get("id") or "")
                if url:
                    found[url] = _page({**item, "url": url})
            for status in _list(body, "statuses"):
                url = str(status.get("id") or "")
                if url and status.get("status") == "error":
                    error = status.get("error") if isinstance(status.get("error"), dict) else {}
                    tag, code = error.get("tag") or "CRAWL_UNKNOWN_ERROR", error.get("httpStatusCode")
                    found[url] = failed_page(
                        url, f"Exa could not read this URL ({tag}{f', HTTP {code}' if code else ''})"
                    )
        return [found.get(url) or failed_page(url, "Exa returned nothing for this URL") for url in urls]

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "paid / free credits / keyless MCP",
            "tag": "Neural web search and page contents.",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "Exa API key", "url": "https://dashboard.exa.ai/api-keys"}
            ],
        }

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        base = str(config.get("web.exa.base_url") or DEFAULT_BASE_URL).rstrip("/")
        body = get_client(self.name).post_json(
            f"{base}{path}",
            json=payload,
            headers={"x-api-key": str(config.resolve_key(KEY_ENV))},
            error_map=_error_for,
        )
        if not isinstance(body, dict):
            raise ParseError(f"Exa {path} answered with JSON that is not an object", provider=self.name)
        return body

    def _mcp(self, tool: str, arguments: dict[str, Any]) -> str:
        url = str(config.get("web.exa.mcp_url") or DEFAULT_MCP_URL)
        return mcp_tool_text(mcp_call_tool(get_client(self.name), url, tool, arguments, error_map=_error_for))


def _records(text: str) -> list[dict[str, Any]]:
    """Results of the MCP tools: Exa's JSON answer, or its ``Title:``/``URL:``/``Text:`` blocks."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        return _list(body, "results")
    records: list[dict[str, Any]] = []
    field = ""
    for line in text.splitlines():
        label, sep, value = line.partition(":")
        key = _FIELDS.get(label.strip().lower()) if sep else None
        if key == "title":
            records.append({})
        if key and records:
            records[-1][key], field = value.strip(), key
        elif records and field == "text":
            records[-1]["text"] += "\n" + line
    return records


def _list(body: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = body.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _page(item: dict[str, Any]) -> dict[str, Any]:
    text = str(item.get("text") or "").strip()
    metadata = {k: item[k] for k in ("publishedDate", "author") if item.get(k)}
    metadata["source"] = "exa"
    return {
        "url": str(item["url"]),
        "title": str(item.get("title") or ""),
        "content": text,
        "raw_content": text,
        "metadata": metadata,
    }



def _error_for(resp: httpx.Response) -> HermesError | None:
    """Exa's ``{"error", "tag"}``: 401/403 key, 402 credits (not retryable), 400/422 request."""
    status = resp.status_code
    try:
        body = resp.json()
    except ValueError:
        body = {}
    detail = str(body.get("error") or "") if isinstance(body, dict) else ""
    tag = str(body.get("tag") or "") if isinstance(body, dict) else ""
    what = f"{detail} ({tag})" if tag else detail or str(status)
    if status in (401, 403):
        return ProviderAuthError(
            f"Exa rejected the API key: {what}; check {KEY_ENV}", provider="exa", status=status
        )
    if status == 402:
        return RateLimitedError(
            f"Exa credits or key budget exhausted: {what}; top up at https://dashboard.exa.ai",
            provider="exa",
            status=status,
            retryable=False,
        )
    if status in (400, 422):
        return InvalidInputError(f"Exa refused the request: {what}", provider="exa", status=status)
    return None
