"""Emulated Responses API with the ``image_generation`` tool, streamed as server-sent events (reference §3).

One route, two callers: an API key (the public API) or a ChatGPT login JWT (the Codex backend, which
also wants ``stream``, ``store: false`` and non-empty ``instructions``). The account ``NO_TOOL_ACCOUNT``
has no image tool (the exact 400 Codex answers); "forbidden" in the prompt fails the stream with
``moderation_blocked``; "partial only" streams a partial image but no final one.
"""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, decode_data_uri, is_image, mask_key, render

__all__ = ["register", "CodexApi", "NO_TOOL_ACCOUNT", "make_jwt"]

NO_TOOL_ACCOUNT = "acct-without-image-tool"
_SIZES = {
    "1024x1024": (1024, 1024),
    "1536x1024": (1536, 1024),
    "1024x1536": (1024, 1536),
    "auto": (1024, 1024),
}
_NO_TOOL = "Tool choice 'image_generation' not found in 'tools' parameter."


def make_jwt(claims: dict[str, Any]) -> str:
    """An unsigned JWT carrying ``claims`` (what a ChatGPT login token looks like to a client)."""

    def part(data: dict[str, Any]) -> str:
        return base64.urlsafe_b64encode(json.dumps(data).encode()).decode().rstrip("=")

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(claims)}.sig"


def _claims(token: str) -> dict[str, Any] | None:
    try:
        payload = token.split(".")[1]
        data = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except (IndexError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _err(
    status: int, message: str, code: str | None = None, type_: str = "invalid_request_error"
) -> Response:
    return Response.json({"error": {"message": message, "type": type_, "param": None, "code": code}}, status)


def _sse(events: list[dict[str, Any]]) -> Response:
    lines = []
    for number, event in enumerate(events):
        event = {**event, "sequence_number": number}
        lines.append(f"event: {event['type']}\ndata: {json.dumps(event)}\n\n")
    return Response(200, "".join(lines).encode("utf-8"), "text/event-stream; charset=utf-8")


class CodexApi:
    """``POST {base}/responses`` with ``tools: [{"type": "image_generation", …}]``."""

    name = "openai-codex"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            response = _err(429, "You've hit your usage limit.", "usage_limit_reached", "usage_limit_reached")
            if retry_after is not None:
                response.headers["retry-after"] = str(int(retry_after))
            return response
        if status >= 500:
            return _err(status, "An error occurred while processing your request.", None, "server_error")
        return _err(status, f"Emulated error {status}.")

    def handle(self, call: Call) -> Response:
        if call.subpath != "/responses" or call.request.method != "POST":
            return _err(404, f"Invalid URL ({call.request.method} {call.subpath})")
        token = call.bearer() or ""
        claims = _claims(token) if token.count(".") == 2 else None
        if call.auth_fail or not token or token == call.emu.BAD_KEY:
            return _err(401, f"Incorrect API key provided: {mask_key(token or 'none')}.", "invalid_api_key")
        body = call.json_body
        codex = claims is not None
        if codex:
            auth = claims.get("https://api.openai.com/auth") if claims else None
            account = auth.get("chatgpt_account_id") if isinstance(auth, dict) else None
            if call.header("chatgpt-account-id") != account:
                return Response.json({"detail": "Unauthorized: account mismatch"}, 401)
            if not str(body.get("instructions") or "").strip():
                return Response.json({"detail": "Instructions are required"}, 400)
            if body.get("stream") is not True:
                return Response.json({"detail": "Stream must be set to true"}, 400)
            if body.get("store") is not False:
                return Response.json({"detail": "Store must be set to false"}, 400)
            if account == NO_TOOL_ACCOUNT:
                return _err(400, _NO_TOOL)
        tools = [
            t for t in body.get("tools") or [] if isinstance(t, dict) and t.get("type") == "image_generation"
        ]
        if not tools:
            return _err(400, _NO_TOOL)
        tool = tools[0]
        if tool.get("model", "gpt-image-2") not in ("gpt-image-2", "gpt-image-2-2026-04-21"):
            return _err(400, f"Invalid value for tools[0].model: '{tool.get('model')}'.", "invalid_value")
        if tool.get("quality", "auto") not in ("low", "medium", "high", "auto"):
            return _err(400, f"Invalid value: '{tool.get('quality')}'.", "invalid_value")
        prompt, sources = self._input(body.get("input"))
        if sources is None:
            return _err(400, "Invalid image data in input_image.", "invalid_image_format")
        return self._stream(call, body, tool, prompt, sources)

    @staticmethod
    def _input(items: Any) -> tuple[str, list[str] | None]:
        texts: list[str] = []
        sources: list[str] = []
        for item in items if isinstance(items, list) else []:
            for part in (item.get("content") or []) if isinstance(item, dict) else []:
                if not isinstance(part, dict):
                    continue
                if part.get("type") == "input_text":
                    texts.append(str(part.get("text") or ""))
                elif part.get("type") == "input_image":
                    url = str(part.get("image_url") or "")
                    if url.startswith("data:") and not is_image(decode_data_uri(url)):
                        return "", None
                    sources.append(url)
        return " ".join(texts), sources

    def _stream(
        self, call: Call, body: dict[str, Any], tool: dict[str, Any], prompt: str, sources: list[str]
    ) -> Response:
        emu = call.emu
        size = str(tool.get("size") or "auto")
        quality = str(tool.get("quality") or "auto")
        width, height = _SIZES.get(size, (1024, 1024))
        key = hashlib.sha256(f"{emu.seed}|{prompt}|{size}|{quality}|{'|'.join(sources)}".encode()).hexdigest()
        item_id = "ig_" + key[:16]
        response: dict[str, Any] = {
            "id": "resp_" + key[:16],
            "object": "response",
            "model": body.get("model"),
            "status": "in_progress",
        }
        events: list[dict[str, Any]] = [
            {"type": "response.created", "response": response},
            {"type": "response.in_progress", "response": response},
        ]
        usage = {"input_tokens": 120, "output_tokens": 40, "total_tokens": 160}
        if call.empty:  # the model answered in words
            message = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": "I would rather describe it."}],
            }
            done = {**response, "status": "completed", "output": [message], "usage": usage}
            return _sse(
                [
                    *events,
                    {"type": "response.output_item.done", "item": message},
                    {"type": "response.completed", "response": done},
                ]
            )
        pending = {"type": "image_generation_call", "id": item_id, "status": "in_progress"}
        events += [
            {"type": "response.output_item.added", "output_index": 0, "item": pending},
            {"type": "response.image_generation_call.in_progress", "output_index": 0, "item_id": item_id},
            {"type": "response.image_generation_call.generating", "output_index": 0, "item_id": item_id},
        ]
        if emu.MODERATION_WORD in prompt.lower():
            error = {
                "code": "moderation_blocked",
                "message": "Your request was rejected by the safety system. safety_violations=[sexual].",
            }
            failed = {**response, "status": "failed", "error": error, "output": []}
            return _sse([*events, {"type": "response.failed", "response": failed}])
        for index in range(min(int(tool.get("partial_images") or 0), 3)):
            partial = render(f"codex-partial|{key}|{index}", max(1, width // 8), max(1, height // 8))
            events.append(
                {
                    "type": "response.image_generation_call.partial_image",
                    "output_index": 0,
                    "item_id": item_id,
                    "partial_image_index": index,
                    "partial_image_b64": base64.b64encode(partial).decode("ascii"),
                }
            )
        if "partial only" in prompt.lower():
            return _sse(events)  # the stream broke off after a partial image
        png = render(f"codex|{key}", width, height)
        item = {
            "type": "image_generation_call",
            "id": item_id,
            "status": "completed",
            "result": base64.b64encode(png).decode("ascii"),
            "revised_prompt": f"{prompt.strip()}, detailed",
            "size": f"{width}x{height}",
            "quality": quality if quality != "auto" else "medium",
            "output_format": tool.get("output_format", "png"),
            "background": "opaque",
        }
        events += [
            {"type": "response.image_generation_call.completed", "output_index": 0, "item_id": item_id},
            {"type": "response.output_item.done", "output_index": 0, "item": item},
            {
                "type": "response.completed",
                "response": {**response, "status": "completed", "output": [item], "usage": usage},
            },
        ]
        return _sse(events)


def register(routes: FakeRoutes) -> None:
    routes.add(CodexApi())
