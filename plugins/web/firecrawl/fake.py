"""Emulated Firecrawl v2 API: search, scrape, crawl jobs with polling and paging, keyless MCP (§8).

A 429 carries its delay only in the message ("… retry after Ns …"), never in ``Retry-After``, as
Firecrawl's does. ``emu.state["firecrawl.self_hosted"] = True`` accepts requests without a key (a
self-hosted server); ``emu.state["firecrawl.polls_to_complete"]`` sets how many status polls a crawl
stays ``scraping`` (default 2).
"""

from __future__ import annotations

import json
from typing import Any

from hermes_nb.testing.fakes import (
    Call,
    FakeRoutes,
    Response,
    ToolFailedError,
    hits,
    read_url,
    request_id,
    serve_mcp,
)

__all__ = ["register", "FirecrawlApi"]

_PAGE_SIZE = 2  # crawl status pages are cut after this many documents, with ``next``
_MESSAGES = {
    400: "Bad Request",
    401: "Unauthorized: Invalid token",
    402: "Insufficient credits to perform this request.",
    403: "This website is no longer supported.",
    408: "Request timed out",
}


class FirecrawlApi:
    """``POST /v2/search|/v2/scrape|/v2/crawl``, ``GET|DELETE /v2/crawl/{id}``, ``POST /v2/mcp`` under
    ``{base}``."""

    name = "firecrawl"

    def error(
        self, call: Call, status: int, retry_after: float | None, message: str | None = None
    ) -> Response:
        if status == 429 and message is None:
            delay = int(retry_after) if retry_after is not None else 7
            message = (
                "Rate limit exceeded. Consumed (req/min): 11, Remaining (req/min): 0. Upgrade your plan "
                f"at https://firecrawl.dev/pricing for increased rate limits or please retry after "
                f"{delay}s, resets at Tue Nov 24 2026 12:00:00 GMT+0000"
            )
        text = message or _MESSAGES.get(status, "An unexpected error occurred.")
        return Response.json({"success": False, "error": text}, status)  # never a Retry-After header

    def handle(self, call: Call) -> Response:
        path, method = call.subpath, call.request.method
        if path == "/v2/mcp":
            return serve_mcp(
                call, "firecrawl-mcp", {"firecrawl_search": _mcp_search, "firecrawl_scrape": _mcp_scrape}
            )
        token = call.bearer()
        if (
            call.auth_fail
            or token == call.emu.BAD_KEY
            or (not token and not call.emu.state.get("firecrawl.self_hosted"))
        ):
            return self.error(call, 401, None)
        if method == "GET" and path.startswith("/v2/crawl/"):
            return self._status(call, path.rsplit("/", 1)[-1])
        if method == "DELETE" and path.startswith("/v2/crawl/"):
            return self._cancel(call, path.rsplit("/", 1)[-1])
        routes = {"/v2/search": self._search, "/v2/scrape": self._scrape, "/v2/crawl": self._crawl}
        route = routes.get(path)
        if route is None:
            return self.error(call, 404, None, f"Cannot {method} {path}")
        if method != "POST" or not isinstance(call.request.json, dict):
            return self.error(call, 400, None, "Invalid JSON body")
        return route(call, call.json_body)

    def _search(self, call: Call, body: dict[str, Any]) -> Response:
        query, limit = body.get("query"), body.get("limit", 5)
        if not isinstance(query, str) or not query.strip():
            return self._invalid(call, "query", "Required")
        if not isinstance(limit, int) or not 1 <= limit <= 100:
            return self._invalid(call, "limit", "Number must be between 1 and 100")
        web = [] if call.empty else _web(call, query, limit)
        return Response.json({"success": True, "data": {"web": web}, "creditsUsed": 2 * (-(-limit // 10))})

    def _scrape(self, call: Call, body: dict[str, Any]) -> Response:
        url = body.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return self._invalid(call, "url", "Invalid url")
        return Response.json({"success": True, "data": _document(call, url)})

    def _crawl(self, call: Call, body: dict[str, Any]) -> Response:
        url = body.get("url")
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return self._invalid(call, "url", "Invalid url")
        limit = body.get("limit", 10)
        if not isinstance(limit, int) or limit < 1:
            return self._invalid(call, "limit", "Number must be greater than 0")
        job = request_id(call, "crawl", url)
        with call.emu.state_lock:
            call.emu.state.setdefault("firecrawl.jobs", {})[job] = {
                "url": url,
                "limit": min(limit, 5),
                "polls": 0,
            }
        base = call.emu.url + "/firecrawl"
        return Response.json({"success": True, "id": job, "url": f"{base}/v2/crawl/{job}"})

    def _cancel(self, call: Call, job_id: str) -> Response:
        """``DELETE /v2/crawl/{id}``: Firecrawl's cancel; the job answers ``cancelled`` from then on."""
        with call.emu.state_lock:
            job = call.emu.state.get("firecrawl.jobs", {}).get(job_id)
            if job is not None:
                job["cancelled"] = True
        if job is None:
            return self.error(call, 404, None, "Crawl job not found.")
        return Response.json({"status": "cancelled"})

    def _status(self, call: Call, job_id: str) -> Response:
        with call.emu.state_lock:
            job = call.emu.state.get("firecrawl.jobs", {}).get(job_id)
            if job is not None:
                job["polls"] += 1
        if job is None:
            return self.error(call, 404, None, "Crawl job not found.")
        if job.get("cancelled"):
            return Response.json({"success": True, "status": "cancelled", "completed": 0, "data": []})
        needed = int(call.emu.state.get("firecrawl.polls_to_complete", 2))
        urls = [job["url"]] + [f"{job['url'].rstrip('/')}/page-{i}" for i in range(1, job["limit"])]
        docs = [] if job["polls"] < needed else [_document(call, u) for u in urls]
        skip = int(call.request.param("skip", "0") or 0)
        page = docs[skip : skip + _PAGE_SIZE]
        out: dict[str, Any] = {
            "success": True,
            "status": "completed" if job["polls"] >= needed else "scraping",
            "total": len(urls),
            "completed": len(docs),
            "creditsUsed": len(docs),
            "expiresAt": "2026-11-25T12:00:00.000Z",
            "data": page,
        }
        if skip + _PAGE_SIZE < len(docs):
            out["next"] = f"{call.emu.url}/firecrawl/v2/crawl/{job_id}?skip={skip + _PAGE_SIZE}"
        return Response.json(out)

    def _invalid(self, call: Call, field: str, message: str) -> Response:
        return Response.json(
            {
                "success": False,
                "code": "BAD_REQUEST",
                "error": "Bad Request",
                "details": [{"code": "custom", "message": message, "path": [field]}],
            },
            400,
        )


def _web(call: Call, query: str, limit: int) -> list[dict[str, Any]]:
    return [
        {"url": h["url"], "title": h["title"], "description": h["snippet"], "position": i}
        for i, h in enumerate(hits(call, query, limit), start=1)
    ]


def _document(call: Call, url: str) -> dict[str, Any]:
    try:
        title, text = read_url(call, url)
    except LookupError as exc:
        return {
            "markdown": "",
            "metadata": {"sourceURL": url, "url": url, "statusCode": 404, "error": str(exc)},
        }
    return {
        "markdown": text,
        "metadata": {
            "title": title,
            "sourceURL": url,
            "url": url,
            "statusCode": 200,
            "scrapeId": request_id(call, url),
            "creditsUsed": 1,
        },
    }


def _mcp_search(call: Call, args: dict[str, Any]) -> str:
    query = args["query"]
    if not isinstance(query, str) or not query.strip():
        raise ValueError("query must be a non-empty string")
    return json.dumps({"web": _web(call, query, int(args.get("limit", 5)))})


def _mcp_scrape(call: Call, args: dict[str, Any]) -> str:
    doc = _document(call, str(args["url"]))
    if doc["metadata"].get("error"):
        raise ToolFailedError(f"Failed to scrape {args['url']}: {doc['metadata']['error']}")
    return json.dumps(doc)


def register(routes: FakeRoutes) -> None:
    routes.add(FirecrawlApi())
    routes.address("firecrawl-mcp", "/firecrawl/v2/mcp", config_key="web.firecrawl.mcp_url")
    routes.keys()  # keyless by default: tests that want the keyed API set FIRECRAWL_API_KEY
