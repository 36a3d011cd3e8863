"""Serper: ``POST /search`` with ``X-API-KEY``; Google's organic results (a bad key is 403)."""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import HermesError, KeyedHttpProvider, RateLimitedError, search_envelope, web_hits


class SerperProvider(KeyedHttpProvider):
    """Google search results (organic list, plus the answer box when Google shows one)."""

    name = "serper"
    display_name = "Serper (Google)"
    vendor = "Serper"
    tier = "commercial"
    key_env = "SERPER_API_KEY"
    key_header = "X-API-KEY"
    docs_url = "https://serper.dev/"
    default_base_url = "https://google.serper.dev"
    max_limit = 100  # the API's per-call cap
    price_note = "paid / free credits"
    tagline = "Google results; 2,500 free queries, up to 100 results per call."
    detail_fields = ("message",)

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        self.require_key()
        num = self.clamp(limit)
        # a search is a cheap idempotent read, so the shared retry policy applies to this POST
        body = self.post_json("/search", {"q": query, "num": num})
        hits = web_hits(
            body.get("organic"), num, url="link", description="snippet", extra={"published": "date"}
        )
        box = body.get("answerBox")
        answer = box.get("answer") or box.get("snippet") if isinstance(box, dict) else None
        return search_envelope(hits, num, answer=str(answer or ""))

    def error_for(self, resp: httpx.Response) -> HermesError | None:
        """Serper's statuses: 403 for a missing or bad key, 400 for bad input or no credits left."""
        message = self.error_detail(resp)
        if resp.status_code == 400 and "credit" in message.lower():
            return RateLimitedError(f"Serper credits used up ({message}); top up at {self.docs_url}",
                                    retryable=False)
        return super().error_for(resp)
