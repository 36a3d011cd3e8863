"""OpenAI Images API: ``POST /images/generations`` (JSON) and ``/images/edits`` (multipart)."""

from __future__ import annotations

import datetime as _dt
from typing import Any

import httpx

from hermes_nb.provider_api import (
    ImageGenProvider,
    ImageRequest,
    errors,
    first_item,
    json_or_none,
    save_b64_image,
    vendor_error,
)

KEY_ENV = "OPENAI_API_KEY"
MODEL_ENV = "OPENAI_IMAGE_MODEL"
API_MODEL = "gpt-image-2"
DEFAULT_MODEL = "gpt-image-2-medium"
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

    name = "openai"
    display_name = "OpenAI"
    key_env = KEY_ENV
    model_env = MODEL_ENV  # OPENAI_IMAGE_MODEL wins over image_gen.openai.model, as in Hermes
    docs_url = "https://platform.openai.com/api-keys"
    default_base_url = "https://api.openai.com/v1"
    badge, tag = "paid", "gpt-image-2 at low / medium / high quality"
    max_reference_images = 16
    accepts_seed, accepts_negative_prompt = False, False
    accepts_sizes = ("auto", "any")  # gpt-image-2 takes any WxH (÷16, 1:3–3:1, ≤3840x2160)

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

    def estimate_usd(self, model: str, aspect_ratio: str, options: dict[str, Any]) -> float | None:
        """The list price of one image at this tier and size: a landscape medium image is $0.08."""
        try:
            _, tier = _api_model(model)
        except errors.HermesError:
            return None
        quality = str(options.get("quality") or tier or "")
        size = str(options.get("size") or SIZES.get(aspect_ratio, ""))
        cost = _estimate_cost(quality, size)
        return None if cost is None else float(cost["usd"])

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        api_model, quality = _api_model(request.model)
        key = self.api_key()
        body: dict[str, Any] = {
            "model": api_model,
            "prompt": request.prompt,
            "n": 1,
            "size": SIZES[request.aspect_ratio],
        }
        if quality:
            body["quality"] = quality
        body.update({k: request.options[k] for k in PASS_THROUGH if request.options.get(k) is not None})
        base = self.base_url()
        # A generation POST is billed once the server starts: never retried after it was sent.
        sent: dict[str, Any] = {"headers": {"Authorization": f"Bearer {key}"}, "timeout": request.timeout_s}
        if request.references:
            sent.update(data={k: str(v) for k, v in body.items()}, files=_upload_files(request.references))
            url = f"{base}/images/edits"
        else:
            sent.update(json=body)
            url = f"{base}/images/generations"
        response = self.send("POST", url, error_map=_error_for, **sent)
        payload = self.json_answer(response)
        first = first_item(payload)
        if first.get("b64_json"):
            image = str(
                save_b64_image(
                    str(first["b64_json"]), prefix=self.name, extension=body.get("output_format", "png")
                )
            )
        elif first.get("url"):
            image = str(first["url"])  # dall-e style URL: the SDK downloads it at once
        else:
            raise self.no_image("OpenAI returned no image")
        return self.answer(
            request,
            image,
            size=payload.get("size") or body["size"],
            quality=payload.get("quality") or body.get("quality"),
            revised_prompt=first.get("revised_prompt"),
            usage=payload.get("usage") if isinstance(payload.get("usage"), dict) else None,
            cost=_estimate_cost(str(body.get("quality") or ""), str(body["size"])),
        )


def _api_model(model: str) -> tuple[str, str | None]:
    """Virtual tier id → (API model, quality); retired ids fail before any request."""
    name = model.strip().lower()
    shutdown = RETIRED.get(name)
    if shutdown is not None and _today() >= shutdown:
        raise errors.InvalidInputError(
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


def _error_for(response: httpx.Response) -> errors.HermesError | None:
    """OpenAI's error body: moderation refusals are content policy, not a generic 400."""
    body = json_or_none(response)
    error = body.get("error") if isinstance(body, dict) else None
    if not isinstance(error, dict):
        return None
    code = str(error.get("code") or "")
    message = str(error.get("message") or f"HTTP {response.status_code}")
    status = response.status_code
    if code in ("moderation_blocked", "content_policy_violation"):
        return errors.ContentPolicyError(
            f"OpenAI's safety system rejected the request: {message}", provider="openai", status=status
        )
    if code == "invalid_api_key":  # whatever status it came with
        return errors.ProviderAuthError(
            f"OpenAI rejected the key ({message}); check {KEY_ENV}", provider="openai", status=status
        )
    if status == 429 and code == "insufficient_quota":
        return errors.ProviderError(
            f"OpenAI quota exhausted ({message}); check billing at platform.openai.com",
            provider="openai",
            status=status,
        )
    return vendor_error(
        response, message, provider="openai", vendor="OpenAI", key_env=KEY_ENV, refused=(400, 404)
    )
