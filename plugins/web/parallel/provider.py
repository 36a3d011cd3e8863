"""Parallel: ``POST /v1/search`` and ``/v1/extract`` (``x-api-key``); keyless, its public MCP endpoint."""

from __future__ import annotations

import json
from typing import Any

from hermes_nb.provider_api import (
    InvalidInputError,
    KeyedHttpProvider,
    ParseError,
    config,
    extracted_page,
    failed_page,
    json_objects,
    mcp_tool_text,
    search_envelope,
    web_hits,
)

MAX_EXTRACT_URLS = 20  # URLs per /v1/extract call
MODES = ("turbo", "fast", "basic", "advanced")


class ParallelProvider(KeyedHttpProvider):
    """Parallel's objective-driven search and extract; URLs it cannot read stay per-URL errors."""

    name = "parallel"
    display_name = "Parallel"
    tier = "commercial"
    key_env = "PARALLEL_API_KEY"
    key_header = "x-api-key"
    docs_url = "https://platform.parallel.ai/"
    default_base_url = "https://api.parallel.ai"
    base_url_env = "PARALLEL_BASE_URL"  # as the vendor's SDK reads it
    default_mcp_url = "https://search-mcp.parallel.ai/mcp"
    max_limit = 20
    price_note = "paid / keyless MCP"
    tagline = "Objective-driven search and extract for agents."
    detail_fields = ("error.message", "error")
    credits_hint = "add credit at https://platform.parallel.ai"

    def is_keyless_available(self) -> bool:
        return True  # search-mcp.parallel.ai answers without a key

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **kwargs: Any) -> dict[str, Any]:
        count = self.clamp(limit)
        objective = str(kwargs.get("objective") or config.get("web.parallel.objective") or query)
        if not self.api_key():
            body = self._mcp("web_search", {"objective": objective, "search_queries": [query]})
        else:
            mode = str(kwargs.get("mode") or config.get("web.parallel.mode") or "fast")
            if mode not in MODES:
                raise InvalidInputError(
                    f"Parallel: web.parallel.mode must be one of {MODES} (got {mode!r})", provider=self.name
                )
            settings = {"max_results": count}
            payload = {"objective": objective, "search_queries": [query], "mode": mode,
                       "advanced_settings": settings}
            body = self.post_json("/v1/search", payload)
        hits = web_hits(body.get("results"), count, description=lambda i: " … ".join(_excerpts(i))[:600])
        warnings = [str(w.get("message") if isinstance(w, dict) else w) for w in body.get("warnings") or []]
        return search_envelope(hits, count, warnings=warnings)

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        objective = kwargs.get("objective") or config.get("web.parallel.objective")
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(urls), MAX_EXTRACT_URLS):
            chunk = urls[start : start + MAX_EXTRACT_URLS]
            args: dict[str, Any] = {"urls": chunk}
            if objective:
                args["objective"] = str(objective)
            if not self.api_key():
                body = self._mcp("web_fetch", args)
            else:
                body = self.post_json("/v1/extract", {**args, "advanced_settings": {"full_content": True}})
            for item in json_objects(body.get("results")):
                if item.get("url"):
                    found[str(item["url"])] = _page(item)
            for error in json_objects(body.get("errors")):
                url = str(error.get("url") or "")
                if url and url not in found:
                    status = error.get("http_status_code")
                    what = f"{error.get('error_type') or 'error'}{f', HTTP {status}' if status else ''}"
                    found[url] = failed_page(url, f"Parallel could not read this URL ({what})")
        return [found.get(url) or failed_page(url, "Parallel returned nothing for this URL") for url in urls]

    def _mcp(self, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
        result = self.call_mcp_tool(tool, arguments)
        if isinstance(result.get("structuredContent"), dict):
            return dict(result["structuredContent"])
        try:
            body = json.loads(mcp_tool_text(result))
        except ValueError:
            body = None
        if not isinstance(body, dict):
            raise ParseError(f"Parallel's MCP tool {tool} did not answer with a JSON object",
                             provider=self.name)
        return body


def _excerpts(item: dict[str, Any]) -> list[str]:
    excerpts = item.get("excerpts")
    return [str(e) for e in excerpts] if isinstance(excerpts, list) else []


def _page(item: dict[str, Any]) -> dict[str, Any]:
    text = str(item.get("full_content") or "\n\n".join(_excerpts(item))).strip()
    metadata: dict[str, Any] = {"source": "parallel"}
    if item.get("publish_date"):
        metadata["publish_date"] = item["publish_date"]
    return extracted_page(str(item["url"]), text, title=str(item.get("title") or ""), metadata=metadata)
