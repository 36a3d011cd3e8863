"""Emulated Parallel API: ``/v1/search``, ``/v1/extract`` with per-URL ``errors``, the keyless MCP (§10).

The legacy ``/v1beta/search`` and ``/v1beta/extract`` (top-level ``max_results``, ``excerpts``,
``full_content``: what the ``parallel-web`` SDK's ``client.beta`` sends, and so Hermes's own parallel
plugin) answer in the same shapes; their keys sent to ``/v1`` are a 422, as Parallel answers them.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, read_url, request_id, serve_mcp

__all__ = ["register", "ParallelApi"]

_MODES = ("turbo", "fast", "basic", "advanced")
_LEGACY = ("max_results", "excerpts", "full_content", "processor")  # v1beta keys: 422 on /v1


class ParallelApi:
    """``POST {base}/v1/search|/v1/extract`` with ``x-api-key``; ``POST {base}/mcp`` needs no key."""

    name = "parallel"

    def error(
        self, call: Call, status: int, retry_after: float | None, message: str | None = None
    ) -> Response:
        text = message or {
            401: "Invalid API key.",
            402: "Insufficient credit.",
            429: "Rate limit exceeded.",
        }.get(status, f"Emulated error {status}.")
        headers = {"retry-after": str(int(retry_after))} if retry_after is not None else {}
        return Response.json(
            {"type": "error", "error": {"ref_id": request_id(call, status), "message": text}}, status, headers
        )

    def handle(self, call: Call) -> Response:
        if call.subpath == "/mcp":
            return serve_mcp(call, "parallel-search", {"web_search": _mcp_search, "web_fetch": _mcp_fetch})
        if call.subpath not in ("/v1/search", "/v1/extract", "/v1beta/search", "/v1beta/extract"):
            return self.error(call, 404, None, "Not Found")
        key = call.header("x-api-key")
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return self.error(call, 401, None)
        body = call.request.json
        if call.request.method != "POST" or not isinstance(body, dict):
            return self.error(call, 422, None, "Request body must be a JSON object.")
        if call.subpath.startswith("/v1beta/"):
            return self._beta(call, body)
        legacy = [k for k in _LEGACY if k in body]
        if legacy:
            return self.error(call, 422, None, f"Unknown field(s) {legacy}: use advanced_settings on /v1.")
        return self._search(call, body) if call.subpath == "/v1/search" else self._extract(call, body)

    def _search(self, call: Call, body: dict[str, Any]) -> Response:
        queries = body.get("search_queries")
        if not isinstance(queries, list) or not queries or not all(isinstance(q, str) and q for q in queries):
            return self.error(
                call, 422, None, "search_queries: Field required (a non-empty list of strings)."
            )
        mode = body.get("mode", "advanced")
        if mode not in _MODES:
            return self.error(call, 422, None, f"mode: Input should be one of {list(_MODES)}.")
        raw = body.get("advanced_settings")
        settings: dict[str, Any] = raw if isinstance(raw, dict) else {}
        count = settings.get("max_results", 10)
        if not isinstance(count, int) or not 1 <= count <= 40:
            return self.error(call, 422, None, "advanced_settings.max_results must be between 1 and 40.")
        return Response.json(_search_body(call, queries[0], count, [] if call.empty else None))

    def _beta(self, call: Call, body: dict[str, Any]) -> Response:
        """The legacy ``/v1beta`` shapes: the same answers, the options at the top level."""
        if call.subpath == "/v1beta/extract":
            settings = {"full_content": bool(body.get("full_content"))}
            return self._extract(call, {"urls": body.get("urls"), "advanced_settings": settings})
        queries = body.get("search_queries") or ([body["objective"]] if body.get("objective") else None)
        count = body.get("max_results", 10)
        return self._search(call, {"search_queries": queries, "advanced_settings": {"max_results": count}})

    def _extract(self, call: Call, body: dict[str, Any]) -> Response:
        urls = body.get("urls")
        if (
            not isinstance(urls, list)
            or not urls
            or len(urls) > 20
            or not all(isinstance(u, str) for u in urls)
        ):
            return self.error(call, 422, None, "urls: a list of 1 to 20 URLs is required.")
        raw = body.get("advanced_settings")
        settings: dict[str, Any] = raw if isinstance(raw, dict) else {}
        return Response.json(_extract_body(call, urls, bool(settings.get("full_content"))))


def _search_body(call: Call, query: str, count: int, override: list[Any] | None = None) -> dict[str, Any]:
    results = [
        {"url": h["url"], "title": h["title"], "publish_date": h["date"], "excerpts": [h["snippet"]]}
        for h in hits(call, query, count)
    ]
    return {
        "search_id": f"search_{request_id(call, query)}",
        "results": results if override is None else override,
        "usage": [{"name": "sku_search", "count": 1}],
    }


def _extract_body(call: Call, urls: list[str], full: bool) -> dict[str, Any]:
    results, errors = [], []
    for url in urls:
        try:
            title, text = read_url(call, url)
        except LookupError:
            errors.append({"url": url, "error_type": "fetch_error", "http_status_code": 404, "content": None})
            continue
        item: dict[str, Any] = {"url": url, "title": title, "excerpts": [text[:300]]}
        if full:
            item["full_content"] = text
        results.append(item)
    return {"extract_id": f"extract_{request_id(call, *urls)}", "results": results, "errors": errors}


def _mcp_search(call: Call, args: dict[str, Any]) -> str:
    queries = args.get("search_queries") or [args["objective"]]
    return json.dumps(_search_body(call, str(queries[0]), 10))


def _mcp_fetch(call: Call, args: dict[str, Any]) -> str:
    urls = args["urls"]
    if not isinstance(urls, list):
        raise TypeError("urls must be a list")
    return json.dumps(_extract_body(call, [str(u) for u in urls], bool(args.get("full_content", True))))


def register(routes: FakeRoutes) -> None:
    routes.add(ParallelApi())
    routes.address("parallel-mcp", "/parallel/mcp", config_key="web.parallel.mcp_url")
    routes.keys()  # keyless by default: tests that want the keyed API set PARALLEL_API_KEY
