"""xAI Grok Imagine: ``POST /images/generations`` and ``/images/edits`` (OpenAI-style JSON)."""

from __future__ import annotations

import os
from typing import Any

import httpx

from hermes_nb.provider_api import (
    DEFAULT_ASPECT_RATIO,
    RETRY_UNSENT,
    ContentPolicyError,
    HermesError,
    ImageGenProvider,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    RateLimitedError,
    answer_or_error,
    config,
    configured_model,
    error_response,
    get_client,
    reference_sources,
    save_b64_image,
    success_response,
)

KEY_ENV = "XAI_API_KEY"
MODEL_ENV = "XAI_IMAGE_MODEL"
BASE_URL_ENV = "XAI_BASE_URL"
DEFAULT_BASE_URL = "https://api.x.ai/v1"
DEFAULT_MODEL = "grok-imagine-image"
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
MAX_REFERENCES = 3
USD_PER_TICK = 1e-10  # usage.cost_in_usd_ticks unit (xai_sdk)


class XAIImageProvider(ImageGenProvider):
    """Grok Imagine; asks for base64 so that nothing depends on xAI's short-lived URLs."""

    @property
    def name(self) -> str:
        return "xai"

    @property
    def display_name(self) -> str:
        return "xAI Grok Imagine"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": f"~${price:.2f}/image"}
            for mid, (label, price) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def resolve_model(self, model: str | None = None) -> str:
        """Argument → ``XAI_IMAGE_MODEL`` → ``image_gen.xai.model`` → ``image_gen.model`` → default."""
        return str(model or configured_model(self.name, DEFAULT_MODEL, env=MODEL_ENV))

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text", "image"],
            "max_reference_images": MAX_REFERENCES,
            "max_source_images": MAX_REFERENCES,
            "seed": False,
            "negative_prompt": False,
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "xAI Grok Imagine",
            "badge": "paid",
            "tag": "grok-imagine-image and -quality",
            "env_vars": [{"key": KEY_ENV, "prompt": "xAI API key", "url": "https://console.x.ai/"}],
        }

    def generate(
        self,
        prompt: str,
        aspect_ratio: str = DEFAULT_ASPECT_RATIO,
        *,
        image_url: str | None = None,
        reference_image_urls: list[str] | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        model = self.resolve_model(kwargs.pop("model", None))
        sources = reference_sources(image_url, reference_image_urls)
        return answer_or_error(
            self.name, prompt, aspect_ratio, model,
            lambda aspect: self._generate(prompt, aspect, model, sources, kwargs),
        )  # fmt: skip

    def _generate(
        self, prompt: str, aspect: str, model: str, sources: list[str], options: dict[str, Any]
    ) -> dict[str, Any]:
        prompt = (prompt or "").strip()
        if not prompt:
            raise InvalidInputError("prompt is required for image generation")
        if model in RETIRED:
            raise InvalidInputError(f"xAI retired {model}; use {RETIRED[model]} instead")
        if len(sources) > MAX_REFERENCES:
            raise InvalidInputError(f"xAI edits take at most {MAX_REFERENCES} images, got {len(sources)}")
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"xAI images need an API key: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        body: dict[str, Any] = {
            "model": model,
            "prompt": prompt,
            "n": 1,
            "response_format": "b64_json",
            "aspect_ratio": options.get("xai_aspect_ratio") or ASPECTS[aspect],
        }
        resolution = options.get("resolution") or config.get("image_gen.xai.resolution")
        if resolution:
            body["resolution"] = str(resolution)
        if options.get("quality"):
            body["quality"] = str(options["quality"])
        path = "/images/generations"
        if sources:
            from hermes_nb.provider_api import read_image_source

            images = [{"url": read_image_source(s).data_uri(), "type": "image_url"} for s in sources]
            if len(images) == 1:
                body["image"] = images[0]
            else:
                body["images"] = images
            path = "/images/edits"
        base = str(
            config.get("image_gen.xai.base_url")
            or os.environ.get(BASE_URL_ENV, "").strip()
            or DEFAULT_BASE_URL
        ).rstrip("/")
        # Billed once started: the POST is not retried after it was sent.
        response = get_client(self.name).request(
            "POST",
            f"{base}{path}",
            json=body,
            headers={"Authorization": f"Bearer {key}"},
            timeout=float(config.get("image_gen.timeout", 120.0)),
            error_map=_error_for,
            retry=RETRY_UNSENT,
        )
        try:
            payload = response.json()
        except ValueError as exc:
            raise ParseError("xAI answered with invalid JSON; try again", provider=self.name) from exc
        items = payload.get("data") if isinstance(payload, dict) else None
        first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
        if first.get("b64_json"):
            image = str(save_b64_image(str(first["b64_json"]), prefix=self.name, extension="jpg"))
        elif first.get("url"):
            # Ephemeral URL (Hermes #13): the SDK downloads it before returning, never hands it out.
            image = str(first["url"])
        else:
            return error_response(
                error="xAI returned no image",
                error_type="empty_response",
                provider=self.name,
                model=model,
                prompt=prompt,
                aspect_ratio=aspect,
            )
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else {}
        return success_response(
            image=image,
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            modality="image" if sources else "text",
            extra={
                "xai_aspect_ratio": body["aspect_ratio"],
                "revised_prompt": first.get("revised_prompt"),
                "usage": usage or None,
                "cost": _cost(usage, model),
            },
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
    try:
        body = response.json()
    except ValueError:
        return None
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
    if status == 429:
        return RateLimitedError(f"xAI rate limit: {message}", provider="xai", status=status)
    if status in (400, 404, 422):
        return InvalidInputError(f"xAI refused the request: {message}", provider="xai", status=status)
    return None
