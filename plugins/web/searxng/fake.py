"""Emulated SearXNG instance (reference/web-apis.md §7): the JSON API, or 403 when JSON is turned off."""

from __future__ import annotations

import html
from urllib.parse import parse_qs, urlsplit

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, retry_after_header

__all__ = ["SearxngApi", "register"]

_ENGINES = ("duckduckgo", "brave", "wikipedia", "bing", "mojeek")


class SearxngApi:
    """``GET|POST {base}/search?format=json`` (or ``/``); JSON off = 403 HTML page."""

    name = "searxng"
    _FORBIDDEN = (
        "<!DOCTYPE html><html><head><title>403 Forbidden</title></head><body><h1>Forbidden</h1></body></html>"
    )

    def handle(self, call: Call) -> Response:
        if call.subpath not in ("", "/", "/search"):
            return Response.text("<h1>Not Found</h1>", 404, "text/html; charset=utf-8")
        params = {k: v[0] for k, v in call.request.query.items()}
        if call.request.method == "POST":
            form = parse_qs(call.request.body.decode("utf-8", "replace"), keep_blank_values=True)
            params.update({k: v[0] for k, v in form.items()})
        fmt = params.get("format", "html")
        if call.auth_fail or (fmt != "html" and (fmt != "json" or not call.emu.searxng_json_enabled)):
            return Response.text(self._FORBIDDEN, 403, "text/html; charset=utf-8")
        query = params.get("q", "")
        if not query.strip():
            return Response.json({"error": "No query"}, 400)
        try:
            pageno = int(params.get("pageno", "1"))
        except ValueError:
            pageno = 0
        if pageno < 1:
            return Response.json({"error": "pageno must be a positive integer"}, 400)
        found = [] if call.empty else hits(call, query, 10, (pageno - 1) * 10)
        results = []
        for rank, hit in enumerate(found):
            rng = call.emu.rng("searxng", query, pageno, rank)
            engines = sorted(rng.sample(_ENGINES, rng.randrange(1, 4)))
            parts = urlsplit(hit["url"])
            results.append(
                {
                    "url": hit["url"],
                    "title": hit["title"],
                    "content": hit["snippet"],
                    "engine": engines[0],
                    "engines": engines,
                    "positions": [rank + 1] * len(engines),
                    "score": round(10.0 / (rank + 1), 4),
                    "category": "general",
                    "template": "default.html",
                    "publishedDate": hit["date"] + "T00:00:00",
                    "thumbnail": "",
                    "img_src": "",
                    "parsed_url": [parts.scheme, parts.netloc, parts.path, "", "", ""],
                }
            )
        # SearXNG orders by score, but clients must not rely on it: shuffle so only `score` orders them
        call.emu.rng("searxng-order", query, pageno).shuffle(results)
        if fmt == "html":
            items = "".join(
                f'<article><a href="{html.escape(r["url"])}">{html.escape(r["title"])}</a></article>'
                for r in results
            )
            return Response.text(
                f"<html><body>{items}</body></html>", content_type="text/html; charset=utf-8"
            )
        return Response.json(
            {
                "query": query,
                "results": results,
                "answers": [],
                "corrections": [],
                "infoboxes": [],
                "suggestions": [],
                "unresponsive_engines": [],
            }
        )

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            headers = retry_after_header(retry_after)
            return Response.text("<h1>Too Many Requests</h1>", 429, "text/html; charset=utf-8", headers)
        if status == 403:
            return Response.text(self._FORBIDDEN, 403, "text/html; charset=utf-8")
        return Response.json({"error": "search error" if status >= 500 else f"error {status}"}, status)


def register(routes: FakeRoutes) -> None:
    routes.option("searxng_json_enabled", True)  # False: the instance answers JSON with 403
    routes.add(SearxngApi())
