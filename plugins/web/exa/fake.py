"""Emulated Exa API: ``/search``, ``/contents`` with per-URL ``statuses``, the keyless MCP endpoint (§9)."""

from __future__ import annotations

from typing import Any

from hermes_nb.testing.fakes import (
    Call,
    FakeRoutes,
    Response,
    ToolFailedError,
    hits,
    read_url,
    request_id,
    retry_after_header,
    serve_mcp,
)

__all__ = ["register", "ExaApi"]

_TYPES = ("auto", "fast", "instant", "neural", "keyword", "deep-lite", "deep", "deep-reasoning")
_TAGS = {
    400: "INVALID_REQUEST_BODY",
    401: "INVALID_API_KEY",
    402: "NO_MORE_CREDITS",
    403: "ACCESS_DENIED",
    404: "NOT_FOUND",
    409: "CONFLICT",
    422: "UNPROCESSABLE_ENTITY",
    429: "RATE_LIMIT_EXCEEDED",
}


class ExaApi:
    """``POST {base}/search|/contents`` with ``x-api-key``; ``POST {base}/mcp`` needs no key."""

    name = "exa"

    def error(
        self, call: Call, status: int, retry_after: float | None, message: str | None = None
    ) -> Response:
        tag = _TAGS.get(status, "INTERNAL_ERROR")
        text = message or (
            "You have exceeded your credits."
            if status == 402
            else "Rate limit exceeded."
            if status == 429
            else f"Emulated error {status}."
        )
        headers = retry_after_header(retry_after)
        return Response.json({"requestId": request_id(call, tag), "error": text, "tag": tag}, status, headers)

    def handle(self, call: Call) -> Response:
        if call.subpath == "/mcp":
            return serve_mcp(call, "exa-search", {"web_search_exa": _mcp_search, "crawling_exa": _mcp_crawl})
        if call.subpath not in ("/search", "/contents"):
            return self.error(call, 404, None, f"Cannot {call.request.method} {call.subpath}")
        key = call.header("x-api-key")
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return self.error(call, 401, None, "Invalid API key" if key else "x-api-key header is missing")
        if call.request.method != "POST" or not isinstance(call.request.json, dict):
            return self.error(call, 400, None, "Request body must be a JSON object.")
        body = call.json_body
        return self._search(call, body) if call.subpath == "/search" else self._contents(call, body)

    def _search(self, call: Call, body: dict[str, Any]) -> Response:
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            return self.error(call, 400, None, "query is required")
        kind = body.get("type", "auto")
        if kind not in _TYPES:
            return self.error(call, 400, None, f"Invalid type: {kind}")
        count = body.get("numResults", 10)
        raw = body.get("contents")
        contents: dict[str, Any] = raw if isinstance(raw, dict) else {}
        if not isinstance(count, int) or count < 1 or (count > 100 and contents.get("highlights")):
            return self.error(
                call,
                400,
                None,
                "numResults must be between 1 and 100 with highlights",
            )
        results = []
        for hit in [] if call.empty else hits(call, query, min(count, 100)):
            item: dict[str, Any] = {
                "id": hit["url"],
                "url": hit["url"],
                "title": hit["title"],
                "publishedDate": hit["date"] + "T00:00:00.000Z",
                "author": None,
            }
            if contents.get("text"):
                item["text"] = f"{hit['title']}\n\n{hit['snippet']}"
            if contents.get("highlights"):
                item["highlights"] = [hit["snippet"]]
                item["highlightScores"] = [0.5]
            results.append(item)
        resolved = "neural" if kind == "auto" else kind
        return Response.json(
            {
                "requestId": request_id(call, query),
                "resolvedSearchType": resolved,
                "results": results,
                "searchTime": 120.5,
                "costDollars": {"total": 0.005},
            }
        )

    def _contents(self, call: Call, body: dict[str, Any]) -> Response:
        urls = body.get("urls") if "urls" in body else body.get("ids")
        if isinstance(urls, str):
            urls = [urls]
        if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
            return self.error(call, 400, None, "urls must be a non-empty list of strings")
        results, statuses = [], []
        for url in urls:
            try:
                title, text = read_url(call, url)
            except LookupError:
                statuses.append(
                    {"id": url, "status": "error", "error": {"tag": "CRAWL_NOT_FOUND", "httpStatusCode": 404}}
                )
                continue
            results.append({"id": url, "url": url, "title": title, "text": text})
            statuses.append({"id": url, "status": "success"})
        return Response.json(
            {
                "requestId": request_id(call, *urls),
                "results": results,
                "statuses": statuses,
                "costDollars": {"total": 0.001 * len(results)},
            }
        )


def _mcp_search(call: Call, args: dict[str, Any]) -> str:
    query = args["query"]
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    found = hits(call, query, int(args.get("numResults", 8)))
    return "\n\n".join(
        f"Title: {h['title']}\nURL: {h['url']}\nPublished Date: {h['date']}\nText: {h['snippet']}"
        for h in found
    )


def _mcp_crawl(call: Call, args: dict[str, Any]) -> str:
    url = args["url"]
    try:
        title, text = read_url(call, url)
    except LookupError as exc:
        raise ToolFailedError(f"Error crawling {url}: {exc}") from None
    limit = int(args.get("maxCharacters", 3000))
    return f"Title: {title}\nURL: {url}\nText: {text[:limit]}"


def register(routes: FakeRoutes) -> None:
    routes.add(ExaApi())
    routes.address("exa-mcp", "/exa/mcp", config_key="web.exa.mcp_url")  # the keyless MCP endpoint
    routes.keys()  # keyless by default: tests that want the keyed API set EXA_API_KEY
