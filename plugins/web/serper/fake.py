"""Emulated Serper API (Google results; reference/web-apis.md §5): POST /search and /news with X-API-KEY."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, retry_after_header

__all__ = ["SerperApi", "register"]

_SERPER_PATHS = ("/search", "/news")


def _params(call: Call) -> dict[str, str]:
    return {k: v[0] for k, v in call.request.query.items() if v}


class SerperApi:
    """``POST {base}/search`` with ``X-API-KEY`` (or ``GET ?q=&apiKey=``); a bad key is 403."""

    name = "serper"
    _MESSAGES = {
        400: "Not enough credits",
        403: "Unauthorized.",
        429: "Too many requests",
    }

    def error(
        self, call: Call, status: int, retry_after: float | None, message: str | None = None
    ) -> Response:
        text = message or self._MESSAGES.get(status, "Internal server error" if status >= 500 else "Error")
        headers = retry_after_header(retry_after)
        return Response.json({"message": text, "statusCode": status}, status, headers)

    def handle(self, call: Call) -> Response:
        if call.subpath not in _SERPER_PATHS:
            return self.error(call, 404, None, "Not found")
        params = _params(call)
        if call.request.method == "POST":
            params.update({k: str(v) for k, v in call.json_body.items()})
        key = call.header("x-api-key") or params.get("apiKey")
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return self.error(call, 403, None)
        query = params.get("q", "")
        if not query.strip():
            return self.error(call, 400, None, "Query is required")
        try:
            num = int(params.get("num", "10"))
            page = int(params.get("page", "1"))
        except ValueError:
            return self.error(call, 400, None, "num and page must be integers")
        if not 1 <= num <= 100 or page < 1:
            return self.error(call, 400, None, "num must be 1-100 and page >= 1")
        kind = "news" if call.subpath == "/news" else "search"
        found = [] if call.empty else hits(call, query, num, (page - 1) * num)
        body: dict[str, Any] = {
            "searchParameters": {
                "q": query, "gl": params.get("gl", "us"), "hl": params.get("hl", "en"),
                "type": kind, "num": num, "page": page, "engine": "google",
            },
        }
        if kind == "news":
            body["news"] = [self._item(hit, rank, news=True) for rank, hit in enumerate(found, 1)]
        else:
            if found:
                body["answerBox"] = {"title": found[0]["title"], "snippet": found[0]["snippet"],
                                     "link": found[0]["url"]}
            body["organic"] = [self._item(hit, rank) for rank, hit in enumerate(found, 1)]
            body["relatedSearches"] = [{"query": f"{query} tutorial"}, {"query": f"{query} examples"}]
        body["credits"] = 1
        return Response.json(body)

    @staticmethod
    def _item(hit: dict[str, Any], rank: int, news: bool = False) -> dict[str, Any]:
        item = {"title": hit["title"], "link": hit["url"], "snippet": hit["snippet"], "position": rank}
        if news:
            item.update({"date": hit["date"], "source": urlsplit(hit["url"]).hostname or ""})
        elif rank % 2:
            item["date"] = hit["date"]
        return item


def register(routes: FakeRoutes) -> None:
    routes.add(SerperApi())
