"""Emulated xAI Responses API with the server-side ``web_search`` tool (reference/web-apis.md §12).

Grok answers in prose with ``url_citation`` annotations and a top-level ``citations`` list; there is
no structured result list. The question is the last line of the user's input (a ``Query:`` label
dropped). A model follows its prompt: one that asks for a JSON object with a ``results`` list (as
Hermes's own xai plugin does) gets that object as the text, the annotations still citing each URL.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlsplit

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, hits, mask_key, request_id

__all__ = ["XaiSearchApi", "register", "web_search_response"]

_MAX_DOMAINS = 5


def _err(status: int, message: str, code: str = "Client specified an invalid argument") -> Response:
    return Response.json({"code": code, "error": message}, status)


def _prompt(body: dict[str, Any]) -> str:
    raw = body.get("input")
    if isinstance(raw, list):
        texts = [str(m.get("content") or "") for m in raw if isinstance(m, dict) and m.get("role") == "user"]
        raw = texts[-1] if texts else ""
    return str(raw or "")


def _question(body: dict[str, Any]) -> str:
    lines = [line.strip() for line in _prompt(body).splitlines() if line.strip()]
    last = lines[-1] if lines else ""
    return last.split(":", 1)[1].strip() if last.lower().startswith("query:") else last


def _wants_json(body: dict[str, Any]) -> bool:
    """The prompt asks for a JSON object with a ``results`` list (Hermes's xai plugin does)."""
    return '{"results"' in _prompt(body)


def web_search_response(call: Call) -> Response:
    """``POST {base}/responses``: a bad key is HTTP 400, as xAI answers it."""
    if call.request.method != "POST":
        return _err(405, "Method not allowed")
    key = call.bearer()
    if call.auth_fail or key == call.emu.BAD_KEY:
        return _err(
            400,
            f"Incorrect API key provided: {mask_key(key or 'xai-emulated')}. You can obtain an "
            "API key from https://console.x.ai.",
        )
    if not key:
        return _err(
            400, "No API key provided. Specify your API key in an Authorization header using Bearer auth."
        )
    body = call.json_body
    question = _question(body)
    if not body.get("model") or not question:
        return _err(400, "model and a user input are required")
    tools = [t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") == "web_search"]
    if not tools:
        return Response.json(_response(call, body, question, []))
    tool = tools[0]
    raw_filters = tool.get("filters")
    filters: dict[str, Any] = raw_filters if isinstance(raw_filters, dict) else tool
    allowed = list(filters.get("allowed_domains") or [])
    excluded = list(filters.get("excluded_domains") or [])
    if allowed and excluded:
        return _err(400, "allowed_domains and excluded_domains cannot be set together")
    if len(allowed) > _MAX_DOMAINS or len(excluded) > _MAX_DOMAINS:
        return _err(400, f"at most {_MAX_DOMAINS} domains may be given")
    found = [] if call.empty else hits(call, question, 6)
    for index, hit in enumerate(found):
        if allowed:
            parts = urlsplit(hit["url"])
            hit["url"] = f"https://{allowed[index % len(allowed)]}{parts.path}"
    found = [h for h in found if urlsplit(h["url"]).hostname not in excluded][:4]
    return Response.json(_response(call, body, question, found))


def _json_answer(found: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The JSON object the prompt asked for, each URL in it cited by a ``url_citation``."""
    rows = [{"title": h["title"], "url": h["url"], "description": h["snippet"]} for h in found]
    text = json.dumps({"results": rows}, ensure_ascii=False)
    annotations = []
    for hit in found:
        start = text.index(json.dumps(hit["url"])[1:-1])
        annotations.append({"type": "url_citation", "url": hit["url"], "title": hit["title"],
                            "start_index": start, "end_index": start + len(hit["url"])})
    return text, annotations


def _prose_answer(question: str, found: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """Grok's usual answer: prose, each sentence citing the page it came from."""
    text, annotations = f"Here is what the web says about {question}.", []
    for hit in found:
        sentence = f" {hit['snippet']}"
        start = len(text) + 1
        text += sentence
        annotations.append(
            {
                "type": "url_citation",
                "url": hit["url"],
                "title": hit["title"],
                "start_index": start,
                "end_index": len(text),
            }
        )
    return text, annotations


def _response(call: Call, body: dict[str, Any], question: str, found: list[dict[str, Any]]) -> dict[str, Any]:
    if _wants_json(body):
        text, annotations = _json_answer(found)
    else:
        text, annotations = _prose_answer(question, found)
    rid = request_id(call, question)
    output: list[dict[str, Any]] = []
    if found:
        output.append(
            {
                "type": "web_search_call",
                "id": f"ws_{rid[:8]}",
                "status": "completed",
                "action": {"type": "search", "query": question},
            }
        )
    output.append(
        {
            "type": "message",
            "id": f"msg_{rid[:8]}",
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": text, "annotations": annotations, "logprobs": []}],
        }
    )
    return {
        "id": f"resp_{rid}",
        "object": "response",
        "created_at": int(time.time()),
        "model": body["model"],
        "status": "completed",
        "output": output,
        "citations": [h["url"] for h in found],
        # the fields OpenAI's Response object requires, which xAI's Responses API also returns
        "error": None,
        "incomplete_details": None,
        "instructions": body.get("instructions"),
        "metadata": {},
        "parallel_tool_calls": True,
        "temperature": None,
        "tool_choice": "auto",
        "tools": body.get("tools") or [],
        "top_p": None,
        "usage": {
            "input_tokens": 120,
            "input_tokens_details": {"cached_tokens": 0, "cache_write_tokens": 0},
            "output_tokens": 40 + 20 * len(found),
            "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": 160 + 20 * len(found),
            "num_sources_used": len(found),
            "num_server_side_tools_used": 1 if found else 0,
        },
    }


class XaiSearchApi:
    """``POST {base}/responses`` on xAI's API (its images are the image_gen ``xai`` plugin's fake)."""

    name = "xai"

    def handle(self, call: Call) -> Response:
        return web_search_response(call)

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = {"Retry-After": str(int(retry_after))} if retry_after is not None else {}
        if status == 429:
            body = {"code": "Too many requests",
                    "error": "Too many requests: rate limit exceeded for your team."}
        elif status >= 500:
            body = {"code": "Internal error", "error": "Service temporarily unavailable."}
        else:
            body = {"code": "Client specified an invalid argument", "error": f"Emulated error {status}."}
        return Response.json(body, status, headers)


def register(routes: FakeRoutes) -> None:
    routes.add(XaiSearchApi(), prefix="/xai/v1", paths=("/responses",))  # shares xAI's prefix with images
