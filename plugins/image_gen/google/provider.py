"""Gemini native image generation: ``POST /models/{model}:generateContent`` with image output.

The image comes back as ``candidates[0].content.parts[*].inlineData``. A blocked prompt
(``promptFeedback.blockReason``) and safety finishes (``IMAGE_SAFETY``, ``SAFETY``,
``PROHIBITED_CONTENT``, …) are ``CONTENT_POLICY``. Imagen's ``:predict`` models were switched off on
the Gemini API (Vertex AI still serves them): asking for one fails before any request, naming the
successor. Cost comes from ``usageMetadata`` tokens at the list price, marked estimated.
"""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    ImageGenProvider,
    ImageRequest,
    errors,
    json_or_none,
    read_image_source,
    save_b64_image,
)

KEY_ENVS = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
DEFAULT_MODEL = "gemini-3.1-flash-image"
#: id → (label, USD per 1M input tokens, USD per 1M output image tokens) — list prices, estimates
MODELS: dict[str, tuple[str, float, float]] = {
    "gemini-3.1-flash-image": ("Gemini 3.1 Flash Image (Nano Banana 2)", 0.5, 60.0),
    "gemini-3.1-flash-image-preview": ("Gemini 3.1 Flash Image preview", 0.5, 60.0),
    "gemini-3-pro-image-preview": ("Gemini 3 Pro Image preview (Nano Banana Pro)", 2.0, 120.0),
}
#: Retired on the Gemini API → what to use instead (reference §0).
RETIRED = {
    "imagen-4.0-generate-001": DEFAULT_MODEL,
    "imagen-4.0-ultra-generate-001": "gemini-3-pro-image-preview",
    "imagen-4.0-fast-generate-001": DEFAULT_MODEL,
    "imagen-3.0-generate-002": DEFAULT_MODEL,
    "gemini-2.5-flash-image": DEFAULT_MODEL,
    "gemini-2.5-flash-image-preview": DEFAULT_MODEL,
    "gemini-2.0-flash-preview-image-generation": DEFAULT_MODEL,
}
ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
RATIOS = ("1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9")
IMAGE_SIZES = ("1K", "2K", "4K")
IMAGE_TOKENS_1K = 1120  # output tokens of one 1K image (Google's model page)
BLOCKED_FINISHES = (
    "IMAGE_SAFETY",
    "SAFETY",
    "PROHIBITED_CONTENT",
    "IMAGE_PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
    "RECITATION",
    "IMAGE_RECITATION",
)


class GoogleImageProvider(ImageGenProvider):
    """Gemini image models (generate and edit with up to 14 reference images)."""

    name = "google"
    display_name = "Google Gemini"
    key_env = KEY_ENVS
    docs_url = "https://aistudio.google.com/apikey"
    default_base_url = "https://generativelanguage.googleapis.com/v1beta"
    badge, tag = "paid", "Gemini image models (Nano Banana) through generateContent"
    max_reference_images = 14
    accepts_seed, accepts_negative_prompt = False, False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": mid,
                "display": label,
                # per-image figure first: listings and budgets read the first "$" amount as per image
                "price": f"~${out * IMAGE_TOKENS_1K / 1e6:.3f}/image at 1K (${out:g}/M image tokens)",
            }
            for mid, (label, _in, out) in MODELS.items()
        ]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        options = request.options
        model = request.model.removeprefix("models/")
        if model in RETIRED or model.startswith("imagen-"):
            successor = RETIRED.get(model, DEFAULT_MODEL)
            raise errors.InvalidInputError(
                f"{model} is retired on the Gemini API (Imagen :predict was switched off on 2026-08-17; "
                f"Vertex AI still serves it); use {successor} instead"
            )
        ratio = str(options.get("google_aspect_ratio") or ASPECTS[request.aspect_ratio])
        if ratio not in RATIOS:
            raise errors.InvalidInputError(f"Gemini aspect ratio {ratio!r} is not one of {', '.join(RATIOS)}")
        image_config: dict[str, Any] = {"aspectRatio": ratio}
        if options.get("image_size"):
            size = str(options["image_size"]).upper()
            if size not in IMAGE_SIZES:
                raise errors.InvalidInputError(
                    f"image_size must be one of {', '.join(IMAGE_SIZES)}, got {size!r}"
                )
            image_config["imageSize"] = size
        key = self.api_key()
        parts: list[dict[str, Any]] = [{"text": request.prompt}]
        for source in request.references:
            image = read_image_source(source)
            encoded = image.data_uri().split(",", 1)[1]
            parts.append({"inlineData": {"mimeType": image.mime_type, "data": encoded}})
        body = {
            "contents": [{"role": "user", "parts": parts}],
            "generationConfig": {"responseModalities": ["IMAGE"], "imageConfig": image_config},
        }
        # Billed once generated: the POST is not retried after it was sent.
        response = self.send(
            "POST",
            f"{self.base_url()}/models/{model}:generateContent",
            json=body,
            headers={"x-goog-api-key": key},
            timeout=request.timeout_s,
            error_map=_error_for,
        )
        payload = self.json_answer(response)
        inline, text = _image_part(payload)
        path = save_b64_image(
            str(inline["data"]), prefix=self.name, extension=_extension(inline.get("mimeType"))
        )
        usage = _obj(payload.get("usageMetadata"))
        return self.answer(
            request,
            path,
            google_aspect_ratio=ratio,
            text=text or None,
            usage=usage or None,
            cost=_cost(usage, model),
        )


def _image_part(payload: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The first ``inlineData`` part and the text beside it; blocked answers raise ``ContentPolicyError``."""
    feedback = payload.get("promptFeedback")
    if isinstance(feedback, dict) and feedback.get("blockReason"):
        raise errors.ContentPolicyError(
            f"Gemini blocked the prompt ({feedback['blockReason']})", provider="google"
        )
    candidates = payload.get("candidates")
    candidate = candidates[0] if isinstance(candidates, list) and candidates else {}
    candidate = candidate if isinstance(candidate, dict) else {}
    content = _obj(candidate.get("content"))
    parts = _items(content.get("parts"))
    texts = [str(p["text"]) for p in parts if isinstance(p, dict) and isinstance(p.get("text"), str)]
    for part in parts:
        inline = part.get("inlineData") if isinstance(part, dict) else None
        if isinstance(inline, dict) and inline.get("data"):
            return inline, " ".join(texts).strip()
    finish = str(candidate.get("finishReason") or "")
    if finish in BLOCKED_FINISHES:
        detail = f": {candidate['finishMessage']}" if candidate.get("finishMessage") else ""
        raise errors.ContentPolicyError(
            f"Gemini withheld the image (finish reason {finish}){detail}", provider="google"
        )
    said = f"; the model said: {' '.join(texts)[:300]}" if texts else ""
    raise errors.ProviderError(
        f"Gemini returned no image (finish reason {finish or 'none'}){said}", provider="google"
    )


def _extension(mime: Any) -> str:
    return {"image/jpeg": "jpg", "image/webp": "webp"}.get(str(mime or ""), "png")


def _cost(usage: dict[str, Any], model: str) -> dict[str, Any] | None:
    prices = MODELS.get(model)
    tokens_in, tokens_out = usage.get("promptTokenCount"), usage.get("candidatesTokenCount")
    if prices is None or not isinstance(tokens_out, int):
        return None
    usd = (tokens_in if isinstance(tokens_in, int) else 0) * prices[1] / 1e6 + tokens_out * prices[2] / 1e6
    return {"usd": round(usd, 6), "estimated": True}


def _error_for(response: httpx.Response) -> errors.HermesError | None:
    """``{"error": {"code", "message", "status", "details": [{"reason", ...}]}}`` (google.rpc.Status)."""
    status = response.status_code
    body = json_or_none(response)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    message = str(error.get("message") or f"HTTP {status}")
    rpc = str(error.get("status") or "")
    details = _items(error.get("details"))
    reasons = {str(d.get("reason")) for d in details if isinstance(d, dict) and d.get("reason")}
    if "API_KEY_INVALID" in reasons or status == 401 or rpc in ("UNAUTHENTICATED", "PERMISSION_DENIED"):
        return errors.ProviderAuthError(
            f"Gemini rejected the API key ({message}); check GEMINI_API_KEY / GOOGLE_API_KEY",
            provider="google",
            status=status,
        )
    if status == 429 or rpc == "RESOURCE_EXHAUSTED":
        delays = [str(d.get("retryDelay")) for d in details if isinstance(d, dict) and d.get("retryDelay")]
        retry_after = float(delays[0].rstrip("s")) if delays and delays[0].rstrip("s").isdigit() else None
        return errors.RateLimitedError(
            f"Gemini quota or rate limit: {message}",
            provider="google",
            status=status,
            retry_after=retry_after,
        )
    if status == 404 or rpc == "NOT_FOUND":
        return errors.InvalidInputError(
            f"Gemini does not serve this model ({message}); image models are retired over time, "
            f"try {DEFAULT_MODEL}",
            provider="google",
            status=status,
        )
    if rpc == "FAILED_PRECONDITION":
        return errors.ProviderError(
            f"Gemini cannot serve this request: {message}", provider="google", status=status
        )
    if status == 400:
        return errors.InvalidInputError(
            f"Gemini refused the request: {message}", provider="google", status=status
        )
    return None


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def _items(value: Any) -> list[Any]:
    """``value`` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []
