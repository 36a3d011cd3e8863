"""Parallel: ``POST /v1/search`` and ``/v1/extract`` (``x-api-key``); keyless, its public MCP endpoint."""

from __future__ import annotations

import json
from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    RateLimitedError,
    WebSearchProvider,
    config,
    failed_page,
    get_client,
    mcp_call_tool,
    mcp_tool_text,
)

KEY_ENV = "PARALLEL_API_KEY"
BASE_URL_ENV = "PARALLEL_BASE_URL"  # as the vendor's SDK reads it
DEFAULT_BASE_URL = "https://api.parallel.ai"
DEFAULT_MCP_URL = "https://search-mcp.parallel.ai/mcp"
MAX_RESULTS = 20
MAX_EXTRACT_URLS = 20  # URLs per /v1/extract call
MODES = ("turbo", "fast", "basic", "advanced")


class ParallelProvider(WebSearchProvider):
    """Parallel's objective-driven search and extract; URLs it cannot read stay per-URL errors."""

    tier = "commercial"

    @property
    def name(self) -> str:
        return "parallel"

    @property
    def display_name(self) -> str:
        return "Parallel"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def is_keyless_available(self) -> bool:
        return True  # search-mcp.parallel.ai answers without a key

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **kwargs: Any) -> dict[str, Any]:
        count = max(1, min(int(limit), MAX_RESULTS))
        objective = str(kwargs.get("objective") or config.get("web.parallel.objective") or query)
        if not config.resolve_key(KEY_ENV):
            body = self._mcp("web_search", {"objective": objective, "search_queries": [query]})
        else:
            mode = str(kwargs.get("mode") or config.get("web.parallel.mode") or "fast")
            if mode not in MODES:
                raise InvalidInputError(
                    f"Parallel: web.parallel.mode must be one of {MODES} (got {mode!r})", provider=self.name
                )
            body = self._post(
                "/v1/search",
                {
                    "objective": objective,
                    "search_queries": [query],
                    "mode": mode,
                    "advanced_settings": {"max_results": count},
                },
            )
        hits = []
        for item in _list(body, "results"):
            if not item.get("url"):
                continue
            excerpts = item.get("excerpts") if isinstance(item.get("excerpts"), list) else []
            hits.append(
                {
                    "title": str(item.get("title") or item["url"]),
                    "url": str(item["url"]),
                    "description": " … ".join(map(str, excerpts))[:600],
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        data: dict[str, Any] = {"web": hits, "effective_limit": count}
        if body.get("warnings"):
            data["warnings"] = [str(w.get("message") if isinstance(w, dict) else w) for w in body["warnings"]]
        return {"success": True, "data": data}

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        objective = kwargs.get("objective") or config.get("web.parallel.objective")
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(urls), MAX_EXTRACT_URLS):
            chunk = urls[start : start + MAX_EXTRACT_URLS]
            if not config.resolve_key(KEY_ENV):
                args: dict[str, Any] = {"urls": chunk}
                if objective:
                    args["objective"] = str(objective)
                body = self._mcp("web_fetch", args)
            else:
                payload: dict[str, Any] = {"urls": chunk, "advanced_settings": {"full_content": True}}
                if objective:
                    payload["objective"] = str(objective)
                body = self._post("/v1/extract", payload)
            for item in _list(body, "results"):
                if item.get("url"):
                    found[str(item["url"])] = _page(item)
            for error in _list(body, "errors"):
                url = str(error.get("url") or "")
                if url and url not in found:
                    status = error.get("http_status_code")
                    what = f"{error.get('error_type') or 'error'}{f', HTTP {status}' if status else ''}"
                    found[url] = failed_page(url, f"Parallel could not read this URL ({what})")
        return [found.get(url) or failed_page(url, "Parallel returned nothing for this URL") for url in urls]

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "paid / keyless MCP",
            "tag": "Objective-driven search and extract for agents.",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "Parallel API key", "url": "https://platform.parallel.ai/"}
            ],
        }

    def _post(self, path: str, payload: dict[str, Any]) -> dict[str, Any]:
        base = config.get("web.parallel.base_url") or config.get_env_value(BASE_URL_ENV) or DEFAULT_BASE_URL
        base = str(base).rstrip("/")
        body = get_client(self.name).post_json(
            f"{base}{path}",
            json=payload,
            headers={"x-api-key": str(config.resolve_key(KEY_ENV))},
            error_map=_error_for,
        )
        if not isinstance(body, dict):
            raise ParseError(f"Parallel {path} answered with JSON that is not an object", provider=self.name)
        return body

    def _mcp(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        url = str(config.get("web.parallel.mcp_url") or DEFAULT_MCP_URL)
        result = mcp_call_tool(get_client(self.name), url, tool, arguments, error_map=_error_for)
        if isinstance(result.get("structuredContent"), dict):
            return dict(result["structuredContent"])
        try:
            body = json.loads(mcp_tool_text(result))
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise ParseError(
                f"Parallel's MCP tool {tool} did not answer with a JSON object", provider=self.name
            )
        return body


def _list(body: dict[str, Any], key: str) -> list[dict[str, Any]]:
    value = body.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def _page(item: dict[str, Any]) -> dict[str, Any]:
    excerpts = item.get("excerpts") if isinstance(item.get("excerpts"), list) else []
    text = str(item.get("full_content") or "\n\n".join(map(str, excerpts))).strip()
    metadata: dict[str, Any] = {"source": "parallel"}
    if item.get("publish_date"):
        metadata["publish_date"] = item["publish_date"]
    return {
        "url": str(item["url"]),
        "title": str(item.get("title") or ""),
        "content": text,
        "raw_content": text,
        "metadata": metadata,
    }



def _error_for(resp: httpx.Response) -> HermesError | None:
    """Parallel's ``{"type": "error", "error": {"message"}}``: 401/403 key, 402 credit, 400/422 request."""
    status = resp.status_code
    try:
        body = resp.json()
    except ValueError:
        body = {}
    error = body.get("error") if isinstance(body, dict) else None
    detail = str(error.get("message") or "") if isinstance(error, dict) else str(error or "")
    detail = detail or str(status)
    if status in (401, 403):
        return ProviderAuthError(
            f"Parallel rejected the API key: {detail}; check {KEY_ENV}", provider="parallel", status=status
        )
    if status == 402:
        return RateLimitedError(
            f"Parallel credit exhausted: {detail}; add credit at https://platform.parallel.ai",
            provider="parallel",
            status=status,
            retryable=False,
        )
    if status in (400, 422):
        return InvalidInputError(
            f"Parallel refused the request: {detail}", provider="parallel", status=status
        )
    return None
