"""Emulated OpenAI-compatible image server: ``POST {base}/images/generations`` (OpenAI's shape).

Like a local server it takes requests with or without a Bearer key (a wrong key is refused).
``emu.openai_compatible_answer`` picks how the image comes back: ``"b64"`` (default, JSON
``data[0].b64_json``), ``"url"`` (``data[0].url`` on the emulator's file store) or ``"sse"``
(Server-Sent Events: ``partial_image`` then ``done``). Errors use OpenAI's ``{"error": {...}}`` body.
"""

from __future__ import annotations

import base64
import json
import time
from typing import Any

from hermes_nb.testing.fakes import MIME, Call, FakeRoutes, Response, render, store_file

__all__ = ["register", "OpenAICompatibleApi"]


def _err(status: int, message: str, code: str | None = None) -> Response:
    error = {"message": message, "type": "invalid_request_error", "code": code}
    return Response.json({"error": error}, status)


class OpenAICompatibleApi:
    name = "openai-compatible"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        return _err(status, f"Emulated error {status}.")

    def handle(self, call: Call) -> Response:
        if call.subpath != "/images/generations" or call.request.method != "POST":
            return _err(404, f"Not found: {call.request.method} {call.subpath}")
        key = call.bearer()
        if call.auth_fail or key == call.emu.BAD_KEY:
            return _err(401, "Invalid API key.", "invalid_api_key")
        params = call.request.json
        if not isinstance(params, dict):
            return _err(400, "Body must be a JSON object.")
        prompt, model = params.get("prompt"), params.get("model")
        if not isinstance(prompt, str) or not prompt.strip():
            return _err(400, "prompt is required")
        if not isinstance(model, str) or not model:
            return _err(400, "model is required")
        try:
            width, height = (int(v) for v in str(params.get("size") or "1024x1024").lower().split("x"))
        except ValueError:
            return _err(400, f"Invalid size {params.get('size')!r}.")
        data = render(f"openai-compatible|{call.emu.seed}|{model}|{prompt}", width, height, "png")
        answer = call.emu.openai_compatible_answer
        if answer == "url":
            item: dict[str, Any] = {"url": store_file(call.emu, data, "png", MIME["png"], ephemeral=False)}
        else:
            item = {"b64_json": base64.b64encode(data).decode("ascii")}
        items = [] if call.empty else [item]
        body = {"created": int(time.time()), "data": items, "size": f"{width}x{height}"}
        if answer != "sse":
            return Response.json(body)
        partial = {"type": "image_generation.partial_image", "partial_image_index": 0}
        events = [("partial_image", partial), ("done", body)]
        text = "".join(f"event: {name}\ndata: {json.dumps(payload)}\n\n" for name, payload in events)
        return Response.text(text, content_type="text/event-stream")


def register(routes: FakeRoutes) -> None:
    routes.add(
        OpenAICompatibleApi(),
        prefix="/openai-compatible/v1",
        base_url_key="image_gen.openai_compatible.base_url",
    )
    routes.keys("OPENAI_COMPATIBLE_IMAGE_API_KEY")  # optional for the provider; set, to see it sent
    routes.option("openai_compatible_answer", "b64")
