"""Emulated Jina Reader (``r.jina.ai``, keyless or keyed) and Jina Search (``s.jina.ai``, keyed)."""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, read_url, retry_after_header

__all__ = ["register", "JinaApi", "JinaSearchApi"]

_JINA_ERRORS = {
    401: ("AuthenticationFailedError", 1, "Invalid API key, please get a new one from the Jina dashboard."),
    402: ("InsufficientBalanceError", 3, "Account balance not enough to run this query, please recharge."),
    422: ("ParamValidationError", 2, "Invalid request parameters."),
    429: ("RateLimitTriggeredError", 3, "Per IP rate limit exceeded."),
}


def _err(status: int, name: str, sub: int, message: str, headers: dict[str, str] | None = None) -> Response:
    body = {
        "data": None,
        "code": status,
        "name": name,
        "status": status * 100 + sub,
        "message": message,
        "readableMessage": f"{name}: {message}",
    }
    return Response.json(body, status, headers)


def _error(status: int, retry_after: float | None) -> Response:
    name, sub, message = _JINA_ERRORS.get(status, ("InternalServerError", 0, "Internal server error."))
    headers = retry_after_header(retry_after)
    return _err(status, name, sub, message, headers)


def _wants_json(call: Call) -> bool:
    return "application/json" in (call.header("accept") or "")


class JinaApi:
    """``GET {base}/<url>`` (or ``POST {base}/`` with ``{"url"}``): the page as Markdown text or JSON.

    Works without a key (the keyless tier); a bearer token is optional and ``bad-key`` is refused.
    """

    name = "jina"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return _error(status, retry_after)

    def handle(self, call: Call) -> Response:
        if call.auth_fail or call.bearer() == call.emu.BAD_KEY:
            return self.error(call, 401, None)
        if call.request.method == "POST":
            target = str(call.json_body.get("url", ""))
        else:
            target = call.subpath.lstrip("/")
            if target.lower().startswith(("http%3a", "https%3a")):
                target = unquote(target)
            query = "&".join(f"{k}={v}" for k, values in call.request.query.items() for v in values)
            target += f"?{query}" if query else ""
        if not target:
            return _err(422, "ParamValidationError", 2, "url is required.")
        if call.empty:
            return Response.text("")
        try:
            title, content = read_url(call, target)
        except LookupError as exc:
            return _err(422, "AssertionFailureError", 6, f"Failed to goto {target}: {exc}")
        if (call.header("x-respond-with") or call.header("x-return-format") or "") == "text":
            content = "\n".join(line.lstrip("# ") for line in content.splitlines())
        if _wants_json(call):
            data = {
                "title": title,
                "description": "",
                "url": target,
                "content": content,
                "usage": {"tokens": max(1, len(content) // 4)},
            }
            return Response.json({"code": 200, "status": 20000, "data": data})
        text = f"Title: {title}\n\nURL Source: {target}\n\nMarkdown Content:\n{content}\n"
        return Response.text(text)


class JinaSearchApi:
    """``GET {search_base}/?q=&count=`` (or ``/<query>``): results with their content; a key is required."""

    name = "jina-search"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return _error(status, retry_after)

    def handle(self, call: Call) -> Response:
        token = call.bearer()
        if call.auth_fail or not token or token == call.emu.BAD_KEY:
            return self.error(call, 401, None)
        params = {k: v[0] for k, v in call.request.query.items() if v}
        query = params.get("q") or unquote(call.subpath.lstrip("/"))
        if not query.strip():
            return _err(422, "ParamValidationError", 2, "q is required.")
        raw = params.get("count") or params.get("num") or "5"
        count = int(raw) if raw.isdigit() else -1
        if not 0 <= count <= 20:
            return _err(422, "ParamValidationError", 2, "count must be between 0 and 20.")
        found = [] if call.empty else hits(call, query, count)
        items: list[dict[str, Any]] = [
            {
                "title": hit["title"],
                "url": hit["url"],
                "description": hit["snippet"],
                "content": f"# {hit['title']}\n\n{hit['snippet']}",
                "date": hit["date"],
                "usage": {"tokens": 40},
            }
            for hit in found
        ]
        if _wants_json(call):
            return Response.json({"code": 200, "status": 20000, "data": items})
        text = "\n\n".join(
            f"[{n}] Title: {i['title']}\n[{n}] URL Source: {i['url']}\n[{n}] Description: {i['description']}"
            for n, i in enumerate(items, 1)
        )
        return Response.text(text)


def register(routes: FakeRoutes) -> None:
    routes.add(JinaApi())
    routes.add(JinaSearchApi(), base_url_key="web.jina.search_base_url")  # s.jina.ai: its own host
