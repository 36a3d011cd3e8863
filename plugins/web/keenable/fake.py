"""Emulated Keenable API: keyed and keyless (public) search and fetch (docs.keenable.ai)."""

from __future__ import annotations

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, read_url, retry_after_header

__all__ = ["register", "KeenableApi", "TITLE_HEADER"]

#: the header a tokenless (public endpoint) request must carry: the calling application's name
TITLE_HEADER = "x-keenable-title"
_MESSAGES = {
    400: "Bad request.",
    401: "Missing or invalid API key.",
    403: "Key disabled or workspace suspended.",
    404: "URL not found in the index.",
    429: "Rate limit exceeded.",
}
_COUNT = 10  # the public endpoint's fixed result-set size


class KeenableApi:
    """``POST {base}/v1/search`` / ``GET {base}/v1/fetch?url=`` with ``X-API-Key``, and the keyless
    ``/v1/search/public`` / ``/v1/fetch/public`` that need an ``X-Keenable-Title`` header instead."""

    name = "keenable"

    def error(
        self, call: Call, status: int, retry_after: float | None, message: str | None = None
    ) -> Response:
        text = message or _MESSAGES.get(status, "Internal server error." if status >= 500 else "Error.")
        headers = retry_after_header(retry_after)
        return Response.json({"detail": text}, status, headers)

    def handle(self, call: Call) -> Response:
        routes = {
            "/v1/search": ("POST", False),
            "/v1/search/public": ("POST", True),
            "/v1/fetch": ("GET", False),
            "/v1/fetch/public": ("GET", True),
        }
        route = routes.get(call.subpath)
        if route is None:
            return self.error(call, 404, None, "Not Found")
        method, public = route
        if call.request.method != method:
            return self.error(call, 405, None, "Method Not Allowed")
        key = call.header("x-api-key")
        if public:
            if call.auth_fail:
                return self.error(call, 429, 60.0)
            if not (call.header(TITLE_HEADER) or "").strip():
                return self.error(call, 400, None, "X-Keenable-Title header is required for keyless access.")
        elif call.auth_fail or not key or key == call.emu.BAD_KEY:
            return self.error(call, 401, None)
        if call.subpath.startswith("/v1/search"):
            return self._search(call, public)
        return self._fetch(call)

    def _search(self, call: Call, public: bool) -> Response:
        query = str(call.json_body.get("query") or "")
        if not query.strip():
            return self.error(call, 400, None, "query is required.")
        count = call.json_body.get("count", _COUNT)
        if public or not isinstance(count, int) or not 1 <= count <= 50:
            count = _COUNT
        found = [] if call.empty else hits(call, query, count)
        results = []
        for rank, hit in enumerate(found):
            item = {"title": hit["title"], "url": hit["url"], "description": hit["snippet"]}
            if rank % 2 == 0:
                item["published_at"] = 1700000000 + rank * 86400
            results.append(item)
        return Response.json({"results": results})

    def _fetch(self, call: Call) -> Response:
        url = call.request.param("url") or ""
        if not url:
            return self.error(call, 400, None, "url is required.")
        try:
            title, content = read_url(call, url)
        except LookupError:
            return self.error(call, 404, None)
        if call.empty:
            content = ""
        return Response.json(
            {"url": url, "title": title, "description": "", "author": "", "content": content}
        )


def register(routes: FakeRoutes) -> None:
    routes.add(KeenableApi())
