"""OpenSERP: ``GET /{engine}/search?text=&limit=`` on a self-hosted server, or the hosted ``/search``.

Three answer shapes, told apart by the JSON itself: a bare array (servers up to v0.x),
an object with ``results`` (v2), and the hosted ``organic_results`` envelope.
"""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    KeyedHttpProvider,
    config,
    error_detail,
    errors,
    json_objects,
    search_envelope,
    web_hits,
)

HOSTED_BASE_URL = "https://api.openserp.com"
DEFAULT_ENGINE = "google"
ENGINES = ("google", "yandex", "baidu", "bing", "duck", "duckduckgo", "ddg", "ecosia", "mega")


class OpenserpProvider(KeyedHttpProvider):
    """A self-hosted OpenSERP server (no key) or the hosted endpoint (``OPENSERP_API_KEY``)."""

    name = "openserp"
    display_name = "OpenSERP"
    tier = "self_hosted"
    key_env = "OPENSERP_API_KEY"
    docs_url = "https://github.com/karust/openserp"
    max_limit = 100  # the server's limit cap
    price_note = "self-hosted / free"
    tagline = "Your own OpenSERP server (karust/openserp); up to 100 results per call."
    install_hint = "or point web.openserp.base_url at your own server (e.g. http://127.0.0.1:7000)"
    detail_fields = ("message", "reason", "error")
    invalid_statuses = (400,)

    def is_available(self) -> bool:
        return bool(self.base_url() or self.api_key())

    def base_url(self) -> str:
        value = str(config.get("web.openserp.base_url") or "").strip().rstrip("/")
        return value if value.startswith(("http://", "https://")) else ""

    def key_headers(self) -> dict[str, str]:
        key = self.api_key()
        return {"Authorization": f"Bearer {key}", "x-api-key": key} if key else {}

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        base = self.base_url()
        if not base and not self.api_key():
            raise errors.ProviderNotConfiguredError(
                "OpenSERP needs the address of a server: "
                "hn.config.set('web.openserp.base_url', 'http://127.0.0.1:7000'), "
                f"or {self.key_env} for the hosted endpoint",
                provider=self.name,
            )
        count = self.clamp(limit)
        if base:
            engine = str(config.get("web.openserp.engine") or DEFAULT_ENGINE).strip().lower()
            if engine not in ENGINES:
                raise errors.InvalidInputError(
                    f"web.openserp.engine {engine!r} is not an OpenSERP engine; "
                    f"use one of {', '.join(ENGINES)}",
                    provider=self.name,
                )
            url, params = f"{base}/{engine}/search", {"text": query, "limit": count}
        else:
            url, params = f"{HOSTED_BASE_URL}/search", {"q": query, "num": count}
        body = self.request_json("GET", url, params=params, headers={"Accept": "application/json"})
        hits = web_hits(_items(body), count, url=("url", "link"), description=("snippet", "description"),
                        skip=lambda item: bool(item.get("ad")))
        return search_envelope(hits, count)

    def error_for(self, resp: httpx.Response) -> errors.HermesError | None:
        """OpenSERP v2 error classes (``{"error", "code", "message", "reason"}``); v0 answers plain text.
        A 403 is a bad key unless the search engine blocked the server."""
        error, detail = error_detail(resp, "error"), self.error_detail(resp)
        if resp.status_code == 403 and error == "blocked":
            return errors.ProviderUnavailableError(
                f"OpenSERP's search engine blocked the server ({detail}); try another engine or later"
            )
        if resp.status_code == 429:
            return errors.RateLimitedError(
                f"OpenSERP hit a {error or 'rate limit'} at the search engine ({detail}); try again later"
            )
        return super().error_for(resp)


def _items(body: Any) -> list[dict[str, Any]]:
    """The result list of any of the three shapes (array, ``results``, ``organic_results``)."""
    if isinstance(body, list):
        found: Any = body
    elif isinstance(body, dict):
        found = body.get("organic_results")
        if not isinstance(found, list):
            found = body.get("results")
        if not isinstance(found, list):
            raise errors.ParseError(
                "OpenSERP answered with an object that has neither 'results' nor 'organic_results'",
                provider="openserp",
            )
    else:
        raise errors.ParseError(
            "OpenSERP answered with JSON that is neither a list nor an object", provider="openserp"
        )
    items = json_objects(found)
    ranked = [item for item in items if isinstance(item.get("rank"), int)]
    return sorted(items, key=lambda i: i["rank"]) if len(ranked) == len(items) else items
