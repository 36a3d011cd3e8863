"""Emulated OpenAI Images API: generations (JSON) and edits (multipart) (reference/image-apis.md §2)."""

from __future__ import annotations

import base64
import hashlib
import time
from typing import Any

from hermes_nb.testing.fakes import Call, FakeRoutes, Response, is_image, mask_key, parse_multipart, render

__all__ = ["register", "OpenAIApi"]

_OPENAI_CURRENT = {
    "gpt-image-2",
    "gpt-image-2-2026-04-21",
    "gpt-image-1.5",
    "gpt-image-1-mini",
    "chatgpt-image-latest",
}
_OPENAI_RETIRED = {"dall-e-2", "dall-e-3", "gpt-image-1"}
_OPENAI_SIZES = ("1024x1024", "1024x1536", "1536x1024")
# output image tokens per quality for 1024x1024, 1024x1536, 1536x1024 (reference §2)
_OPENAI_TOKENS = {"low": (272, 408, 400), "medium": (1056, 1584, 1568), "high": (4160, 6240, 6208)}
_IMAGE_INPUT_TOKENS = (
    388  # per reference image in an edit: a hermes_nb choice, the vendor does not publish it
)


class OpenAIApi:
    """``POST {base}/images/generations`` (JSON) and ``/images/edits`` (multipart), Bearer auth."""

    name = "openai"

    @staticmethod
    def _err(
        status: int,
        message: str,
        type_: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Response:
        body = {"error": {"message": message, "type": type_, "param": param, "code": code}}
        return Response.json(body, status, headers)

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        if status == 429:
            headers = {
                "x-ratelimit-limit-requests": "5",
                "x-ratelimit-remaining-requests": "0",
                "x-ratelimit-reset-requests": f"{int(retry_after or 1)}s",
            }
            if retry_after is not None:
                headers["retry-after"] = str(int(retry_after))
                headers["retry-after-ms"] = str(int(retry_after * 1000))
            return self._err(
                429,
                "Rate limit exceeded for images per minute in organization org-emulator. "
                "Limit: 5/1min. Current: 6/1min.",
                "requests",
                "rate_limit_exceeded",
                headers=headers,
            )
        if status == 401:
            return self._err(401, "Incorrect API key provided: emu***ey.", code="invalid_api_key")
        if status >= 500:
            return self._err(
                status,
                "The server had an error while processing your request. Sorry about that!",
                "server_error",
            )
        return self._err(status, f"Emulated error {status}.")

    def _auth(self, call: Call) -> Response | None:
        key = call.bearer()
        if call.auth_fail or key == call.emu.BAD_KEY:
            return self._err(
                401,
                f"Incorrect API key provided: {mask_key(key or 'sk-emulated')}. You can find "
                "your API key at https://platform.openai.com/account/api-keys.",
                code="invalid_api_key",
            )
        if not key:
            return self._err(
                401,
                "You didn't provide an API key. You need to provide your API key in an "
                "Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).",
            )
        return None

    def handle(self, call: Call) -> Response:
        routes = {"/images/generations": False, "/images/edits": True}
        if call.subpath not in routes or call.request.method != "POST":
            return self._err(404, f"Invalid URL ({call.request.method} /v1{call.subpath})")
        denied = self._auth(call)
        if denied:
            return denied
        sources: list[bytes] = []
        if routes[call.subpath]:
            fields, files = parse_multipart(call.header("content-type") or "", call.request.body)
            params: dict[str, Any] = dict(fields)
            sources = [data for name, data in files if name in ("image", "image[]")]
            if not sources:
                return self._missing("image")
            if len(sources) > 16:
                return self._err(400, "Too many images: at most 16 are allowed.", param="image")
            for index, data in enumerate(sources, start=1):
                if not is_image(data):
                    return self._err(
                        400,
                        f"Invalid image file or mode for image {index}, please check your image file.",
                        code="invalid_image_format",
                        param="image",
                    )
        elif isinstance(call.request.json, dict):
            params = call.json_body
        else:
            return self._err(400, "We could not parse the JSON body of your request.")
        return self._generate(call, params, sources)

    def _invalid(self, param: str, value: str, supported: str) -> Response:
        return self._err(400, f"Invalid value: '{value}'. Supported values are: {supported}.",
                         code="invalid_value", param=param)  # fmt: skip

    def _missing(self, param: str) -> Response:
        return self._err(400, f"Missing required parameter: '{param}'.", code="missing_required_parameter",
                         param=param)  # fmt: skip

    def _generate(self, call: Call, params: dict[str, Any], sources: list[bytes]) -> Response:
        emu = call.emu
        model = str(params.get("model") or "dall-e-2")  # the API's own default when model is omitted
        legacy = emu.allow_legacy_models and model in _OPENAI_RETIRED
        if model not in _OPENAI_CURRENT and not legacy:
            return self._err(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                code="model_not_found",
            )
        prompt = params.get("prompt")
        if not isinstance(prompt, str) or not prompt.strip():
            return self._missing("prompt")
        if len(prompt) > 32000:
            return self._err(
                400, "Invalid 'prompt': string too long.", code="string_above_max_length", param="prompt"
            )
        if emu.MODERATION_WORD in prompt.lower():
            return self._err(
                400,
                "Your request was rejected by the safety system. If you believe this is an "
                "error, contact us at help.openai.com and include the request ID req_emulated. "
                "safety_violations=[violence].",
                "image_generation_user_error",
                "moderation_blocked",
            )
        try:
            n = int(params.get("n", 1))
        except (TypeError, ValueError):
            n = 0
        if not 1 <= n <= 10:
            return self._err(
                400, "Invalid 'n': must be an integer between 1 and 10.", code="invalid_value", param="n"
            )
        if "response_format" in params and not legacy:
            return self._err(
                400,
                "Unknown parameter: 'response_format'.",
                code="unknown_parameter",
                param="response_format",
            )
        size = str(params.get("size") or "auto")
        dims = self._size(model, size)
        if dims is None:
            return self._err(
                400,
                f"Invalid value: '{size}'. Supported values are: '1024x1024', '1024x1536', "
                "'1536x1024', and 'auto'.",
                code="invalid_value",
                param="size",
            )
        quality = str(params.get("quality") or "auto")
        if quality not in ("auto", "low", "medium", "high") and not (
            legacy and quality in ("standard", "hd")
        ):
            return self._invalid("quality", quality, "'low', 'medium', 'high', and 'auto'")
        fmt = str(params.get("output_format") or "png")
        if fmt not in ("png", "jpeg", "webp"):
            return self._invalid("output_format", fmt, "'png', 'jpeg', and 'webp'")
        background = str(params.get("background") or "auto")
        if background == "transparent" and (model.startswith("gpt-image-2") or fmt == "jpeg"):
            return self._err(
                400,
                "Transparent background is not supported for this model.",
                code="invalid_value",
                param="background",
            )
        resolved_quality = "medium" if quality == "auto" else quality
        width, height = dims
        source_key = hashlib.sha256(b"".join(sources)).hexdigest()[:16] if sources else ""
        data = (
            []
            if call.empty
            else [
                {
                    "b64_json": base64.b64encode(
                        render(
                            f"openai|{emu.seed}|{model}|{prompt}|{width}x{height}|{fmt}|{source_key}|{i}",
                            width,
                            height,
                            fmt,
                        )
                    ).decode("ascii"),
                }
                for i in range(n)
            ]
        )
        body = {
            "created": int(time.time()),
            "background": "opaque" if background == "auto" else background,
            "output_format": fmt,
            "quality": resolved_quality,
            "size": f"{width}x{height}",
            "data": data,
            "usage": self._usage(prompt, resolved_quality, width, height, len(data), len(sources)),
        }
        headers = {
            "x-request-id": f"req_{source_key or hashlib.sha256(prompt.encode()).hexdigest()[:24]}",
            "openai-processing-ms": "1200",
            "x-ratelimit-limit-requests": "5",
            "x-ratelimit-remaining-requests": "4",
            "x-ratelimit-reset-requests": "12s",
        }
        return Response.json(body, headers=headers)

    @staticmethod
    def _size(model: str, size: str) -> tuple[int, int] | None:
        if size == "auto":
            return 1024, 1024
        try:
            width, height = (int(v) for v in size.lower().split("x"))
        except ValueError:
            return None
        if size in _OPENAI_SIZES:
            return width, height
        if not model.startswith("gpt-image-2"):
            return None
        # gpt-image-2 takes any WxH: multiples of 16, ratio within 1:3..3:1, <= 3840x2160 in area
        ok = (
            width % 16 == 0
            and height % 16 == 0
            and max(width, height) <= 3840
            and max(width, height) <= 3 * min(width, height)
            and 655_360 <= width * height <= 3840 * 2160
        )
        return (width, height) if ok else None

    @staticmethod
    def _usage(
        prompt: str, quality: str, width: int, height: int, images: int, sources: int
    ) -> dict[str, Any]:
        table = _OPENAI_TOKENS.get(quality, _OPENAI_TOKENS["medium"])
        known = {(1024, 1024): table[0], (1024, 1536): table[1], (1536, 1024): table[2]}
        per_image = known.get((width, height)) or round(table[0] * width * height / (1024 * 1024))
        text_tokens = max(1, len(prompt) // 4)
        image_in = sources * _IMAGE_INPUT_TOKENS
        output = per_image * images
        return {
            "input_tokens": text_tokens + image_in,
            "input_tokens_details": {"text_tokens": text_tokens, "image_tokens": image_in},
            "output_tokens": output,
            "output_tokens_details": {"image_tokens": output, "text_tokens": 0},
            "total_tokens": text_tokens + image_in + output,
        }


def register(routes: FakeRoutes) -> None:
    routes.add(OpenAIApi(), prefix="/openai/v1")
