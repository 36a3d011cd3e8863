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
    get_client,
)

URL_ENV = "SEARXNG_URL"
MAX_PAGES = 3  # SearXNG has no count parameter (~10-20 per page); more pages only for big limits


class SearxngProvider(WebSearchProvider):
    """A self-hosted SearXNG instance (its JSON format must be enabled in ``settings.yml``)."""

    tier = "self_hosted"

    @property
    def name(self) -> str:
        return "searxng"

    @property
    def display_name(self) -> str:
        return "SearXNG"

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
        hits = [
            {
                "title": str(item.get("title") or item["url"]),
                "url": str(item["url"]),
                "description": str(item.get("content") or ""),
                "position": i,
            }
            for i, item in enumerate(ranked[:limit], start=1)
        ]
        data: dict[str, Any] = {"web": hits}
        if warnings:
            data["warnings"] = warnings
        return {"success": True, "data": data}

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": self.display_name,
            "badge": "self-hosted",
            "tag": "Your own metasearch instance; enable the json format in settings.yml.",
            "env_vars": [
                {"key": URL_ENV, "prompt": "SearXNG base URL", "url": "https://docs.searxng.org/"}
            ],
            "install": "or hn.config.set('web.searxng.base_url', 'http://127.0.0.1:8888') (not a secret)",
        }

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
            "(search: formats: [html, json]) and restart it",
            provider="searxng", status=403,
        )
    if resp.status_code == 400:
        try:
            body = resp.json()
        except ValueError:
            body = {}
        reason = body.get("error") if isinstance(body, dict) else None
        return InvalidInputError(f"SearXNG refused the query: {reason or 'bad request'}", provider="searxng",
                                 status=400)
    return None
