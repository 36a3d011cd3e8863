"""Emulated Stability AI Stable Image API: ``/v2beta/stable-image/generate/{sd3|core|ultra}`` (reference §9).

Multipart form only; ``Accept: image/*`` answers with bytes plus ``finish-reason``/``seed`` headers,
``Accept: application/json`` with ``{"image", "finish_reason", "seed"}``. Prompts containing
``emu.MODERATION_WORD`` get the 403 ``content_moderation`` answer. Errors are
``{"id", "name", "errors": [...]}``.
"""

from __future__ import annotations

import base64
import uuid
from typing import Any

from hermes_nb.testing.fakes import (
    MIME,
    Call,
    FakeRoutes,
    Response,
    parse_multipart,
    render,
    retry_after_header,
    sizes,
)

__all__ = ["register", "StabilityApi", "RATIO_SIZES"]

#: output size per aspect ratio (about one megapixel, multiples of 64; hermes_nb choice)
RATIO_SIZES = sizes(
    "16:9=1344x768 1:1=1024x1024 21:9=1536x640 2:3=832x1216 3:2=1216x832 4:5=896x1088 5:4=1088x896 "
    "9:16=768x1344 9:21=640x1536"
)
_SD3_MODELS = ("sd3.5-large", "sd3.5-large-turbo", "sd3.5-medium", "sd3.5-flash")
_FORMATS = {"sd3": ("png", "jpeg"), "core": ("png", "jpeg", "webp"), "ultra": ("png", "jpeg", "webp")}
_MODERATED = (
    "Your request was flagged by our content moderation system, as a result your request was denied "
    "and you were not charged."
)


def _error(
    call: Call | None, status: int, name: str, *errors: str, headers: dict[str, str] | None = None
) -> Response:
    seed = call.emu.rng("stability-error", call.request.path).getrandbits(128) if call else 0
    return Response.json(
        {"id": uuid.UUID(int=seed).hex, "name": name, "errors": list(errors)}, status, headers
    )


class StabilityApi:
    """``POST {base}/v2beta/stable-image/generate/{endpoint}`` with ``Authorization: Bearer``."""

    name = "stability"

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        headers = retry_after_header(retry_after)
        names = {
            400: "bad_request",
            402: "payment_required",
            413: "payload_too_large",
            429: "rate_limit_exceeded",
        }
        if status == 429:
            return _error(
                call,
                429,
                "rate_limit_exceeded",
                "You have exceeded the rate limit of 150 requests within a 10 second period.",
                headers=headers,
            )
        if status >= 500:
            return _error(
                call, status, "internal_error", "An unexpected server error occurred.", headers=headers
            )
        return _error(
            call, status, names.get(status, "bad_request"), f"Emulated error {status}", headers=headers
        )

    def handle(self, call: Call) -> Response:
        token = call.bearer()
        if call.auth_fail or not token or token == call.emu.BAD_KEY:
            return _error(call, 401, "unauthorized", "authorization: invalid or missing API key")
        endpoint = call.subpath.removeprefix("/v2beta/stable-image/generate/")
        if call.request.method != "POST" or endpoint not in _FORMATS:
            return _error(call, 404, "not_found", f"{call.request.method} {call.subpath} not found")
        content_type = call.header("content-type") or ""
        if not content_type.startswith("multipart/form-data"):
            return _error(call, 400, "bad_request", "content-type: must be multipart/form-data")
        accept = (call.header("accept") or "image/*").split(";")[0].strip()
        if accept not in ("image/*", "application/json"):
            return _error(call, 400, "bad_request", "accept: must be either image/* or application/json")
        fields, _files = parse_multipart(content_type, call.request.body)
        invalid = _validate(endpoint, fields)
        if invalid:
            return _error(call, 400, "bad_request", invalid)
        prompt = fields["prompt"]
        if call.emu.MODERATION_WORD in prompt.lower():
            return _error(call, 403, "content_moderation", _MODERATED)
        ratio = fields.get("aspect_ratio", "1:1")
        width, height = RATIO_SIZES[ratio]
        fmt = fields.get("output_format", "png")
        seed = (
            int(fields["seed"])
            if fields.get("seed")
            else call.emu.rng("stability-seed", prompt).randrange(2**32 - 1)
        )
        model = fields.get("model", endpoint)
        negative = fields.get("negative_prompt")
        key = f"stability|{call.emu.seed}|{endpoint}|{model}|{prompt}|{negative}|{seed}|{ratio}"
        data = b"" if call.empty else render(key, width, height, fmt)
        if accept == "application/json":
            return Response.json(
                {"image": base64.b64encode(data).decode("ascii"), "finish_reason": "SUCCESS", "seed": seed}
            )
        return Response(200, data, MIME[fmt], {"finish-reason": "SUCCESS", "seed": str(seed)})


def _validate(endpoint: str, fields: dict[str, Any]) -> str | None:
    prompt = fields.get("prompt", "")
    if not prompt.strip():
        return "prompt: cannot be empty"
    if len(prompt) > 10000:
        return "prompt: must be at most 10000 characters"
    if fields.get("aspect_ratio", "1:1") not in RATIO_SIZES:
        return f"aspect_ratio: must be one of {', '.join(RATIO_SIZES)}"
    if fields.get("output_format", "png") not in _FORMATS[endpoint]:
        return f"output_format: must be one of {', '.join(_FORMATS[endpoint])}"
    seed = fields.get("seed")
    if seed is not None and not (seed.isdigit() and int(seed) <= 4294967294):
        return "seed: must be an integer between 0 and 4294967294"
    if endpoint == "sd3":
        if fields.get("model", "sd3.5-large") not in _SD3_MODELS:
            return f"model: must be one of {', '.join(_SD3_MODELS)}"
        if fields.get("mode", "text-to-image") != "text-to-image":
            return "image: required for mode image-to-image"
    elif "model" in fields:
        return f"model: not a parameter of {endpoint}"
    return None


def register(routes: FakeRoutes) -> None:
    routes.add(StabilityApi())
