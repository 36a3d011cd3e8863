"""Exa: ``POST /search`` and ``/contents`` with ``x-api-key``; without a key, the public MCP endpoint."""

from __future__ import annotations

import json
from typing import Any

import httpx

from hermes_nb.provider_api import (
    InvalidInputError,
    KeyedHttpProvider,
    ProviderUnavailableError,
    config,
    error_detail,
    extracted_page,
    failed_page,
    json_objects,
    mcp_tool_text,
    search_envelope,
    web_hits,
)

SEARCH_TYPES = ("auto", "neural", "keyword", "fast", "instant", "deep")
CONTENTS = ("highlights", "text", "none")
_FIELDS = {"title": "title", "url": "url", "text": "text", "published date": "publishedDate"}


class ExaProvider(KeyedHttpProvider):
    """Exa neural/keyword search and page contents; a URL Exa cannot read is a per-URL error."""

    name = "exa"
    display_name = "Exa"
    tier = "commercial"
    key_env = "EXA_API_KEY"
    key_header = "x-api-key"
    docs_url = "https://dashboard.exa.ai/api-keys"
    default_base_url = "https://api.exa.ai"
    default_mcp_url = "https://mcp.exa.ai/mcp"
    max_limit = 100  # numResults cap with highlights
    price_note = "paid / free credits / keyless MCP"
    tagline = "Neural web search and page contents."
    credits_hint = "top up at https://dashboard.exa.ai"

    def is_keyless_available(self) -> bool:
        return True  # mcp.exa.ai answers without a key, at a low rate

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5, **kwargs: Any) -> dict[str, Any]:
        count = self.clamp(limit)
        if not self.api_key():
            items = _records(self._mcp("web_search_exa", {"query": query, "numResults": count}))
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
            items = json_objects(self.post_json("/search", payload).get("results"))
        return search_envelope(web_hits(items, count, description=_snippet), count)

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        if not self.api_key():
            for url in urls:
                try:
                    text = self._mcp("crawling_exa", {"url": url, "maxCharacters": 20000})
                except ProviderUnavailableError as exc:  # the tool's own failure: this URL only
                    found[url] = failed_page(url, exc.message)
                    continue
                for item in _records(text)[:1]:
                    found[url] = _page({**item, "url": url})
        else:
            body = self.post_json("/contents", {"urls": urls, "text": True})
            for item in json_objects(body.get("results")):
                url = str(item.get("url") or item.get("id") or "")
                if url:
                    found[url] = _page({**item, "url": url})
            for status in json_objects(body.get("statuses")):
                url = str(status.get("id") or "")
                if url and status.get("status") == "error":
                    error = status.get("error") if isinstance(status.get("error"), dict) else {}
                    tag, code = error.get("tag") or "CRAWL_UNKNOWN_ERROR", error.get("httpStatusCode")
                    found[url] = failed_page(
                        url, f"Exa could not read this URL ({tag}{f', HTTP {code}' if code else ''})"
                    )
        return [found.get(url) or failed_page(url, "Exa returned nothing for this URL") for url in urls]

    def _mcp(self, tool: str, arguments: dict[str, Any]) -> str:
        return mcp_tool_text(self.call_mcp_tool(tool, arguments))

    def error_detail(self, resp: httpx.Response) -> str:
        """Exa's ``{"error", "tag"}``: the message with its tag (``NO_MORE_CREDITS``)."""
        detail, tag = error_detail(resp, "error"), error_detail(resp, "tag")
        return f"{detail} ({tag})" if tag else detail


def _snippet(item: dict[str, Any]) -> str:
    highlights = item.get("highlights")
    if isinstance(highlights, list) and highlights:
        return " … ".join(map(str, highlights))
    return str(item.get("text") or "")[:500]


def _records(text: str) -> list[dict[str, Any]]:
    """Results of the MCP tools: Exa's JSON answer, or its ``Title:``/``URL:``/``Text:`` blocks."""
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    if isinstance(body, dict):
        return json_objects(body.get("results"))
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


def _page(item: dict[str, Any]) -> dict[str, Any]:
    metadata = {k: item[k] for k in ("publishedDate", "author") if item.get(k)}
    metadata["source"] = "exa"
    text = str(item.get("text") or "").strip()
    return extracted_page(str(item["url"]), text, title=str(item.get("title") or ""), metadata=metadata)
