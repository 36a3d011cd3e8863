"""OpenRouter: ``POST /chat/completions`` with ``modalities`` including ``"image"``; images come back
as data URLs in ``choices[0].message.images[].image_url.url``. One key, many image models."""

from __future__ import annotations

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
    ProviderError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
    answer_or_error,
    config,
    configured_model,
    error_response,
    get_client,
    read_image_source,
    reference_sources,
    save_b64_image,
    success_response,
)

KEY_ENV = "OPENROUTER_API_KEY"
MODEL_ENV = "OPENROUTER_IMAGE_MODEL"
DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
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
MAX_REFERENCES = 3  # the Gemini image models' limit per prompt; the tightest of the listed models
TIMEOUT = 300.0  # image models on OpenRouter can take minutes per image


class OpenRouterImageProvider(ImageGenProvider):
    """Any OpenRouter model with image output; switch with ``model=`` or ``image_gen.openrouter.model``."""

    @property
    def name(self) -> str:
        return "openrouter"

    @property
    def display_name(self) -> str:
        return "OpenRouter"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": mid, "display": label, "price": "per model; the answer's usage.cost is recorded"}
            for mid, (label, _) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def resolve_model(self, model: str | None = None) -> str:
        """Argument → ``OPENROUTER_IMAGE_MODEL`` → ``image_gen.openrouter.model`` → ``image_gen.model``
        → the default."""
        return str(model or configured_model(self.name, DEFAULT_MODEL, env=MODEL_ENV))

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text", "image"],
            "max_reference_images": MAX_REFERENCES,
            "seed": False,  # not forwarded to image models reliably
            "negative_prompt": False,
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "OpenRouter",
            "badge": "paid",
            "tag": "Gemini, GPT and FLUX image models through one key",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "OpenRouter API key", "url": "https://openrouter.ai/keys"}
            ],
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
        if len(sources) > MAX_REFERENCES:
            raise InvalidInputError(f"OpenRouter takes at most {MAX_REFERENCES} images, got {len(sources)}")
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"OpenRouter needs an API key: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        content: list[dict[str, Any]] = [{"type": "text", "text": prompt}]
        for source in sources:
            content.append({"type": "image_url", "image_url": {"url": read_image_source(source).data_uri()}})
        image_config: dict[str, Any] = {"aspect_ratio": ASPECTS[aspect]}
        if options.get("image_size"):
            image_config["image_size"] = str(options["image_size"])
        body: dict[str, Any] = {
            "model": model,
            "messages": [{"role": "user", "content": content}],
            "modalities": ["image"] if model.startswith(IMAGE_ONLY_PREFIXES) else ["image", "text"],
            "image_config": image_config,
            "stream": False,
        }
        base = str(config.get("image_gen.openrouter.base_url") or DEFAULT_BASE_URL).rstrip("/")
        timeout = max(float(config.get("image_gen.timeout", 120.0)), TIMEOUT)
        # A completion is billed once the model starts: the POST is not retried after it was sent.
        response = get_client(self.name).request(
            "POST",
            f"{base}/chat/completions",
            json=body,
            headers={
                "Authorization": f"Bearer {key}",
                "HTTP-Referer": "https://github.com/hermes-nb/hermes_nb",
                "X-Title": "hermes_nb",
            },
            timeout=timeout,
            error_map=lambda r: _error_for(r, model),
            retry=RETRY_UNSENT,
        )
        try:
            payload = response.json()
        except ValueError as exc:
            raise ParseError("OpenRouter answered with invalid JSON; try again", provider=self.name) from exc
        if not isinstance(payload, dict):
            raise ParseError("OpenRouter answered with an unexpected body", provider=self.name)
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
                raise ContentPolicyError(
                    f"OpenRouter's model {model} refused the prompt ({finish})", provider=self.name
                )
            text = str(message.get("content") or "").strip()
            return error_response(
                error=f"OpenRouter's model {model} returned no image"
                + (f"; it said: {text[:300]}" if text else "")
                + " (is it an image-output model? see openrouter.ai/models?output_modalities=image)",
                error_type="empty_response",
                provider=self.name,
                model=model,
                prompt=prompt,
                aspect_ratio=aspect,
            )
        first = urls[0]
        image = str(save_b64_image(first, prefix=self.name)) if first.startswith("data:") else first
        usage = _dict(payload.get("usage"))
        cost = usage.get("cost")
        return success_response(
            image=image,
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            modality="image" if sources else "text",
            extra={
                "openrouter_aspect_ratio": image_config["aspect_ratio"],
                "text": str(message.get("content") or "") or None,
                "usage": usage or None,
                "cost": {"usd": float(cost), "estimated": False}
                if isinstance(cost, (int, float)) and not isinstance(cost, bool)
                else None,
            },
        )


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _error_for(response: httpx.Response, model: str) -> HermesError | None:
    """OpenRouter's ``{"error": {"code", "message", "metadata"}}`` → the typed error."""
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    retry_after = response.headers.get("retry-after")
    wait = float(retry_after) if retry_after and retry_after.replace(".", "", 1).isdigit() else None
    return _mapped(error, response.status_code, model, wait)


def _mapped(error: dict[str, Any], status: int, model: str, retry_after: float | None) -> HermesError:
    message = str(error.get("message") or f"HTTP {status}")
    metadata = _dict(error.get("metadata"))
    kw: dict[str, Any] = {"provider": "openrouter", "status": status}
    if status == 401:
        return ProviderAuthError(f"OpenRouter rejected the API key ({message}); check {KEY_ENV}", **kw)
    if status == 402:
        return ProviderError(
            f"OpenRouter: insufficient credits ({message}); add credits at openrouter.ai/settings/credits",
            retryable=False,
            **kw,
        )
    if status == 403:
        reasons = ", ".join(str(r) for r in metadata.get("reasons") or [])
        return ContentPolicyError(
            f"OpenRouter's moderation flagged the prompt{f' ({reasons})' if reasons else ''}: {message}", **kw
        )
    if status == 408:
        return TimeoutError_(f"OpenRouter: the request timed out ({message})", **kw)
    if status == 429:
        return RateLimitedError(f"OpenRouter rate limit: {message}", retry_after=retry_after, **kw)
    if status in (400, 404):
        hint = ""
        if model.startswith("openai/"):
            hint = f"; OpenAI image models may need enabling on OpenRouter; or try {DEFAULT_MODEL}"
        return InvalidInputError(f"OpenRouter refused the request for {model}: {message}{hint}", **kw)
    if status in (502, 503):
        return ProviderUnavailableError(
            f"OpenRouter: no provider could serve {model} right now ({message}); retry or switch model", **kw
        )
    return ProviderError(f"OpenRouter error {status}: {message}", **kw)
