"""xAI web search: ``POST /v1/responses`` with the server-side ``web_search`` tool (Live Search is retired).

Grok answers in prose; there is no result list. Its ``url_citation`` annotations (then the top-level
``citations``) become the hits, each marked ``model_generated`` in its metadata: a model chose them,
so they may be wrong or missing, and the notebook says so next to them.
"""

from __future__ import annotations

import json
from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    KeyedHttpProvider,
    ProviderAuthError,
    ProviderUnavailableError,
    config,
    search_envelope,
    web_hits,
)

DEFAULT_MODEL = "grok-4-fast"
MAX_DOMAINS = 5  # xAI's cap on allowed_domains / excluded_domains
_MARK = {"model_generated": True, "source": "xai"}


class XaiSearchProvider(KeyedHttpProvider):
    """Grok searches the web and cites pages; the citations are the results (model-generated)."""

    name = "xai"
    display_name = "xAI Grok web search"
    vendor = "xAI"
    tier = "commercial"
    key_env = "XAI_API_KEY"
    docs_url = "https://console.x.ai/"
    default_base_url = "https://api.x.ai/v1"
    base_url_env = "XAI_BASE_URL"
    max_limit = 20
    price_note = "paid"
    tagline = "Grok searches the web; its citations are the results (model-generated)."
    invalid_statuses = (400, 404, 422)

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        self.require_key()
        count = self.clamp(limit)
        prompt = (
            f"Search the web and answer briefly, citing up to {count} relevant pages as sources.\n"
            f"Question:\n{query.strip()}"
        )
        payload = {
            "model": str(config.get("web.xai.model") or DEFAULT_MODEL),
            "input": [{"role": "user", "content": prompt}],
            "tools": [_web_search_tool()],
        }
        body = self.post_json("/responses", payload)
        if body.get("error"):  # xAI can fail inside an HTTP 200
            raise ProviderUnavailableError(f"xAI web search failed: {body['error']}", provider=self.name)
        text, cited = _answer(body)
        hits = [{**hit, "metadata": dict(_MARK)} for hit in web_hits(cited, count)]
        return search_envelope(hits, count, model_generated=True, answer=text)

    def error_for(self, resp: httpx.Response) -> HermesError | None:
        """xAI's ``{"code", "error"}``; a bad key is HTTP 400 whose only marker is the documented message.
        429 and 5xx are the client's own errors, which keep Retry-After."""
        message = self.error_detail(resp) or f"HTTP {resp.status_code}"
        if resp.status_code in (401, 403) or (
            resp.status_code == 400 and message.startswith(("Incorrect API key", "No API key"))
        ):
            return ProviderAuthError(f"xAI rejected the API key; check {self.key_env}")
        if resp.status_code == 410:
            return InvalidInputError(f"xAI retired this endpoint: {message}")
        return super().error_for(resp)


def _domains(key: str) -> list[str]:
    value = config.get(key) or []
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    domains = [str(v).strip() for v in value if str(v).strip()]
    if len(domains) > MAX_DOMAINS:
        raise InvalidInputError(
            f"xAI takes at most {MAX_DOMAINS} domains in {key} (got {len(domains)})", provider="xai"
        )
    return domains


def _web_search_tool() -> dict[str, Any]:
    """The ``web_search`` tool with xAI's domain filters on the tool itself.

    xAI documents ``allowed_domains`` / ``excluded_domains`` as fields of the tool (docs.x.ai, Web
    Search parameters: at most 5, not both); OpenAI's Responses API nests its ``allowed_domains``
    under ``filters``. Where the two differ, xAI's own documentation decides for xAI.
    """
    allowed, excluded = _domains("web.xai.allowed_domains"), _domains("web.xai.excluded_domains")
    if allowed and excluded:
        raise InvalidInputError(
            "xAI accepts web.xai.allowed_domains or web.xai.excluded_domains, not both", provider="xai"
        )
    tool: dict[str, Any] = {"type": "web_search"}
    if allowed:
        tool["allowed_domains"] = allowed
    elif excluded:
        tool["excluded_domains"] = excluded
    return tool


def _answer(body: dict[str, Any]) -> tuple[str, list[dict[str, str]]]:
    """Grok's text and the pages it cited: a JSON result list if it wrote one, else its annotations."""
    texts, cited = [], []
    for item in body.get("output") or []:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        for part in item.get("content") or []:
            if not isinstance(part, dict) or part.get("type") != "output_text":
                continue
            text = str(part.get("text") or "")
            texts.append(text)
            cited += _from_json(text)
            for note in part.get("annotations") or []:
                if isinstance(note, dict) and note.get("type") == "url_citation" and note.get("url"):
                    start, end = note.get("start_index"), note.get("end_index")
                    span = text[start:end].strip() if isinstance(start, int) and isinstance(end, int) else ""
                    cited.append(
                        {
                            "title": str(note.get("title") or note["url"]),
                            "url": str(note["url"]),
                            "description": span,
                        }
                    )
    for url in body.get("citations") or []:
        url = url.get("url") if isinstance(url, dict) else url
        if isinstance(url, str) and url:
            cited.append({"title": url, "url": url, "description": ""})
    return "\n".join(texts).strip(), cited


def _from_json(text: str) -> list[dict[str, str]]:
    try:
        data = json.loads(text)
    except ValueError:
        return []
    rows = data.get("results") if isinstance(data, dict) else None
    return [
        {
            "title": str(r.get("title") or r["url"]),
            "url": str(r["url"]),
            "description": str(r.get("description") or ""),
        }
        for r in rows or []
        if isinstance(r, dict) and isinstance(r.get("url"), str) and r["url"]
    ]
