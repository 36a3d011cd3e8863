"""Emulated OpenSERP (reference/web-apis.md §6): self-hosted /{engine}/search in its v2 and v0 shapes,
and the hosted /search with a key."""

from __future__ import annotations

from urllib.parse import urlsplit

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, request_id, retry_after_header

__all__ = ["OpenserpApi", "OPENSERP_FORMAT", "register"]

#: ``emu.state`` key choosing what ``/{engine}/search`` answers: "v2" (object, default) or "v0" (array)
OPENSERP_FORMAT = "openserp.format"
_OPENSERP_ENGINES = ("google", "yandex", "baidu", "bing", "duck", "duckduckgo", "ddg", "ecosia")


def _params(call: Call) -> dict[str, str]:
    return {k: v[0] for k, v in call.request.query.items() if v}


_OPENSERP_ERRORS = {
    400: ("bad_request", "INVALID_LIMIT"),
    401: ("unauthorized", "INVALID_API_KEY"),
    403: ("blocked", "ENGINE_BLOCKED"),
    429: ("captcha_detected", "CAPTCHA"),
    502: ("all_engines_failed", "ENGINE_ERROR"),
    503: ("circuit_open", "CIRCUIT_OPEN"),
    504: ("search_timeout", "TIMEOUT"),
}


class OpenserpApi:
    """Self-hosted ``GET {base}/{engine}/search?text=&limit=`` (v2 object or v0 array, chosen by
    ``emu.state["openserp.format"]``) and the hosted ``GET {base}/search?q=&num=`` with a key."""

    name = "openserp"

    def error(
        self, call: Call, status: int, retry_after: float | None, reason: str | None = None
    ) -> Response:
        headers = retry_after_header(retry_after)
        if self._format(call) == "v0" and call.subpath != "/search":
            # the v0 server answers engine failures with plain text
            return Response.text(f"{status}: captcha or engine failure", status, headers=headers)
        error, code = _OPENSERP_ERRORS.get(status, ("engine_internal", "INTERNAL"))
        body = {
            "error": error,
            "code": status,
            "message": reason or f"emulated {error}",
            "reason": code,
            "request_id": request_id(call, "openserp", status),
        }
        return Response.json(body, status, headers)

    @staticmethod
    def _format(call: Call) -> str:
        with call.emu.state_lock:
            return str(call.emu.state.get(OPENSERP_FORMAT, "v2"))

    def handle(self, call: Call) -> Response:
        params = _params(call)
        parts = call.subpath.strip("/").split("/")
        if call.subpath == "/search":
            return self._hosted(call, params)
        if len(parts) != 2 or parts[1] != "search" or parts[0] not in (*_OPENSERP_ENGINES, "mega"):
            return self.error(call, 404, None, "route not found")
        if call.auth_fail or call.header("x-api-key") == call.emu.BAD_KEY:
            return self.error(call, 401, None, "invalid API key")
        query = params.get("text", "")
        if not query.strip():
            return self.error(call, 400, None, "EMPTY_QUERY")
        try:
            limit = int(params.get("limit", "10"))
        except ValueError:
            limit = 0
        if not 1 <= limit <= 100:
            return self.error(call, 400, None, "limit must be 1-100")
        engine = parts[0]
        found = [] if call.empty else hits(call, query, limit)
        if self._format(call) == "v0":
            return Response.json(
                [{"rank": r, "url": h["url"], "title": h["title"], "description": h["snippet"], "ad": False}
                 for r, h in enumerate(found, 1)]
            )
        results = [
            {
                "id": f"{engine}-{rank}",
                "rank": rank,
                "type": "organic",
                "title": hit["title"],
                "url": hit["url"],
                "display_url": hit["url"].split("://", 1)[-1],
                "snippet": hit["snippet"],
                "domain": urlsplit(hit["url"]).hostname,
                "position": {"absolute": rank},
                "engine": engine,
            }
            for rank, hit in enumerate(found, 1)
        ]
        rid = request_id(call, "openserp", query)
        body = {
            "query": {"text": query, "lang": params.get("lang", ""), "engines_requested": [engine]},
            "meta": {"request_id": rid, "took_ms": 12,
                     "engines_responded": [engine], "engines_failed": [], "version": "2.2.0"},
            "results": results,
            "serp_features": [],
            "pagination": {"page": 1, "has_more": True, "next_start": limit},
        }
        return Response.json(body, headers={"X-Request-ID": rid, "X-Cache": "MISS"})

    def _hosted(self, call: Call, params: dict[str, str]) -> Response:
        key = call.header("x-api-key") or call.bearer()
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return self.error(call, 401, None, "missing or invalid API key")
        query = params.get("q", "")
        if not query.strip():
            return self.error(call, 400, None, "EMPTY_QUERY")
        num = int(params.get("num", "10")) if params.get("num", "10").isdigit() else 10
        found = [] if call.empty else hits(call, query, max(1, min(num, 100)))
        organic = [{"position": r, "title": h["title"], "link": h["url"], "snippet": h["snippet"]}
                   for r, h in enumerate(found, 1)]
        return Response.json({"search_parameters": {"q": query, "num": num}, "organic_results": organic})


def register(routes: FakeRoutes) -> None:
    routes.add(OpenserpApi())
