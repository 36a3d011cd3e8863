"""OpenAI Images API: ``POST /images/generations`` (JSON) and ``/images/edits`` (multipart)."""

from __future__ import annotations

import datetime as _dt
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
    error_response,
    get_client,
    save_b64_image,
    success_response,
)

KEY_ENV = "OPENAI_API_KEY"
MODEL_ENV = "OPENAI_IMAGE_MODEL"
DEFAULT_BASE_URL = "https://api.openai.com/v1"
API_MODEL = "gpt-image-2"
DEFAULT_MODEL = "gpt-image-2-medium"
MAX_REFERENCES = 16
SIZES = {"landscape": "1536x1024", "square": "1024x1024", "portrait": "1024x1536"}
TIERS = ("low", "medium", "high")
#: Dated list prices per image (USD) at 1024x1024 / the 3:2 sizes; estimates, not invoices.
PRICES = {"low": (0.006, 0.009), "medium": (0.053, 0.08), "high": (0.211, 0.32)}
#: Shut-down dates of model ids the API no longer serves (reference §0).
RETIRED = {
    "dall-e-2": _dt.date(2026, 5, 12),
    "dall-e-3": _dt.date(2026, 5, 12),
    "gpt-image-1": _dt.date(2026, 10, 23),
    "gpt-image-1.5": _dt.date(2026, 12, 1),
    "gpt-image-1-mini": _dt.date(2026, 12, 1),
    "chatgpt-image-latest": _dt.date(2026, 12, 1),
}
PASS_THROUGH = ("output_format", "output_compression", "background", "moderation", "user", "size", "quality")


def _today() -> _dt.date:
    return _dt.date.today()


class OpenAIImageProvider(ImageGenProvider):
    """gpt-image-2 with Hermes's virtual tiers ``gpt-image-2-low|medium|high`` (→ ``quality``)."""

    @property
    def name(self) -> str:
        return "openai"

    @property
    def display_name(self) -> str:
        return "OpenAI"

    def is_available(self) -> bool:
        return bool(config.resolve_key(KEY_ENV))

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": f"{API_MODEL}-{tier}",
                "display": f"GPT Image 2 ({tier})",
                "price": f"~${PRICES[tier][0]:.3f}/image (1024x1024)",
            }
            for tier in TIERS
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def resolve_model(self, model: str | None = None) -> str:
        """Argument → ``OPENAI_IMAGE_MODEL`` → ``image_gen.openai.model`` → ``image_gen.model`` → default."""
        return str(model or configured_model(self.name, DEFAULT_MODEL, env=MODEL_ENV))

    def capabilities(self) -> dict[str, Any]:
        return {
            "modalities": ["text", "image"],
            "max_reference_images": MAX_REFERENCES,
            "seed": False,
            "negative_prompt": False,
            "sizes": ["auto", "any"],  # gpt-image-2 takes any WxH (÷16, 1:3–3:1, ≤3840x2160)
        }

    def get_setup_schema(self) -> dict[str, Any]:
        return {
            "name": "OpenAI",
            "badge": "paid",
            "tag": "gpt-image-2 at low / medium / high quality",
            "env_vars": [
                {"key": KEY_ENV, "prompt": "OpenAI API key", "url": "https://platform.openai.com/api-keys"}
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
        return answer_or_error(
            self.name, prompt, aspect_ratio, model,
            lambda aspect: self._generate(prompt, aspect, model, image_url, reference_image_urls, kwargs),
        )  # fmt: skip

    def _generate(
        self,
        prompt: str,
        aspect: str,
        model: str,
        image_url: str | None,
        references: list[str] | None,
        options: dict[str, Any],
    ) -> dict[str, Any]:
        prompt = (prompt or "").strip()
        if not prompt:
            raise InvalidInputError("prompt is required for image generation")
        api_model, quality = _api_model(model)
        key = config.resolve_key(KEY_ENV)
        if not key:
            raise ProviderNotConfiguredError(
                f"OpenAI images need an API key: set {KEY_ENV} or call hn.config.set_key('{KEY_ENV}', ...)",
                provider=self.name,
            )
        body: dict[str, Any] = {"model": api_model, "prompt": prompt, "n": 1, "size": SIZES[aspect]}
        if quality:
            body["quality"] = quality
        body.update({k: options[k] for k in PASS_THROUGH if options.get(k) is not None})
        sources = [s for s in [image_url, *(references or [])] if s]
        if len(sources) > MAX_REFERENCES:
            raise InvalidInputError(f"OpenAI edits take at most {MAX_REFERENCES} images, got {len(sources)}")
        base = str(config.get("image_gen.openai.base_url") or DEFAULT_BASE_URL).rstrip("/")
        client = get_client(self.name)
        headers = {"Authorization": f"Bearer {key}"}
        timeout = float(config.get("image_gen.timeout", 120.0))
        # A generation POST is billed once the server starts: never retried after it was sent.
        if sources:
            files = _upload_files(sources)
            form = {k: str(v) for k, v in body.items()}
            response = client.request(
                "POST",
                f"{base}/images/edits",
                data=form,
                files=files,
                headers=headers,
                timeout=timeout,
                error_map=_error_for,
                retry=RETRY_UNSENT,
            )
        else:
            response = client.request(
                "POST",
                f"{base}/images/generations",
                json=body,
                headers=headers,
                timeout=timeout,
                error_map=_error_for,
                retry=RETRY_UNSENT,
            )
        try:
            payload = response.json()
        except ValueError as exc:
            raise ParseError("OpenAI answered with invalid JSON; try again", provider=self.name) from exc
        items = payload.get("data") if isinstance(payload, dict) else None
        first = items[0] if isinstance(items, list) and items and isinstance(items[0], dict) else {}
        if first.get("b64_json"):
            image = str(
                save_b64_image(
                    str(first["b64_json"]), prefix=self.name, extension=body.get("output_format", "png")
                )
            )
        elif first.get("url"):
            image = str(first["url"])  # dall-e style URL: the SDK downloads it at once
        else:
            return error_response(
                error="OpenAI returned no image",
                error_type="empty_response",
                provider=self.name,
                model=model,
                prompt=prompt,
                aspect_ratio=aspect,
            )
        usage = payload.get("usage") if isinstance(payload.get("usage"), dict) else None
        return success_response(
            image=image,
            model=model,
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            modality="image" if sources else "text",
            extra={
                "size": payload.get("size") or body["size"],
                "quality": payload.get("quality") or body.get("quality"),
                "revised_prompt": first.get("revised_prompt"),
                "usage": usage,
                "cost": _estimate_cost(str(body.get("quality") or ""), str(body["size"])),
            },
        )


def _api_model(model: str) -> tuple[str, str | None]:
    """Virtual tier id → (API model, quality); retired ids fail before any request."""
    name = model.strip().lower()
    shutdown = RETIRED.get(name)
    if shutdown is not None and _today() >= shutdown:
        raise InvalidInputError(
            f"OpenAI retired {name} on {shutdown.isoformat()}; use {DEFAULT_MODEL} "
            f"(or {API_MODEL}-low / {API_MODEL}-high) instead"
        )
    for tier in TIERS:
        if name == f"{API_MODEL}-{tier}":
            return API_MODEL, tier
    if name == API_MODEL:
        return API_MODEL, "medium"
    return model, None


def _estimate_cost(quality: str, size: str) -> dict[str, Any] | None:
    prices = PRICES.get(quality)
    if prices is None:
        return None
    return {"usd": prices[0] if size == "1024x1024" else prices[1], "estimated": True}


def _upload_files(sources: list[str]) -> list[tuple[str, tuple[str, bytes, str]]]:
    from hermes_nb.provider_api import read_image_source

    files = []
    for source in sources:
        ref = read_image_source(source)
        files.append(("image[]", (ref.filename, ref.data, ref.mime_type)))
    return files


def _error_for(response: httpx.Response) -> HermesError | None:
    """OpenAI's error body: moderation refusals are content policy, not a generic 400."""
    try:
        body = response.json()
    except ValueError:
        return None
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code = str(error.get("code") or "")
    message = str(error.get("message") or f"HTTP {response.status_code}")
    status = response.status_code
    if code in ("moderation_blocked", "content_policy_violation"):
        return ContentPolicyError(
            f"OpenAI's safety system rejected the request: {message}", provider="openai", status=status
        )
    if status == 401 or code == "invalid_api_key":
        return ProviderAuthError(
            f"OpenAI rejected the API key ({message}); check {KEY_ENV}", provider="openai", status=status
        )
    if status == 429 and code == "insufficient_quota":
        return ProviderError(
            f"OpenAI quota exhausted ({message}); check billing at platform.openai.com",
            provider="openai",
            status=status,
        )
    if status == 429:
        retry_after = response.headers.get("retry-after")
        return RateLimitedError(
            f"OpenAI rate limit: {message}",
            provider="openai",
            status=status,
            retry_after=float(retry_after)
            if retry_after and retry_after.replace(".", "", 1).isdigit()
            else None,
        )
    if status in (400, 404):
        return InvalidInputError(f"OpenAI refused the request: {message}", provider="openai", status=status)
    return None
