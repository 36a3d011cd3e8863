"""OpenRouter: ``POST /chat/completions`` with ``modalities`` including ``"image"``; images come back
as data URLs in ``choices[0].message.images[].image_url.url``. One key, many image models."""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    ImageGenProvider,
    ImageRequest,
    errors,
    json_or_none,
    read_image_source,
    retry_after_s,
    save_b64_image,
)

KEY_ENV = "OPENROUTER_API_KEY"
MODEL_ENV = "OPENROUTER_IMAGE_MODEL"
DEFAULT_MODEL = "google/gemini-3-pro-image"
#: id → (label, image-only model: it wants ``modalities: ["image"]``)
MODELS: dict[str, tuple[str, bool]] = {
    "google/gemini-3-pro-image": ("Gemini 3 Pro Image", False),
    "google/gemini-3.1-flash-image": ("Gemini 3.1 Flash Image", False),
    "openai/gpt-5.4-image-2": ("OpenAI GPT-5.4 Image 2 (may need account enablement)", False),
    "black-forest-labs/flux.2-pro": ("FLUX.2 [pro]", True),
}
#: Vendors whose OpenRouter models output images only (OpenRouter's docs: use ``["image"]``).
IMAGE_ONLY_PREFIXES = ("black-forest-labs/", "sourceful/")
ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
TIMEOUT = 300.0  # image models on OpenRouter can take minutes per image


class OpenRouterImageProvider(ImageGenProvider):
    """Any OpenRouter model with image output; switch with ``model=`` or ``image_gen.openrouter.model``."""

    name = "openrouter"
    display_name = "OpenRouter"
    key_env = KEY_ENV
    model_env = MODEL_ENV
    docs_url = "https://openrouter.ai/keys"
    default_base_url = "https://openrouter.ai/api/v1"
    badge, tag = "paid", "Gemini, GPT and FLUX image models through one key"
    max_reference_images = 3  # the Gemini image models' limit per prompt; the tightest of the listed models
    accepts_seed = False  # not forwarded to image models reliably
    accepts_negative_prompt = False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": "per model; the answer's usage.cost is recorded"}
            for mid, (label, _) in MODELS.items()
        ]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model = request.model
        key = self.api_key()
        content: list[dict[str, Any]] = [{"type": "text", "text": request.prompt}]
        for source in request.references:
            content.append({"type": "image_url", "image_url": {"url": read_image_source(source).data_uri()}})
        image_config: dict[str, Any] = {"aspect_ratio": ASPECTS[request.aspect_ratio]}
        if request.options.get("image_size"):
            image_config["image_size"] = str(request.options["image_size"])
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "user", "content": content}],
            "modalities": ["image"] if model.startswith(IMAGE_ONLY_PREFIXES) else ["image", "text"],
            "image_config": image_config,
            "stream": False,
        }
        # A completion is billed once the model starts: the POST is not retried after it was sent.
        response = self.send(
            "POST",
            f"{self.base_url()}/chat/completions",
            json=body,
            headers={
                "Authorization": f"Bearer {key}",
                "HTTP-Referer": "https://github.com/hermes-nb/hermes_nb",
                "X-Title": "hermes_nb",
            },
            timeout=max(request.timeout_s, TIMEOUT),
            error_map=lambda r: _error_for(r, model),
        )
        payload = self.json_answer(response)
        if isinstance(payload.get("error"), dict):  # a failure after the model started: HTTP 200
            raise _mapped(payload["error"], int(payload["error"].get("code") or 502), model, None)
        choice = (payload.get("choices") or [{}])[0]
        choice = choice if isinstance(choice, dict) else {}
        message = _dict(choice.get("message"))
        urls = [
            str((item.get("image_url") or {}).get("url") or "")
            for item in message.get("images") or []
            if isinstance(item, dict) and isinstance(item.get("image_url"), dict)
        ]
        urls = [u for u in urls if u]
        finish = str(choice.get("native_finish_reason") or choice.get("finish_reason") or "")
        if not urls:
            if "safety" in finish.lower() or finish.lower() == "content_filter":
                raise errors.ContentPolicyError(
                    f"OpenRouter's model {model} refused the prompt ({finish})", provider=self.name
                )
            text = str(message.get("content") or "").strip()
            raise self.no_image(
                f"OpenRouter's model {model} returned no image"
                + (f"; it said: {text[:300]}" if text else "")
                + " (is it an image-output model? see openrouter.ai/models?output_modalities=image)"
            )
        first = urls[0]
        image = str(save_b64_image(first, prefix=self.name)) if first.startswith("data:") else first
        usage = _dict(payload.get("usage"))
        cost = usage.get("cost")
        return self.answer(
            request,
            image,
            openrouter_aspect_ratio=image_config["aspect_ratio"],
            text=str(message.get("content") or "") or None,
            usage=usage or None,
            cost={"usd": float(cost), "estimated": False}
            if isinstance(cost, (int, float)) and not isinstance(cost, bool)
            else None,
        )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error_for(response: httpx.Response, model: str) -> errors.HermesError | None:
    """OpenRouter's ``{"error": {"code", "message", "metadata"}}`` → the typed error."""
    body = json_or_none(response)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    return _mapped(error, response.status_code, model, retry_after_s(response))


def _mapped(error: dict[str, Any], status: int, model: str, retry_after: float | None) -> errors.HermesError:
    message = str(error.get("message") or f"HTTP {status}")
    metadata = _dict(error.get("metadata"))
    kw: dict[str, Any] = {"provider": "openrouter", "status": status}
    if status == 401:
        return errors.ProviderAuthError(f"OpenRouter rejected the API key ({message}); check {KEY_ENV}", **kw)
    if status == 402:
        return errors.ProviderError(
            f"OpenRouter: insufficient credits ({message}); add credits at openrouter.ai/settings/credits",
            retryable=False,
            **kw,
        )
    if status == 403:
        reasons = ", ".join(str(r) for r in metadata.get("reasons") or [])
        return errors.ContentPolicyError(
            f"OpenRouter's moderation flagged the prompt{f' ({reasons})' if reasons else ''}: {message}", **kw
        )
    if status == 408:
        return errors.TimeoutError_(f"OpenRouter: the request timed out ({message})", **kw)
    if status == 429:
        return errors.RateLimitedError(f"OpenRouter rate limit: {message}", retry_after=retry_after, **kw)
    if status in (400, 404):
        hint = ""
        if model.startswith("openai/"):
            hint = f"; OpenAI image models may need enabling on OpenRouter; or try {DEFAULT_MODEL}"
        return errors.InvalidInputError(f"OpenRouter refused the request for {model}: {message}{hint}", **kw)
    if status in (502, 503):
        return errors.ProviderUnavailableError(
            f"OpenRouter: no provider could serve {model} right now ({message}); retry or switch model", **kw
        )
    return errors.ProviderError(f"OpenRouter error {status}: {message}", **kw)
