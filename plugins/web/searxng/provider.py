"""SearXNG: ``GET /search?q=…&format=json&pageno=N``, results ordered by ``score``."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

import httpx

from hermes_nb.provider_api import (
    HermesError,
    InvalidInputError,
    ParseError,
    ProviderNotConfiguredError,
    WebSearchProvider,
    config,
    error_detail,
    get_client,
    search_envelope,
    web_hits,
)

URL_ENV = "SEARXNG_URL"
MAX_PAGES = 3  # SearXNG has no count parameter (~10-20 per page); more pages only for big limits


class SearxngProvider(WebSearchProvider):
    """A self-hosted SearXNG instance (its JSON format must be enabled in ``settings.yml``)."""

    name = "searxng"
    display_name = "SearXNG"
    tier = "self_hosted"
    docs_url = "https://docs.searxng.org/"
    price_note = "self-hosted"
    tagline = "Your own metasearch instance; enable the json format in settings.yml."
    install_hint = "or hn.config.set('web.searxng.base_url', 'http://127.0.0.1:8888') (not a secret)"

    def is_available(self) -> bool:
        return _valid(self._base_url())

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        base = self._base_url()
        if not _valid(base):
            raise ProviderNotConfiguredError(
                f"SearXNG needs the address of an instance: set {URL_ENV} or "
                "hn.config.set('web.searxng.base_url', 'http://localhost:8080')"
                + (f" (the current value {base!r} is not an http(s) URL)" if base else ""),
                provider=self.name,
            )
        endpoint = base.rstrip("/")
        if not endpoint.endswith("/search"):
            endpoint += "/search"
        limit = max(1, int(limit))
        client = get_client(self.name)
        seen: dict[str, dict[str, Any]] = {}
        ranked: list[dict[str, Any]] = []
        warnings: list[str] = []
        for page in range(1, MAX_PAGES + 1):
            body = client.get_json(
                endpoint, params={"q": query, "format": "json", "pageno": page}, error_map=_error_for
            )
            if not isinstance(body, dict):
                raise ParseError("SearXNG answered with JSON that is not an object", provider=self.name)
            fresh = []
            for item in body.get("results") or []:
                if isinstance(item, dict) and item.get("url") and str(item["url"]) not in seen:
                    seen[str(item["url"])] = item
                    fresh.append(item)
            # scores compare within one answer only, so each page is ordered on its own
            ranked.extend(sorted(fresh, key=_score, reverse=True))
            for engine in body.get("unresponsive_engines") or []:
                if isinstance(engine, (list, tuple)) and engine:
                    reason = f": {engine[1]}" if len(engine) > 1 else ""
                    note = f"engine {engine[0]} did not answer{reason}"
                    if note not in warnings:
                        warnings.append(note)
            if not fresh or len(ranked) >= limit:
                break
        return search_envelope(web_hits(ranked, limit, description="content"), warnings=warnings)

    def get_setup_schema(self) -> dict[str, Any]:
        schema = super().get_setup_schema()
        schema["env_vars"] = [{"key": URL_ENV, "prompt": "SearXNG base URL", "url": self.docs_url}]
        return schema

    @staticmethod
    def _base_url() -> str:
        return str(config.get("web.searxng.base_url") or config.get_env_value(URL_ENV) or "").strip()


def _valid(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _score(item: dict[str, Any]) -> float:
    try:
        return float(item.get("score") or 0.0)
    except (TypeError, ValueError):
        return 0.0


def _error_for(resp: httpx.Response) -> HermesError | None:
    """403 means the instance serves HTML only: a configuration error, not an auth failure."""
    if resp.status_code == 403:
        return InvalidInputError(
            "SearXNG refused format=json (HTTP 403): enable JSON in the instance's settings.yml "
            "(search: formats: [html, json]) and restart it"
        )
    if resp.status_code == 400:
        return InvalidInputError(f"SearXNG refused the query: {error_detail(resp, 'error') or 'bad request'}")
    return None
