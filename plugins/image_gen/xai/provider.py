"""xAI Grok Imagine: ``POST /images/generations`` and ``/images/edits`` (OpenAI-style JSON)."""

from __future__ import annotations

import os
from typing import Any

import httpx

from hermes_nb.provider_api import (
    ContentPolicyError,
    HermesError,
    ImageGenProvider,
    ImageRequest,
    InvalidInputError,
    ProviderAuthError,
    config,
    first_item,
    json_or_none,
    read_image_source,
    save_b64_image,
    vendor_error,
)

KEY_ENV = "XAI_API_KEY"
MODEL_ENV = "XAI_IMAGE_MODEL"
BASE_URL_ENV = "XAI_BASE_URL"
#: id → (label, USD per image); the first is the default model
MODELS = {
    "grok-imagine-image": ("Grok Imagine", 0.02),
    "grok-imagine-image-quality": ("Grok Imagine (quality)", 0.05),
}
#: Retired ids and their replacements (reference §0): fail before a request instead of a vendor 500.
RETIRED = {
    "grok-2-image": "grok-imagine-image",
    "grok-2-image-1212": "grok-imagine-image",
    "grok-imagine-image-pro": "grok-imagine-image-quality",
}
ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
USD_PER_TICK = 1e-10  # usage.cost_in_usd_ticks unit (xai_sdk)


class XAIImageProvider(ImageGenProvider):
    """Grok Imagine; asks for base64 so that nothing depends on xAI's short-lived URLs."""

    name = "xai"
    display_name = "xAI Grok Imagine"
    key_env = KEY_ENV
    model_env = MODEL_ENV
    docs_url = "https://console.x.ai/"
    default_base_url = "https://api.x.ai/v1"
    badge, tag = "paid", "grok-imagine-image and -quality"
    max_reference_images = 3
    accepts_seed, accepts_negative_prompt = False, False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"~${price:.2f}/image"}
            for mid, (label, price) in MODELS.items()
        ]

    def capabilities(self) -> dict[str, Any]:
        return {**super().capabilities(), "max_source_images": self.max_reference_images}  # Hermes's xai key

    def base_url(self) -> str:
        """``image_gen.xai.base_url``, then ``XAI_BASE_URL`` (Hermes's variable), then xAI's API."""
        configured = config.get("image_gen.xai.base_url") or os.environ.get(BASE_URL_ENV, "").strip()
        return str(configured or self.default_base_url).rstrip("/")

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model, sources, options = request.model, request.references, request.options
        if model in RETIRED:
            raise InvalidInputError(f"xAI retired {model}; use {RETIRED[model]} instead")
        body: dict[str, Any] = {
            "model": model,
            "prompt": request.prompt,
            "n": 1,
            "response_format": "b64_json",
            "aspect_ratio": options.get("xai_aspect_ratio") or ASPECTS[request.aspect_ratio],
        }
        resolution = options.get("resolution") or config.get("image_gen.xai.resolution")
        if resolution:
            body["resolution"] = str(resolution)
        if options.get("quality"):
            body["quality"] = str(options["quality"])
        path = "/images/generations"
        if sources:
            images = [{"url": read_image_source(s).data_uri(), "type": "image_url"} for s in sources]
            if len(images) == 1:
                body["image"] = images[0]
            else:
                body["images"] = images
            path = "/images/edits"
        # Billed once started: the POST is not retried after it was sent.
        payload = self.post_bearer(path, body, request, error_map=_error_for)
        first = first_item(payload)
        if first.get("b64_json"):
            image = str(save_b64_image(str(first["b64_json"]), prefix=self.name, extension="jpg"))
        elif first.get("url"):
            # Ephemeral URL (Hermes #13): the SDK downloads it before returning, never hands it out.
            image = str(first["url"])
        else:
            raise self.no_image("xAI returned no image")
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        return self.answer(
            request,
            image,
            xai_aspect_ratio=body["aspect_ratio"],
            revised_prompt=first.get("revised_prompt"),
            usage=usage or None,
            cost=_cost(usage, model),
        )


def _cost(usage: dict[str, Any], model: str) -> dict[str, Any] | None:
    ticks = usage.get("cost_in_usd_ticks")
    if isinstance(ticks, (int, float)) and not isinstance(ticks, bool):
        return {"usd": round(ticks * USD_PER_TICK, 6), "estimated": False}
    if model in MODELS:
        return {"usd": MODELS[model][1], "estimated": True}
    return None


def _error_for(response: httpx.Response) -> HermesError | None:
    """xAI reports a bad key as HTTP 400; its only distinguishing field is the documented message."""
    body = json_or_none(response)
    if not isinstance(body, dict):
        return None
    message = str(body.get("error") or body.get("message") or f"HTTP {response.status_code}")
    status = response.status_code
    # xAI gives no error code for these two cases; the vendor's fixed message prefix is the field.
    if status in (400, 401, 403) and message.startswith("Incorrect API key"):
        return ProviderAuthError(f"xAI rejected the API key; check {KEY_ENV}", provider="xai", status=status)
    if status == 400 and "content moderation" in message.lower():
        return ContentPolicyError(
            f"xAI content moderation refused the prompt: {message}", provider="xai", status=status
        )
    return vendor_error(response, message, provider="xai", vendor="xAI", key_env=KEY_ENV)
