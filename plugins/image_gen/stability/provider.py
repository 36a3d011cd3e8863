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
    ImageGenProvider,
    ImageRequest,
    errors,
    json_or_none,
    save_b64_image,
    save_bytes_image,
    vendor_error,
)

KEY_ENV = "STABILITY_API_KEY"
USD_PER_CREDIT = 0.01
#: id → (label, endpoint under /v2beta/stable-image/generate/, ``model`` form field, credits); the
#: first is the default model
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

    name = "stability"
    display_name = "Stability AI"
    key_env = KEY_ENV
    docs_url = "https://platform.stability.ai/account/keys"
    default_base_url = "https://api.stability.ai"
    badge, tag = "paid", "Stable Image Core / Ultra and Stable Diffusion 3.5"
    accepts_seed, accepts_negative_prompt = True, True
    creative_controls = ("style_preset",)  # Stable Image Core's style presets (photographic, anime …)

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": mid,
                "display": label,
                "price": f"{n_credits:g} credits (~${n_credits * USD_PER_CREDIT:.3f})/image",
            }
            for mid, (label, _endpoint, _field, n_credits) in MODELS.items()
        ]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        model, options = request.model, request.options
        if model not in MODELS:
            raise errors.InvalidInputError(
                f"unknown Stability model {model!r}; choose one of {', '.join(MODELS)}"
            )
        key = self.api_key()
        _label, endpoint, model_field, n_credits = MODELS[model]
        ratio = str(options.get("stability_aspect_ratio") or ASPECTS[request.aspect_ratio])
        if ratio not in RATIOS:
            raise errors.InvalidInputError(
                f"Stability aspect ratio {ratio!r} is not one of {', '.join(RATIOS)}"
            )
        form: dict[str, Any] = {"prompt": request.prompt, "aspect_ratio": ratio, "output_format": "png"}
        if model_field:
            form.update(model=model_field, mode="text-to-image")
        form.update({k: v for k, v in options.items() if k in OPTIONS[endpoint] and v is not None})
        as_json = options.get("response_format") == "b64_json"
        # Billed once generated: the POST is not retried after it was sent.
        response = self.send(
            "POST",
            f"{self.base_url()}/v2beta/stable-image/generate/{endpoint}",
            # (None, value) parts: multipart/form-data fields without a file name
            files={name: (None, str(value)) for name, value in form.items()},
            headers={
                "Authorization": f"Bearer {key}",
                "Accept": "application/json" if as_json else "image/*",
            },
            timeout=request.timeout_s,
            error_map=_error_for,
        )
        if as_json:
            body = self.json_answer(response)
            finish, seed, data = body.get("finish_reason"), body.get("seed"), body.get("image")
        else:
            finish, seed, data = response.headers.get("finish-reason"), response.headers.get("seed"), None
        if finish == FILTERED:
            raise errors.ContentPolicyError(
                "Stability's content filter blurred the result (finish reason CONTENT_FILTERED)",
                provider=self.name,
            )
        if as_json:
            if not isinstance(data, str) or not data:
                raise errors.ProviderError("Stability returned no image", provider=self.name)
            path = save_b64_image(data, prefix=self.name, extension=str(form["output_format"]))
        else:
            if not response.headers.get("content-type", "").startswith("image/"):
                raise errors.ParseError(
                    "Stability answered without image bytes for Accept: image/*", provider=self.name
                )
            path = save_bytes_image(response.content, prefix=self.name, extension=str(form["output_format"]))
        return self.answer(
            request,
            path,
            seed=_int_or_none(seed),
            stability_aspect_ratio=ratio,
            finish_reason=finish,
            cost={"usd": round(n_credits * USD_PER_CREDIT, 6), "credits": n_credits, "estimated": True},
        )


def _int_or_none(value: Any) -> int | None:
    try:
        return int(value) if value is not None and not isinstance(value, bool) else None
    except (TypeError, ValueError):
        return None


def _error_for(response: httpx.Response) -> errors.HermesError | None:
    """``{"id", "name", "errors": [...]}``: ``name`` says what failed (``content_moderation``, ...)."""
    status = response.status_code
    body = json_or_none(response)
    body = body if isinstance(body, dict) else {}
    name = str(body.get("name") or "")
    listed = body.get("errors")
    message = "; ".join(str(e) for e in listed) if isinstance(listed, list) and listed else f"HTTP {status}"
    if name == "content_moderation" or (status == 403 and "moderation" in message.lower()):
        return errors.ContentPolicyError(
            f"Stability's content moderation refused the request: {message}",
            provider="stability",
            status=status,
        )
    return vendor_error(
        response,
        message,
        provider="stability",
        vendor="Stability",
        key_env=KEY_ENV,
        billing="platform.stability.ai",
        refused=(400, 404, 413, 422),
    )
