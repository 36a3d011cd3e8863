"""Keenable: ``POST /v1/search`` and ``GET /v1/fetch`` with ``X-API-Key``, or their keyless ``/public`` twins.

Without a key the public endpoints answer about 1,000 requests an hour per IP; they require an
``X-Keenable-Title`` header naming the calling application. With ``KEENABLE_API_KEY`` set the keyed
endpoints are always used (a keyed failure is never retried keyless).
"""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    ContentFetchError,
    HermesError,
    KeyedHttpProvider,
    ParseError,
    RateLimitedError,
    extract_each,
    extracted_page,
    failed_page,
    search_envelope,
    web_hits,
)

APP_TITLE = "hermes_nb"  # the X-Keenable-Title of keyless requests


class KeenableProvider(KeyedHttpProvider):
    """Keenable's own web index: search results and page content as Markdown (indexed pages only)."""

    name = "keenable"
    display_name = "Keenable"
    tier = "commercial"  # with a key; without one selection puts it in the keyless tier
    key_env = "KEENABLE_API_KEY"
    key_header = "X-API-Key"
    docs_url = "https://docs.keenable.ai/"
    default_base_url = "https://api.keenable.ai"
    max_limit = 50
    price_note = "keyless / free tier"
    tagline = "Own web index; keyless ~1,000 requests/hour per IP, a key lifts the limit."
    detail_fields = ("detail", "message")

    def is_keyless_available(self) -> bool:
        return True

    def supports_extract(self) -> bool:
        return True

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        count = self.clamp(limit)
        body = self._call("POST", "/v1/search", json={"query": query, "count": count})
        if not isinstance(body, dict) or not isinstance(body.get("results"), list):
            raise ParseError("Keenable answered without a 'results' list", provider=self.name)
        hits = web_hits(body["results"], count, description=("description", "snippet"))
        return search_envelope(hits, count)

    def extract(self, urls: list[str], **kwargs: Any) -> list[dict[str, Any]]:
        return extract_each(urls, self._page)

    def _page(self, url: str) -> dict[str, Any]:
        body = self._call("GET", "/v1/fetch", params={"url": url})
        if not isinstance(body, dict):
            return failed_page(url, "Keenable answered with JSON that is not an object", "PARSE_ERROR")
        meta = {k: body[k] for k in ("description", "author", "published_at") if body.get(k)}
        meta["source"] = "keenable"
        text, title = str(body.get("content") or ""), str(body.get("title") or "")
        return extracted_page(str(body.get("url") or url), text, title=title, metadata=meta)

    def _call(self, method: str, path: str, **kwargs: Any) -> Any:
        if self.api_key():
            return self.request_json(method, path, **kwargs)
        # keyless: rate limits go straight back to selection, which moves to the next provider
        keyless = {"X-Keenable-Title": APP_TITLE}
        return self.request_json(method, f"{path}/public", headers=keyless, retry=False, **kwargs)

    def error_for(self, resp: httpx.Response) -> HermesError | None:
        """401 missing/bad key, 403 key disabled, 404 page not in the index, 429 rate limit."""
        detail = self.error_detail(resp) or str(resp.status_code)
        if resp.status_code == 429:
            hint = "slow down"
            if resp.request.url.path.endswith("/public"):
                hint = f"the keyless limit is about 1,000 requests an hour; set {self.key_env}"
            return RateLimitedError(f"Keenable rate limit reached ({detail}); {hint}",
                                    retry_after=self.retry_after(resp))
        if resp.status_code == 404 and "/v1/fetch" in resp.request.url.path:
            return ContentFetchError(
                f"Keenable has no copy of {resp.request.url.params.get('url')}: it fetches indexed pages only"
            )
        return super().error_for(resp)
