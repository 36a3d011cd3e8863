"""Emulated Tavily API: search, extract (per-URL failures), crawl and map (reference/web-apis.md §4)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any
from urllib.parse import urljoin, urlsplit

from hermes_nb.testing.fakes import (
    Call,
    FakeRoutes,
    Response,
    hits,
    read_url,
    request_id,
    retry_after_header,
    site_response,
)

__all__ = ["register", "TavilyApi"]

_TAVILY_ERRORS = {
    400: "Bad request.",
    401: "Unauthorized: missing or invalid API key.",
    403: "Forbidden.",
    429: "Your request has been blocked due to excessive requests. Please reduce the rate of requests.",
    432: "This request exceeds your plan's set usage limit. Please upgrade your plan or contact support.",
    433: "This request exceeds the pay-as-you-go limit. You can increase your limit on the Tavily dashboard.",
}


class TavilyApi:
    """``POST {base}/search|/extract|/crawl`` with ``Authorization: Bearer`` or body ``api_key``."""

    name = "tavily"

    def error(
        self, call: Call, status: int, retry_after: float | None, message: str | None = None
    ) -> Response:
        text = message or _TAVILY_ERRORS.get(status, "Internal server error." if status >= 500 else "Error.")
        if status == 429 and (call.header("x-tavily-access-mode") or "").lower() == "keyless":
            wait = int(retry_after) if retry_after is not None else 60
            rejection = {"code": "keyless_rate_limited", "message": "Keyless request limit reached.",
                         "window": "1h", "retry_after_seconds": wait,
                         "next_actions": ["Create a free API key at https://app.tavily.com"]}
            return Response.json({"error": rejection}, 429)  # the delay is only in the body
        headers = retry_after_header(retry_after)
        return Response.json({"detail": {"error": text}}, status, headers)

    def handle(self, call: Call) -> Response:
        routes: dict[str, Callable[[Call, dict[str, Any]], Response]] = {
            "/search": self._search,
            "/extract": self._extract,
            "/crawl": self._crawl,
            "/map": self._map,
        }
        route = routes.get(call.subpath)
        if route is None:
            return Response.json({"detail": "Not Found"}, 404)
        if call.request.method != "POST":
            return Response.json({"detail": "Method Not Allowed"}, 405)
        if call.request.json is None or not isinstance(call.request.json, dict):
            return self.error(call, 400, None, "Invalid JSON body.")
        body = call.json_body
        key = call.bearer() or body.get("api_key")
        keyless = (
            call.header("x-tavily-access-mode") or ""
        ).lower() == "keyless" and call.subpath != "/crawl"
        if call.auth_fail or key == call.emu.BAD_KEY or (not key and not keyless):
            return self.error(call, 401, None)
        return route(call, body)

    def _search(self, call: Call, body: dict[str, Any]) -> Response:
        query = body.get("query")
        if not isinstance(query, str) or not query.strip():
            return self.error(call, 400, None, "Query is missing.")
        max_results = body.get("max_results", 5)
        if not isinstance(max_results, int) or not 0 <= max_results <= 20:
            return self.error(call, 400, None, "max_results must be an integer between 0 and 20.")
        depth = body.get("search_depth", "basic")
        if depth not in ("basic", "advanced", "fast", "ultra-fast"):
            return self.error(
                call, 400, None, "Invalid search depth. Must be 'basic', 'advanced', 'fast' or 'ultra-fast'."
            )
        found = [] if call.empty else hits(call, query, max_results)
        results = []
        for rank, hit in enumerate(found):
            item: dict[str, Any] = {
                "title": hit["title"],
                "url": hit["url"],
                "content": hit["snippet"],
                "score": round(0.95 - rank * 0.04, 4),
                "raw_content": None,
            }
            if body.get("include_raw_content"):
                item["raw_content"] = f"# {hit['title']}\n\n{hit['snippet']}"
            if body.get("include_favicon"):
                item["favicon"] = f"https://{urlsplit(hit['url']).hostname}/favicon.ico"
            if body.get("topic") == "news":
                item["published_date"] = hit["date"]
            results.append(item)
        answer = f"Emulated answer about {query.strip()}." if body.get("include_answer") and results else None
        out: dict[str, Any] = {
            "query": query,
            "follow_up_questions": None,
            "answer": answer,
            "images": [],
            "results": results,
            "response_time": 0.12,
            "request_id": request_id(call, query),
        }
        if body.get("include_usage"):
            out["usage"] = {"credits": 2 if depth == "advanced" else 1}
        return Response.json(out)

    def _extract(self, call: Call, body: dict[str, Any]) -> Response:
        urls = body.get("urls")
        if isinstance(urls, str):
            urls = [urls]
        if not isinstance(urls, list) or not urls or not all(isinstance(u, str) for u in urls):
            return self.error(call, 400, None, "urls must be a URL or a non-empty list of URLs.")
        if len(urls) > 20:
            return self.error(call, 400, None, "Max 20 URLs are allowed.")
        results, failed = [], []
        for url in [] if call.empty else urls:
            try:
                title, text = read_url(call, url)
            except LookupError as exc:
                failed.append({"url": url, "error": str(exc)})
                continue
            item: dict[str, Any] = {"url": url, "raw_content": text, "images": []}
            if body.get("include_favicon"):
                item["favicon"] = f"{urlsplit(url).scheme}://{urlsplit(url).netloc}/favicon.ico"
            results.append(item)
        out: dict[str, Any] = {
            "results": results,
            "failed_results": failed,
            "response_time": 0.2,
            "request_id": request_id(call, *urls),
        }
        if body.get("include_usage"):
            out["usage"] = {"credits": max(1, len(results) // 5)}
        return Response.json(out)

    def _walk(self, call: Call, body: dict[str, Any]) -> list[tuple[str, str]] | Response:
        start = body.get("url")
        if not isinstance(start, str) or not start.startswith(("http://", "https://")):
            return self.error(call, 400, None, "url must be an http(s) URL.")
        max_depth, max_breadth, limit = (
            body.get("max_depth", 1),
            body.get("max_breadth", 20),
            body.get("limit", 50),
        )
        if not all(isinstance(v, int) and v >= 1 for v in (max_depth, max_breadth, limit)):
            return self.error(call, 400, None, "max_depth, max_breadth and limit must be positive integers.")
        if call.empty:
            return []
        pages: list[tuple[str, str]] = []
        seen, frontier = {start}, [start]
        for depth in range(max_depth + 1):
            next_frontier: list[str] = []
            for url in frontier:
                if len(pages) >= limit:
                    return pages
                try:
                    pages.append((url, read_url(call, url)[1]))
                except LookupError:
                    continue
                if depth == max_depth:
                    continue
                for link in _site_links(call, url)[:max_breadth]:
                    if link not in seen:
                        seen.add(link)
                        next_frontier.append(link)
            frontier = next_frontier
        return pages

    def _crawl(self, call: Call, body: dict[str, Any]) -> Response:
        pages = self._walk(call, body)
        if isinstance(pages, Response):
            return pages
        results = [{"url": url, "raw_content": text, "images": []} for url, text in pages]
        return Response.json(
            {
                "base_url": body["url"],
                "results": results,
                "response_time": 0.5,
                "request_id": request_id(call, body["url"]),
            }
        )

    def _map(self, call: Call, body: dict[str, Any]) -> Response:
        pages = self._walk(call, body)
        if isinstance(pages, Response):
            return pages
        return Response.json(
            {
                "base_url": body["url"],
                "results": [url for url, _ in pages],
                "response_time": 0.3,
                "request_id": request_id(call, body["url"]),
            }
        )


def _site_links(call: Call, url: str) -> list[str]:
    """Same-site links of an emulator page (other URLs have none)."""
    parts = urlsplit(url)
    if f"{parts.scheme}://{parts.netloc}" != call.emu.url:
        return []
    page = site_response(call, parts.path or "/")
    if not page.content_type.startswith("text/html"):
        return []
    links = []
    for href in re.findall(r'href="([^"]+)"', page.body.decode("utf-8", "replace")):
        absolute = urljoin(url, href).split("#")[0]
        if absolute.startswith(call.emu.url + "/site/") and absolute not in links:
            links.append(absolute)
    return links


def register(routes: FakeRoutes) -> None:
    routes.add(TavilyApi())
