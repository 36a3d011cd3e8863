"""Brave Search API: ``GET /res/v1/web/search`` with ``X-Subscription-Token``."""

from __future__ import annotations

import html
import re
from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    KeyedHttpProvider,
    ProviderAuthError,
    RateLimitedError,
    search_envelope,
    web_hits,
)

_TAG = re.compile(r"<[^>]+>")


class BraveProvider(KeyedHttpProvider):
    """Brave web search (paid plans and the free tier alike; ``brave-free`` is an alias)."""

    name = "brave"
    display_name = "Brave Search"
    vendor = "Brave"
    tier = "commercial"
    aliases = ("brave-free",)
    key_env = "BRAVE_SEARCH_API_KEY"
    key_header = "X-Subscription-Token"
    docs_url = "https://brave.com/search/api/"
    default_base_url = "https://api.search.brave.com"
    max_limit = 20  # the API's per-call cap for web results
    price_note = "paid / free tier"
    tagline = "Independent index; 20 results per call."

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        self.require_key()
        count = self.clamp(limit)
        body = self.get_json(
            "/res/v1/web/search", params={"q": query, "count": count}, headers={"Accept": "application/json"}
        )
        web = body.get("web")
        results = web.get("results") if isinstance(web, dict) else None
        hits = web_hits(results, count, title=lambda i: _plain(i.get("title")),
                        description=lambda i: _plain(i.get("description")))
        return search_envelope(hits, count)

    def error_for(self, resp: httpx.Response) -> HermesError | None:
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
        if code in ("SUBSCRIPTION_TOKEN_INVALID", "SUBSCRIPTION_NOT_FOUND") or (
            code == "VALIDATION" and _about_token(error)
        ):
            return ProviderAuthError(f"Brave rejected the API key ({code}: {detail}); check {self.key_env}")
        if code == "RATE_LIMITED":
            return RateLimitedError(f"Brave rate limit reached ({detail}); slow down or upgrade the plan",
                                    retry_after=_reset_seconds(resp))
        if code == "QUOTA_LIMITED":
            return RateLimitedError(
                f"Brave monthly quota used up ({detail}); wait for the reset or upgrade the plan",
                retryable=False, retry_after=_reset_seconds(resp, index=-1),
            )
        if code == "VALIDATION":
            return InvalidInputError(f"Brave refused the request: {detail}")
        return None


def _plain(value: Any) -> str:
    """Descriptions carry ``<strong>`` highlights and HTML entities; results are plain text."""
    return html.unescape(_TAG.sub("", str(value or ""))).strip()


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
