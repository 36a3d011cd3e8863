"""Emulated xAI API: Grok Imagine generations, edits, ephemeral URLs (image-apis.md §4).

Its ``/responses`` (web search) is the web ``xai`` plugin's fake, under the same prefix.
"""

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
    mask_key,
    render,
    store_file,
)

__all__ = ["register", "XaiApi", "xai_dimensions"]

_XAI_MODELS = {"grok-imagine-image", "grok-imagine-image-quality", "grok-imagine-image-2.0"}
_XAI_REDIRECTED = {"grok-imagine-image-pro": "grok-imagine-image-quality"}
_XAI_DEPRECATED = {"grok-2-image", "grok-2-image-1212"}
_XAI_RATIOS = (
    "1:1",
    "3:4",
    "4:3",
    "9:16",
    "16:9",
    "2:3",
    "3:2",
    "9:19.5",
    "19.5:9",
    "9:20",
    "20:9",
    "1:2",
    "2:1",
)
_XAI_TICKS = {"grok-imagine-image-quality": 500_000_000}  # 1 tick = 1e-10 USD; others 200_000_000 ($0.02)
_INVALID_ARGUMENT = "Client specified an invalid argument"


def xai_dimensions(aspect_ratio: str, resolution: str) -> tuple[int, int]:
    """Pixel size for an xAI ratio: the long edge is 1024 (``1k``) or 2048 (``2k``), a multiple of 16.

    xAI does not publish exact sizes; this mapping is a hermes_nb choice.
    """
    a, b = (float(v) for v in aspect_ratio.split(":"))
    edge = 2048 if resolution == "2k" else 1024
    short = max(16, round(edge * min(a, b) / max(a, b) / 16) * 16)
    return (edge, short) if a >= b else (short, edge)


class XaiApi:
    """``POST {base}/images/generations`` and ``/images/edits`` (JSON); a bad key is HTTP 400."""

    name = "xai"

    @staticmethod
    def _err(
        status: int, message: str, code: str = _INVALID_ARGUMENT, headers: dict[str, str] | None = None
    ) -> Response:
        return Response.json({"code": code, "error": message}, status, headers)

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = {"Retry-After": str(int(retry_after))} if retry_after is not None else {}
        if status == 429:
            return self._err(
                429, "Too many requests: rate limit exceeded for your team.", "Too many requests", headers
            )
        if status >= 500:
            return self._err(status, "Service temporarily unavailable.", "Internal error", headers)
        return self._err(status, f"Emulated error {status}.", headers=headers)

    def handle(self, call: Call) -> Response:
        if call.subpath not in ("/images/generations", "/images/edits") or call.request.method != "POST":
            return self._err(
                404, f"No handler found for route {call.subpath}", "Some requested entity was not found"
            )
        key = call.bearer()
        if call.auth_fail or key == call.emu.BAD_KEY:
            return self._err(
                400,
                f"Incorrect API key provided: {mask_key(key or 'xai-emulated')}. You can obtain "
                "an API key from https://console.x.ai.",
            )
        if not key:
            return self._err(
                400, "No API key provided. Specify your API key in an Authorization header using Bearer auth."
            )
        if not isinstance(call.request.json, dict):
            return self._err(400, "Failed to deserialize the JSON body into the target type.")
        params = call.json_body
        sources: list[Any] = []
        if call.subpath == "/images/edits":
            raw = params.get("images") if params.get("images") is not None else [params.get("image")]
            items = raw if isinstance(raw, list) else [raw]
            sources = [item.get("url") if isinstance(item, dict) else item for item in items if item]
            if not sources or len(sources) > 3 or not all(isinstance(s, str) for s in sources):
                return self._err(400, "image (or up to 3 images) with a url or data URI is required.")
            for source in sources:
                if source.startswith("data:") and not is_image(decode_data_uri(source)):
                    return self._err(400, "Unable to decode the provided image.")
        return self._generate(call, params, sources)

    def _generate(self, call: Call, params: dict[str, Any], sources: list[str]) -> Response:
        emu = call.emu
        model = str(params.get("model") or "grok-imagine-image")
        if model in _XAI_DEPRECATED and not emu.allow_legacy_models:
            return self._err(
                500,
                f"The model {model} has been fully deprecated. Please use grok-imagine-image instead.",
                "Internal error",
            )
        model = _XAI_REDIRECTED.get(model, model)
        if model not in _XAI_MODELS and model not in _XAI_DEPRECATED:
            return self._err(
                404,
                f"The model {model} does not exist or your team does not have access to it.",
                "Some requested entity was not found",
            )
        for unsupported in ("size", "style"):
            if unsupported in params:
                return self._err(400, f"Argument not supported: {unsupported}")
        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return self._err(400, "prompt must be a non-empty string.")
        if emu.MODERATION_WORD in prompt.lower():
            return self._err(400, "Generated image rejected by content moderation.")
        n = params.get("n", 1)
        if not isinstance(n, int) or not 1 <= n <= 10:
            return self._err(400, "n must be between 1 and 10.")
        response_format = params.get("response_format") or "url"
        if response_format not in ("url", "b64_json"):
            return self._err(400, f"Invalid response_format: {response_format}")
        # unknown ratios and resolutions fall back silently, as the live API was seen to do
        ratio = params.get("aspect_ratio") if params.get("aspect_ratio") in _XAI_RATIOS else "1:1"
        resolution = "2k" if params.get("resolution") == "2k" else "1k"
        width, height = xai_dimensions(str(ratio), resolution)
        source_key = hashlib.sha256("|".join(sources).encode()).hexdigest()[:16] if sources else ""
        data = []
        for i in range(0 if call.empty else n):
            jpeg = render(
                f"xai|{emu.seed}|{model}|{prompt}|{ratio}|{resolution}|{source_key}|{i}",
                width,
                height,
                "jpeg",
            )
            item: dict[str, Any] = {
                "url": None,
                "b64_json": None,
                "mime_type": "image/jpeg",
                "revised_prompt": f"{prompt.strip()}, detailed, high quality",
            }
            if response_format == "url":
                item["url"] = store_file(emu, jpeg, "jpg", "image/jpeg")
            else:
                encoded = base64.b64encode(jpeg).decode("ascii")
                item["b64_json"] = f"data:image/jpeg;base64,{encoded}" if emu.xai_b64_data_uri else encoded
            data.append(item)
        ticks = _XAI_TICKS.get(model, 200_000_000) * len(data)
        body = {"created": int(time.time()), "data": data, "usage": {"cost_in_usd_ticks": ticks}}
        return Response.json(
            body,
            headers={
                "x-request-id": source_key or hashlib.sha256(prompt.encode()).hexdigest()[:32],
                "x-metrics-e2e-ms": "900",
            },
        )


def register(routes: FakeRoutes) -> None:
    routes.option("xai_b64_data_uri", True)  # b64_json as a data: URI, as xAI sends it
    routes.add(XaiApi(), prefix="/xai/v1")
