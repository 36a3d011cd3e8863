"""Emulated Brave Search API (reference/web-apis.md §3): results, rate-limit headers, validation errors."""

from __future__ import annotations

import html
import re
import time
from typing import Any
from urllib.parse import urlsplit

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, request_id

__all__ = ["BraveApi", "register"]


class BraveApi:
    """``GET {base}/res/v1/web/search`` with ``X-Subscription-Token``; bad token = 422."""

    name = "brave"
    _LIMIT_HEADERS = {"X-RateLimit-Limit": "1, 15000", "X-RateLimit-Policy": "1;w=1, 15000;w=2592000"}

    def _error(
        self,
        call: Call,
        status: int,
        code: str,
        detail: str,
        meta: dict[str, Any],
        headers: dict[str, str] | None = None,
    ) -> Response:
        body = {
            "type": "ErrorResponse",
            "error": {
                "id": request_id(call, code),
                "status": status,
                "code": code,
                "detail": detail,
                "meta": meta,
            },
            "time": int(time.time()),
        }
        return Response.json(body, status, headers)

    def _validation(self, call: Call, loc: list[str], msg: str) -> Response:
        meta = {"component": "validation", "errors": [{"type": "value_error", "loc": loc, "msg": msg}]}
        return self._error(call, 422, "VALIDATION", "Unable to validate request parameter(s)", meta)

    def handle(self, call: Call) -> Response:
        if call.subpath != "/res/v1/web/search" or call.request.method not in ("GET", "POST"):
            return self._error(call, 404, "NOT_FOUND", "Resource not found", {"component": "api"})
        token = call.header("x-subscription-token")
        if not token and not call.auth_fail:
            meta = {
                "component": "validation",
                "errors": [
                    {"type": "missing", "loc": ["header", "x-subscription-token"], "msg": "Field required"}
                ],
            }
            return self._error(call, 422, "VALIDATION", "Unable to validate request parameter(s)", meta)
        if call.auth_fail or token == call.emu.BAD_KEY:
            return self._error(
                call,
                422,
                "SUBSCRIPTION_TOKEN_INVALID",
                "The provided subscription token is invalid.",
                {"component": "authentication"},
            )
        params = {k: v[0] for k, v in call.request.query.items()}
        if call.request.method == "POST":
            params.update({k: str(v) for k, v in call.json_body.items()})
        query = params.get("q", "")
        if not query.strip() or len(query) > 400 or len(query.split()) > 50:
            return self._validation(call, ["query", "q"], "q must be 1-400 characters and at most 50 words")
        try:
            count = int(params.get("count", "20"))
            offset = int(params.get("offset", "0"))
        except ValueError:
            return self._validation(call, ["query", "count"], "count and offset must be integers")
        if not 1 <= count <= 20:
            return self._validation(call, ["query", "count"], "Input should be less than or equal to 20")
        if not 0 <= offset <= 9:
            return self._validation(call, ["query", "offset"], "Input should be less than or equal to 9")
        used = call.emu.request_count("brave")
        headers = {
            **self._LIMIT_HEADERS,
            "X-RateLimit-Remaining": f"0, {max(0, 15000 - used)}",
            "X-RateLimit-Reset": "1, 2592000",
        }
        body: dict[str, Any] = {
            "type": "search",
            "query": {
                "original": query,
                "show_strict_warning": False,
                "is_navigational": False,
                "more_results_available": offset < 9,
                "country": params.get("country", "us"),
            },
        }
        if not call.empty:
            # Brave omits a section that has no results, so an empty answer has no "web" key
            body["web"] = {
                "type": "search",
                "family_friendly": True,
                "results": [self._result(query, hit) for hit in hits(call, query, count, offset * count)],
            }
        return Response.json(body, headers=headers)

    @staticmethod
    def _result(query: str, hit: dict[str, Any]) -> dict[str, Any]:
        description = html.escape(hit["snippet"])
        for term in {t for t in query.split() if t.isalnum()}:
            description = re.sub(rf"\b({re.escape(term)})\b", r"<strong>\1</strong>", description, flags=re.I)
        parts = urlsplit(hit["url"])
        return {
            "type": "search_result",
            "title": hit["title"],
            "url": hit["url"],
            "description": description,
            "age": hit["date"],
            "page_age": hit["date"] + "T00:00:00",
            "language": "en",
            "family_friendly": True,
            "profile": {
                "name": parts.hostname,
                "url": hit["url"],
                "long_name": parts.hostname,
                "img": f"https://imgs.search.brave.com/{parts.hostname}.png",
            },
            "meta_url": {
                "scheme": parts.scheme,
                "netloc": parts.netloc,
                "hostname": parts.hostname,
                "favicon": f"https://imgs.search.brave.com/{parts.hostname}.ico",
                "path": parts.path,
            },
        }

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            # Brave sends no Retry-After: the wait is the per-second X-RateLimit-Reset value
            reset = str(int(retry_after)) if retry_after is not None else "1"
            headers = {
                **self._LIMIT_HEADERS,
                "X-RateLimit-Remaining": "0, 14000",
                "X-RateLimit-Reset": f"{reset}, 2592000",
            }
            return self._error(
                call,
                429,
                "RATE_LIMITED",
                "Request rate limit exceeded for plan.",
                {"component": "rate_limiter", "plan": "Free", "rate_limit": 1, "rate_current": 2},
                headers,
            )
        code = {422: "VALIDATION", 404: "SUBSCRIPTION_NOT_FOUND"}.get(status, "INTERNAL_ERROR")
        return self._error(call, status, code, f"Emulated error {status}.", {"component": "api"})


def register(routes: FakeRoutes) -> None:
    routes.add(BraveApi())
