"""Brave Search API: ``GET /res/v1/web/search`` with ``X-Subscription-Token``."""

from __future__ import annotations

import html
import re
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

KEY_ENV = "BRAVE_SEARCH_API_KEY"
DEFAULT_BASE_URL = "https://api.search.brave.com"
MAX_COUNT = 20  # the API's per-call cap for web results
_TAG = re.compile(r"<[^>]+>")


class BraveProvider(WebSearchProvider):
    """Brave web search (paid plans and the free tier alike; ``brave-free`` is an alias)."""

    tier = "commercial"
    aliases = ("brave-free",)

    @property
    def name(self) -> str:
        return "brave"

    @property
    def display_name(self) -> str:
        return "Brave Search"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"Brave Search needs an API key: set {KEY_ENV} (https://brave.com/search/api/) "
                f"or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        count = max(1, min(int(limit), MAX_COUNT))
        base = str(config.get("web.brave.base_url") or DEFAULT_BASE_URL).rstrip("/")
        body = get_client(self.name).get_json(
            f"{base}/res/v1/web/search",
            params={"q": query, "count": count},
            headers={"X-Subscription-Token": key, "Accept": "application/json"},
            error_map=_error_for,
        )
        if not isinstance(body, dict):
            raise ParseError("Brave answered with JSON that is not an object", provider=self.name)
        web = body.get("web")
        results = web.get("results") if isinstance(web, dict) else None
        hits = []
        for item in results if isinstance(results, list) else []:
            if not isinstance(item, dict) or not item.get("url"):
                continue
            hits.append(
                {
                    "title": _plain(item.get("title")) or str(item["url"]),
                    "url": str(item["url"]),
                    "description": _plain(item.get("description")),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits, "effective_limit": count}}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "paid / free tier",
            "tag": "Independent index; 20 results per call.",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "Brave Search API key", "url": "https://brave.com/search/api/"}
            ],
        }


def _plain(value: Any) -> str:
    """Descriptions carry ``<strong>`` highlights and HTML entities; results are plain text."""
    return html.unescape(_TAG.sub("", str(value or ""))).strip()


def _error_for(resp: httpx.Response) -> HermesError | None:
    """Brave's own codes: a bad key is 422 (not 401), quota and rate limits share 429."""
    try:
        body = resp.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code = str(error.get("code") or "")
    detail = str(error.get("detail") or code)
    status = resp.status_code
    if code in ("SUBSCRIPTION_TOKEN_INVALID", "SUBSCRIPTION_NOT_FOUND") or (
        code == "VALIDATION" and _about_token(error)
    ):
        return ProviderAuthError(
            f"Brave rejected the API key ({code}: {detail}); check {KEY_ENV}", provider="brave", status=status
        )
    if code == "RATE_LIMITED":
        return RateLimitedError(
            f"Brave rate limit reached ({detail}); slow down or upgrade the plan",
            provider="brave", status=status, retry_after=_reset_seconds(resp),
        )
    if code == "QUOTA_LIMITED":
        return RateLimitedError(
            f"Brave monthly quota used up ({detail}); wait for the reset or upgrade the plan",
            provider="brave", status=status, retryable=False, retry_after=_reset_seconds(resp, index=-1),
        )
    if code == "VALIDATION":
        return InvalidInputError(f"Brave refused the request: {detail}", provider="brave", status=status)
    return None


def _about_token(error: dict[str, Any]) -> bool:
    meta = error.get("meta")
    problems = meta.get("errors") if isinstance(meta, dict) else None
    for problem in problems if isinstance(problems, list) else []:
        loc = problem.get("loc") if isinstance(problem, dict) else None
        if isinstance(loc, list) and any(str(part).lower() == "x-subscription-token" for part in loc):
            return True
    return False


def _reset_seconds(resp: httpx.Response, index: int = 0) -> float | None:
    """``X-RateLimit-Reset: 1, 1419704`` holds the per-second then the per-month window."""
    parts = [p.strip() for p in resp.headers.get("x-ratelimit-reset", "").split(",") if p.strip()]
    try:
        return float(parts[index]) if parts else None
    except ValueError:
        return None
