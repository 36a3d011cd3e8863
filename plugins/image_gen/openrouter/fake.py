"""Emulated OpenRouter chat completions with image output (OpenRouter's image-generation and error docs)."""

from __future__ import annotations

import base64
import hashlib
import time
from typing import Any

from hermes_nb.testing.fakes import (
    Call,
    FakeRoutes,
    Response,
    decode_data_uri,
    is_image,
    render,
    retry_after_header,
    sizes,
)

__all__ = ["register", "OpenRouterApi"]

#: model id -> output modalities (image-only models refuse a request that asks for text too)
_MODELS: dict[str, tuple[str, ...]] = {
    "google/gemini-3-pro-image": ("image", "text"),
    "google/gemini-3.1-flash-image": ("image", "text"),
    "openai/gpt-5.4-image-2": ("image", "text"),
    "black-forest-labs/flux.2-pro": ("image",),
    "openai/gpt-4o-mini": ("text",),
}
_RATIOS = sizes("1:1=1024x1024 16:9=1344x768 9:16=768x1344 4:3=1184x864 3:4=864x1184")
_COST_PER_IMAGE = 0.039  # an emulator choice; OpenRouter reports the real one in usage.cost
#: a key with no credits left: 402
BROKE_KEY = "emu-openrouter-broke"


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _err(
    status: int, message: str, metadata: dict[str, Any] | None = None, headers: dict[str, str] | None = None
) -> Response:
    error: dict[str, Any] = {"code": status, "message": message}
    if metadata:
        error["metadata"] = metadata
    return Response.json({"error": error}, status, headers)


class OpenRouterApi:
    """``POST {base}/chat/completions``: Bearer key, ``modalities`` with ``"image"``, ``image_config``."""

    name = "openrouter"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            headers = retry_after_header(retry_after)
            return _err(429, "Rate limit exceeded: free-models-per-min", headers=headers)
        if status == 502:
            return _err(502, "Provider returned error", {"provider_name": "Google"})
        if status == 503:
            return _err(503, "No endpoints found matching your data policy")
        return _err(status, f"Emulated error {status}")

    def handle(self, call: Call) -> Response:
        if call.subpath != "/chat/completions" or call.request.method != "POST":
            return _err(404, "Not Found")
        key = call.bearer()
        if call.auth_fail or not key or key == call.emu.BAD_KEY:
            return _err(401, "No auth credentials found" if not key else "User not found.")
        if key == BROKE_KEY:
            return _err(
                402,
                "This request requires more credits, or fewer max_tokens.",
                {"limit_source": "openrouter_credits"},
            )
        body = call.request.json
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list) or not body["messages"]:
            return _err(400, 'Input required: specify "prompt" or "messages"')
        model = str(body.get("model") or "")
        if model not in _MODELS:
            return _err(400, f"{model} is not a valid model ID")
        wanted = tuple(body.get("modalities") or ("text",))
        outputs = _MODELS[model]
        if any(m not in outputs for m in wanted):
            return _err(
                404, f"No endpoints found that support the requested output modalities: {', '.join(wanted)}"
            )
        prompt, sources = self._content(body["messages"][-1])
        if sources is None:
            return _err(400, "Invalid image: could not decode image_url")
        if call.emu.MODERATION_WORD in prompt.lower():
            return _err(
                403,
                f'{model} requires moderation on Google. Your input was flagged for "violence".',
                {"reasons": ["violence"], "flagged_input": prompt[:100], "provider_name": "Google"},
            )
        if "midstream" in prompt.lower():  # the upstream failed after the stream started: HTTP 200
            return Response.json({"error": {"code": 502, "message": "Upstream error from Google"}})
        if "safety" in prompt.lower():  # the model started, then blocked its own output
            return self._completion(model, [], "", "IMAGE_SAFETY", "content_filter")
        if "image" not in wanted or call.empty:
            return self._completion(
                model, [], "I can describe it, but I cannot draw it here.", "STOP", "stop"
            )
        requested = _dict(body.get("image_config"))
        ratio = str(requested.get("aspect_ratio") or "1:1")
        width, height = _RATIOS.get(ratio, (1024, 1024))
        digest = hashlib.sha256("|".join(sources).encode()).hexdigest()[:12]
        png = render(f"openrouter|{call.emu.seed}|{model}|{prompt}|{ratio}|{digest}", width, height)
        url = "data:image/png;base64," + base64.b64encode(png).decode("ascii")
        text = "" if outputs == ("image",) else "Here is your image."
        return self._completion(model, [url], text, "STOP", "stop")

    @staticmethod
    def _content(message: Any) -> tuple[str, list[str] | None]:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            return content, []
        texts: list[str] = []
        sources: list[str] = []
        for part in content if isinstance(content, list) else []:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text":
                texts.append(str(part.get("text") or ""))
            elif part.get("type") == "image_url":
                url = str((part.get("image_url") or {}).get("url") or "")
                if url.startswith("data:") and not is_image(decode_data_uri(url)):
                    return "", None
                sources.append(url)
        return " ".join(texts), sources

    @staticmethod
    def _completion(model: str, urls: list[str], text: str, native: str, finish: str) -> Response:
        message: dict[str, Any] = {"role": "assistant", "content": text}
        if urls:
            message["images"] = [{"type": "image_url", "image_url": {"url": u}} for u in urls]
        usage = {
            "prompt_tokens": 12,
            "completion_tokens": 1290 * len(urls) + 8,
            "total_tokens": 1310 * len(urls) + 20,
            "cost": round(_COST_PER_IMAGE * len(urls), 6),
        }
        body = {
            "id": "gen-emulated-" + hashlib.sha256(model.encode()).hexdigest()[:12],
            "provider": "Google" if model.startswith("google/") else "OpenRouter",
            "model": model,
            "object": "chat.completion",
            "created": int(time.time()),
            "choices": [
                {
                    "index": 0, "finish_reason": finish, "native_finish_reason": native, "logprobs": None,
                    "message": {**message, "refusal": None},
                }
            ],
            "usage": usage,
        }
        return Response.json(body)


def register(routes: FakeRoutes) -> None:
    routes.add(OpenRouterApi(), prefix="/openrouter/api/v1")
