"""Emulated Gemini API image generation: ``/models/{model}:generateContent`` and Imagen ``:predict`` (§10).

Auth is ``x-goog-api-key`` (or ``?key=``); a bad key is HTTP 400 ``INVALID_ARGUMENT`` with reason
``API_KEY_INVALID``. Image models answer ``inlineData`` parts plus ``usageMetadata``; prompts
containing ``emu.MODERATION_WORD`` finish ``IMAGE_SAFETY`` without an image. Imagen ``:predict`` and
retired Gemini image ids are 404 ``NOT_FOUND`` unless ``emu.allow_legacy_models``.
"""

from __future__ import annotations

import base64
import hashlib
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, is_image, render, sizes

__all__ = ["register", "GoogleApi", "RATIO_SIZES"]

_IMAGE_MODELS = {"gemini-3.1-flash-image", "gemini-3.1-flash-image-preview", "gemini-3-pro-image-preview"}
_RETIRED = {"gemini-2.5-flash-image", "gemini-2.5-flash-image-preview"}
_IMAGEN = {"imagen-4.0-generate-001", "imagen-4.0-ultra-generate-001", "imagen-4.0-fast-generate-001"}
#: 1K output size per ratio (Gemini's published 1K sizes); 2K/4K double and quadruple them
RATIO_SIZES = sizes(
    "1:1=1024x1024 2:3=848x1264 3:2=1264x848 3:4=896x1200 4:3=1200x896 4:5=928x1152 5:4=1152x928 "
    "9:16=768x1376 16:9=1376x768 21:9=1584x672"
)
_SCALE = {"1K": 1, "2K": 2, "4K": 4}
_IMAGE_TOKENS = {"1K": 1120, "2K": 1680, "4K": 2520}
_STATUS = {
    400: "INVALID_ARGUMENT",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    429: "RESOURCE_EXHAUSTED",
    500: "INTERNAL",
    503: "UNAVAILABLE",
}


def _error(
    status: int,
    message: str,
    reason: str | None = None,
    extra: list[dict[str, Any]] | None = None,
    headers: dict[str, str] | None = None,
) -> Response:
    details: list[dict[str, Any]] = []
    if reason:
        details.append(
            {
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason,
                "domain": "googleapis.com",
                "metadata": {"service": "generativelanguage.googleapis.com"},
            }
        )
    details.extend(extra or [])
    body: dict[str, Any] = {"code": status, "message": message, "status": _STATUS.get(status, "UNKNOWN")}
    if details:
        body["details"] = details
    return Response.json({"error": body}, status, headers)


def _not_found(model: str, method: str) -> Response:
    return _error(
        404,
        f"models/{model} is not found for API version v1beta, or is not supported for {method}. "
        "Call ListModels to see the list of available models and their supported methods.",
    )


class GoogleApi:
    """``POST {base}/models/{model}:generateContent`` (and ``:predict`` for legacy Imagen)."""

    name = "google"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            delay = f"{int(retry_after if retry_after is not None else 30)}s"
            retry = {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": delay}
            return _error(
                429,
                "You exceeded your current quota, please check your plan and billing details.",
                extra=[retry],
            )
        if status >= 500:
            return _error(status, "The model is overloaded. Please try again later.")
        return _error(status, f"Emulated error {status}")

    def handle(self, call: Call) -> Response:
        key = call.header("x-goog-api-key") or call.request.param("key")
        if call.auth_fail or key == call.emu.BAD_KEY:
            return _error(400, "API key not valid. Please pass a valid API key.", "API_KEY_INVALID")
        if not key:
            return _error(
                403,
                "Method doesn't allow unregistered callers (callers without established identity). "
                "Please use API Key or other form of API consumer identity to call this API.",
            )
        path = call.subpath
        if call.request.method != "POST" or not path.startswith("/models/") or ":" not in path:
            return _error(404, f"Requested entity was not found: {path}")
        model, _, method = path.removeprefix("/models/").partition(":")
        legacy = call.emu.allow_legacy_models
        if method == "predict":
            return self._predict(call, model) if legacy and model in _IMAGEN else _not_found(model, "predict")
        if method != "generateContent":
            return _error(404, f"Method not found: {method}")
        if model not in _IMAGE_MODELS and not (legacy and model in _RETIRED):
            return _not_found(model, "generateContent")
        return self._generate(call, model)

    def _generate(self, call: Call, model: str) -> Response:
        emu, body = call.emu, call.json_body
        contents = body.get("contents")
        parts = (
            contents[-1].get("parts")
            if isinstance(contents, list) and contents and isinstance(contents[-1], dict)
            else None
        )
        if not isinstance(parts, list) or not parts:
            return _error(400, "* GenerateContentRequest.contents: contents is not specified")
        texts = [str(p["text"]) for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
        images = [
            p["inlineData"] for p in parts if isinstance(p, dict) and isinstance(p.get("inlineData"), dict)
        ]
        for inline in images:
            try:
                data = base64.b64decode(str(inline.get("data", "")), validate=True)
            except ValueError:
                data = b""
            if not is_image(data):
                return _error(
                    400,
                    "Unable to process input image. Please retry or report in "
                    "https://developers.generativeai.google/guide/troubleshooting",
                )
        generation = _obj(body.get("generationConfig"))
        modalities = generation.get("responseModalities") or ["TEXT"]
        image_config = _obj(generation.get("imageConfig"))
        ratio = image_config.get("aspectRatio", "1:1")
        size = image_config.get("imageSize", "1K")
        if ratio not in RATIO_SIZES:
            return _error(
                400,
                f"* GenerateContentRequest.generation_config.image_config.aspect_ratio: "
                f"unsupported value {ratio!r}",
            )
        if size not in _SCALE:
            return _error(
                400,
                f"* GenerateContentRequest.generation_config.image_config.image_size: "
                f"unsupported value {size!r}",
            )
        prompt = " ".join(texts)
        usage = {"promptTokenCount": max(1, len(prompt.split())) + 258 * len(images)}
        if emu.MODERATION_WORD in prompt.lower():
            candidate: dict[str, Any] = {
                "content": {"role": "model", "parts": []},
                "finishReason": "IMAGE_SAFETY",
                "index": 0,
            }
            usage.update(candidatesTokenCount=0, totalTokenCount=usage["promptTokenCount"])
            return Response.json({"candidates": [candidate], "usageMetadata": usage, "modelVersion": model})
        out_parts: list[dict[str, Any]] = []
        if "TEXT" in modalities:
            out_parts.append({"text": "Here is the image you asked for."})
        if "IMAGE" in modalities and not call.empty:
            width, height = (side * _SCALE[size] for side in RATIO_SIZES[ratio])
            source_key = hashlib.sha256(
                "|".join(str(i.get("data", "")) for i in images).encode()
            ).hexdigest()[:16]
            data = render(
                f"google|{emu.seed}|{model}|{prompt}|{ratio}|{size}|{source_key}", width, height
            )
            out_parts.append(
                {"inlineData": {"mimeType": "image/png", "data": base64.b64encode(data).decode()}}
            )
        image_tokens = _IMAGE_TOKENS[size] if "IMAGE" in modalities and not call.empty else 0
        usage.update(
            candidatesTokenCount=image_tokens, totalTokenCount=usage["promptTokenCount"] + image_tokens
        )
        finish = "STOP" if image_tokens or "IMAGE" not in modalities else "NO_IMAGE"
        candidate = {"content": {"role": "model", "parts": out_parts}, "finishReason": finish, "index": 0}
        return Response.json(
            {
                "candidates": [candidate],
                "usageMetadata": usage,
                "modelVersion": model,
                "responseId": hashlib.sha256(prompt.encode()).hexdigest()[:22],
            }
        )

    def _predict(self, call: Call, model: str) -> Response:
        """Legacy Imagen (``emu.allow_legacy_models``): ``instances[].prompt`` → ``bytesBase64Encoded``."""
        body = call.json_body
        instances = body.get("instances")
        prompt = (
            instances[0].get("prompt")
            if isinstance(instances, list) and instances and isinstance(instances[0], dict)
            else None
        )
        if not isinstance(prompt, str) or not prompt.strip():
            return _error(400, "* instances[0].prompt: prompt is required")
        params = _obj(body.get("parameters"))
        ratio = params.get("aspectRatio", "1:1")
        if ratio not in ("1:1", "3:4", "4:3", "9:16", "16:9"):
            return _error(400, f"Unsupported aspect ratio {ratio!r}")
        if call.emu.MODERATION_WORD in prompt.lower():
            return Response.json({"predictions": [{"raiFilteredReason": "Your prompt was blocked."}]})
        count = params.get("sampleCount", 1)
        size = params.get("sampleImageSize") or params.get("imageSize") or "1K"
        scale = 2 if size == "2K" else 1
        width, height = (side * scale for side in RATIO_SIZES[ratio])
        predictions = [
            {
                "bytesBase64Encoded": base64.b64encode(
                    render(f"imagen|{call.emu.seed}|{model}|{prompt}|{ratio}|{i}", width, height)
                ).decode(),
                "mimeType": "image/png",
            }
            for i in range(int(count) if isinstance(count, int) and 1 <= count <= 4 else 1)
        ]
        return Response.json({"predictions": predictions})


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def register(routes: FakeRoutes) -> None:
    routes.add(GoogleApi(), prefix="/google/v1beta")
    routes.keys("GEMINI_API_KEY")  # the provider also reads GOOGLE_API_KEY; its manifest lists none
