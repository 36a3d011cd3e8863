"""DeepInfra images: ``POST {base}/images/generations`` on its OpenAI-compatible API (``/v1/openai``).

The request is OpenAI's (``model``, ``prompt``, ``size``, ``n``); the answer carries ``data[0].b64_json``
(a ``url`` is downloaded at once). The model is any DeepInfra image model id: ``model=`` →
``DEEPINFRA_IMAGE_MODEL`` → ``image_gen.deepinfra.model`` → ``image_gen.model`` → FLUX.1 schnell.
A DeepInfra key is often set for chat models; as in Hermes, it alone never makes DeepInfra the image
provider: choose it with ``image_gen.provider: deepinfra`` or ``backend="deepinfra"``.
"""

from __future__ import annotations

from typing import Any

import httpx

from hermes_nb.provider_api import (
    HermesError,
    ImageGenProvider,
    ImageRequest,
    first_item,
    json_or_none,
    save_b64_image,
    vendor_error,
    vendor_message,
)

KEY_ENV = "DEEPINFRA_API_KEY"
DEFAULT_MODEL = "black-forest-labs/FLUX-1-schnell"
SIZES = {"landscape": "1536x1024", "square": "1024x1024", "portrait": "1024x1536"}


class DeepInfraImageProvider(ImageGenProvider):
    """Text-to-image on DeepInfra's OpenAI-compatible endpoint (Hermes's deepinfra backend)."""

    name = "deepinfra"
    display_name = "DeepInfra"
    key_env = KEY_ENV
    model_env = "DEEPINFRA_IMAGE_MODEL"
    docs_url = "https://deepinfra.com/dash/api_keys"
    default_base_url = "https://api.deepinfra.com/v1/openai"
    badge, tag = "paid", "FLUX, Stable Diffusion, Qwen-Image … on DeepInfra"
    price_note = "per image, by model (deepinfra.com/pricing)"
    auto_select = False  # a chat key is no consent to image billing: chosen by name only
    accepts_seed, accepts_negative_prompt = False, False
    accepts_sizes = ("any",)

    def list_models(self) -> list[dict[str, Any]]:
        price = "per image (deepinfra.com/pricing)"
        return [{"id": DEFAULT_MODEL, "display": "FLUX.1 [schnell]", "price": price}]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        size = str(request.options.get("size") or SIZES[request.aspect_ratio]).lower().replace("×", "x")
        body = {"model": request.model, "prompt": request.prompt, "size": size, "n": 1}
        payload = self.post_bearer("/images/generations", body, request, error_map=_error_for)
        first = first_item(payload)
        short = request.model.split("/", 1)[-1].replace(":", "_")
        if first.get("b64_json"):
            image = str(save_b64_image(str(first["b64_json"]), prefix=f"deepinfra_{short}"))
        elif first.get("url"):
            image = str(first["url"])  # downloaded at once by the SDK
        else:
            raise self.no_image("DeepInfra answered without data[0].b64_json or data[0].url")
        return self.answer(request, image, size=size, revised_prompt=first.get("revised_prompt"))


def _error_for(response: httpx.Response) -> HermesError | None:
    """DeepInfra's bodies: ``{"detail": {"error": …}}`` or OpenAI's ``{"error": {"message": …}}``."""
    body = json_or_none(response)
    detail = body.get("detail") if isinstance(body, dict) else None
    if isinstance(detail, dict) and detail.get("error"):
        message = str(detail["error"])
    else:
        message = vendor_message(body, response.status_code)
    return vendor_error(
        response,
        message,
        provider="deepinfra",
        vendor="DeepInfra",
        key_env=KEY_ENV,
        billing="deepinfra.com/dash/billing",
        refused=(400, 404, 422),
    )
