"""Serper: ``POST /search`` with ``X-API-KEY``; Google's organic results (a bad key is 403)."""

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
    get_client,
)

KEY_ENV = "SERPER_API_KEY"
DEFAULT_BASE_URL = "https://google.serper.dev"
MAX_NUM = 100  # the API's per-call cap
SIGNUP_URL = "https://serper.dev/"


class SerperProvider(WebSearchProvider):
    """Google search results (organic list, plus the answer box when Google shows one)."""

    tier = "commercial"
    docs_url = "https://serper.dev/"

    @property
    def name(self) -> str:
        return "serper"

    @property
    def display_name(self) -> str:
        return "Serper (Google)"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"Serper needs an API key: set {KEY_ENV} ({SIGNUP_URL}) "
                f"or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        num = max(1, min(int(limit), MAX_NUM))
        base = str(config.get("web.serper.base_url") or DEFAULT_BASE_URL).rstrip("/")
        # a search is a cheap idempotent read, so the shared retry policy applies to this POST
        body = get_client(self.name).post_json(
            f"{base}/search",
            json={"q": query, "num": num},
            headers={"X-API-KEY": key},
            error_map=_error_for,
        )
        if not isinstance(body, dict):
            raise ParseError("Serper answered with JSON that is not an object", provider=self.name)
        organic = body.get("organic")
        hits: list[dict[str, Any]] = []
        for item in organic if isinstance(organic, list) else []:
            if not isinstance(item, dict) or not item.get("link"):
                continue
            hit = {
                "title": str(item.get("title") or item["link"]),
                "url": str(item["link"]),
                "description": str(item.get("snippet") or ""),
                "position": len(hits) + 1,
            }
            if item.get("date"):
                hit["published"] = str(item["date"])
            hits.append(hit)
            if len(hits) == num:
                break
        data: dict[str, Any] = {"web": hits, "effective_limit": num}
        box = body.get("answerBox")
        if isinstance(box, dict) and (box.get("answer") or box.get("snippet")):
            data["answer"] = str(box.get("answer") or box.get("snippet"))
        return {"success": True, "data": data}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "paid / free credits",
            "tag": "Google results; 2,500 free queries, up to 100 results per call.",
            "env_vars": [{"key": KEY_ENV, "prompt": "Serper API key", "url": SIGNUP_URL}],
        }


def _message(resp: httpx.Response) -> str:
    try:
        body = resp.json()
    except ValueError:
        return ""
    return str(body.get("message") or "") if isinstance(body, dict) else ""


def _error_for(resp: httpx.Response) -> HermesError | None:
    """Serper's statuses: 403 for a missing or bad key, 400 for bad input or no credits left."""
    status = resp.status_code
    message = _message(resp)
    if status in (401, 403):
        return ProviderAuthError(
            f"Serper rejected the API key ({message or status}); check {KEY_ENV}",
            provider="serper", status=status,
        )
    if status == 400 and "credit" in message.lower():
        return RateLimitedError(
            f"Serper credits used up ({message}); top up at {SIGNUP_URL}",
            provider="serper", status=status, retryable=False,
        )
    if status == 400:
        return InvalidInputError(f"Serper refused the request: {message or 'bad request'}", provider="serper",
                                 status=status)
    return None
