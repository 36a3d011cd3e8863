"""Stability AI Stable Image: ``POST /v2beta/stable-image/generate/{sd3|core|ultra}`` as multipart form.

The form is multipart even without files. ``Accept: image/*`` answers with the image bytes (and
``finish-reason``/``seed`` headers); ``Accept: application/json`` with ``{"image": base64,
"finish_reason", "seed"}`` — ``response_format="b64_json"`` picks the latter. A 403
``content_moderation`` and a ``CONTENT_FILTERED`` finish are ``CONTENT_POLICY``. Stability echoes no
cost: the documented credits per image (1 credit = $0.01) are recorded, marked estimated.
"""

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
    RateLimitedError,
    answer_or_error,
    config,
    configured_model,
    get_client,
    save_b64_image,
    save_bytes_image,
    success_response,
)

KEY_ENV = "STABILITY_API_KEY"
DEFAULT_BASE_URL = "https://api.stability.ai"
DEFAULT_MODEL = "stable-image-core"
USD_PER_CREDIT = 0.01
#: id → (label, endpoint under /v2beta/stable-image/generate/, ``model`` form field or None, credits)
MODELS: dict[str, tuple[str, str, str | None, float]] = {
    "stable-image-core": ("Stable Image Core", "core", None, 3.0),
    "stable-image-ultra": ("Stable Image Ultra", "ultra", None, 8.0),
    "sd3.5-large": ("Stable Diffusion 3.5 Large", "sd3", "sd3.5-large", 6.5),
    "sd3.5-large-turbo": ("Stable Diffusion 3.5 Large Turbo", "sd3", "sd3.5-large-turbo", 4.0),
    "sd3.5-medium": ("Stable Diffusion 3.5 Medium", "sd3", "sd3.5-medium", 3.5),
}
ASPECTS = {"landscape": "16:9", "square": "1:1", "portrait": "9:16"}
RATIOS = ("16:9", "1:1", "21:9", "2:3", "3:2", "4:5", "5:4", "9:16", "9:21")
#: form fields passed through when given, per endpoint
OPTIONS = {
    "core": ("negative_prompt", "seed", "output_format", "style_preset"),
    "ultra": ("negative_prompt", "seed", "output_format"),
    "sd3": ("negative_prompt", "seed", "output_format", "cfg_scale"),
}
FILTERED = "CONTENT_FILTERED"


class StabilityImageProvider(ImageGenProvider):
    """Stable Image Core / Ultra and SD 3.5 (text-to-image)."""

    @property
    def name(self) -> str:
        return "stability"

    @property
    def display_name(self) -> str:
        return "Stability AI"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": mid,
                "display": label,
                "price": f"{n_credits:g} credits (~${n_credits * USD_PER_CREDIT:.3f})/image",
            }
            for mid, (label, _endpoint, _field, n_credits) in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text"],
            "max_reference_images": 0,
            "seed": True,
            "negative_prompt": True,
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "Stability AI",
            "badge": "paid",
            "tag": "Stable Image Core / Ultra and Stable Diffusion 3.5",
            "env_vars": [
                {
                    "key": KEY_ENV,
                    "prompt": "Stability AI API key",
                    "url": "https://platform.stability.ai/account/keys",
                }
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
        model = str(kwargs.pop("model", None) or configured_model(self.name, DEFAULT_MODEL))

        def run(aspect: str) -> dict[str, Any]:
            if image_url or reference_image_urls:
                raise InvalidInputError(
                    "the stability provider takes no reference images (text-to-image only)"
                )
            return self._generate(prompt, aspect, model, kwargs)

        return answer_or_error(self.name, prompt, aspect_ratio, model, run)

    def _generate(self, prompt: str, aspect: str, model: str, options: dict[str, Any]) -> dict[str, Any]:
        prompt = (prompt or "").strip()
        if not prompt:
            raise InvalidInputError("prompt is required for image generation")
        if model not in MODELS:
            raise InvalidInputError(f"unknown Stability model {model!r}; choose one of {', '.join(MODELS)}")
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"Stability AI needs an API key: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        _label, endpoint, model_field, n_credits = MODELS[model]
        ratio = str(options.get("stability_aspect_ratio") or ASPECTS[aspect])
        if ratio not in RATIOS:
            raise InvalidInputError(f"Stability aspect ratio {ratio!r} is not one of {', '.join(RATIOS)}")
        form: dict[str, Any] = {"prompt": prompt, "aspect_ratio": ratio, "output_format": "png"}
        if model_field:
            form.update(model=model_field, mode="text-to-image")
        form.update({k: v for k, v in options.items() if k in OPTIONS[endpoint] and v is not None})
        as_json = options.get("response_format") == "b64_json"
        base = str(config.get("image_gen.stability.base_url") or DEFAULT_BASE_URL).rstrip("/")
        # Billed once generated: the POST is not retried after it was sent.
        response = get_client(self.name).request(
            "POST",
            f"{base}/v2beta/stable-image/generate/{endpoint}",
            # (None, value) parts: multipart/form-data fields without a file name
            files={name: (None, str(value)) for name, value in form.items()},
            headers={
                "Authorization": f"Bearer {key}",
                "Accept": "application/json" if as_json else "image/*",
            },
            timeout=float(config.get("image_gen.timeout", 120.0)),
            error_map=_error_for,
            retry=RETRY_UNSENT,
        )
        if as_json:
            body = _json(response)
            finish, seed, data = body.get("finish_reason"), body.get("seed"), body.get("image")
        else:
            finish, seed, data = response.headers.get("finish-reason"), response.headers.get("seed"), None
        if finish == FILTERED:
            raise ContentPolicyError(
                "Stability's content filter blurred the result (finish reason CONTENT_FILTERED)",
                provider=self.name,
            )
        if as_json:
            if not isinstance(data, str) or not data:
                raise ProviderError("Stability returned no image", provider=self.name)
            path = save_b64_image(data, prefix=self.name, extension=str(form["output_format"]))
        else:
            if not response.headers.get("content-type", "").startswith("image/"):
                raise ParseError(
                    "Stability answered without image bytes for Accept: image/*", provider=self.name
                )
            path = save_bytes_image(response.content, prefix=self.name, extension=str(form["output_format"]))
        return success_response(
            image=str(path),
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            extra={
                "seed": _int_or_none(seed),
                "stability_aspect_ratio": ratio,
                "finish_reason": finish,
                "cost": {
                    "usd": round(n_credits * USD_PER_CREDIT, 6),
                    "credits": n_credits,
                    "estimated": True,
                },
            },
        )


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _json(response: httpx.Response) -> dict[str, Any]:
    try:
        body = response.json()
    except ValueError as exc:
        raise ParseError("Stability answered with invalid JSON; try again", provider="stability") from exc
    if not isinstance(body, dict):
        raise ParseError("Stability answered with JSON that is not an object", provider="stability")
    return body


def _error_for(response: httpx.Response) -> HermesError | None:
    """``{"id", "name", "errors": [...]}``: ``name`` says what failed (``content_moderation``, ...)."""
    status = response.status_code
    try:
        body = response.json()
    except ValueError:
        body = None
    body = body if isinstance(body, dict) else {}
    name = str(body.get("name") or "")
    errors = body.get("errors")
    message = "; ".join(str(e) for e in errors) if isinstance(errors, list) and errors else f"HTTP {status}"
    if name == "content_moderation" or (status == 403 and "moderation" in message.lower()):
        return ContentPolicyError(
            f"Stability's content moderation refused the request: {message}",
            provider="stability",
            status=status,
        )
    if status in (401, 403):
        return ProviderAuthError(
            f"Stability rejected the key ({message}); check {KEY_ENV}", provider="stability", status=status
        )
    if status == 402:
        return ProviderError(
            f"Stability account has no credits left ({message}); top up at platform.stability.ai",
            provider="stability",
            status=status,
        )
    if status == 429:
        return RateLimitedError(f"Stability rate limit: {message}", provider="stability", status=status)
    if status in (400, 404, 413, 422):
        return InvalidInputError(
            f"Stability refused the request: {message}", provider="stability", status=status
        )
    return None
