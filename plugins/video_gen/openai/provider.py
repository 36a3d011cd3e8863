"""OpenAI Videos API: ``POST /videos`` (JSON), ``GET /videos/{id}`` until final, ``GET /videos/{id}/content``.

Sora takes 4, 8 or 12 seconds and four sizes (``1280x720``, ``720x1280``, ``1792x1024``,
``1024x1792``): the aspect ratio picks the orientation and the resolution the size (``720p`` →
1280x720 or 720x1280; ``1080p`` → 1792x1024 or 1024x1792, sora-2-pro only). An image to animate
goes as ``input_reference.image_url`` (a URL or a data URI). At the deadline the job is deleted
(``DELETE /videos/{id}``), the one cancel the API offers.
"""

from __future__ import annotations

from typing import Any

from hermes_nb.provider_api import InvalidInputError, OpenAICompatibleVideoGenProvider, VideoRequest

SIZES = {
    ("16:9", "720p"): "1280x720",
    ("9:16", "720p"): "720x1280",
    ("16:9", "1080p"): "1792x1024",
    ("9:16", "1080p"): "1024x1792",
}
#: Dated list prices per second of video (USD): estimates, not invoices.
PRICES = {"sora-2": 0.10, "sora-2-pro": 0.30}


class OpenAIVideoProvider(OpenAICompatibleVideoGenProvider):
    """Sora 2 and Sora 2 Pro through the Videos API."""

    name = "openai"
    display_name = "OpenAI"
    vendor = "OpenAI"
    key_env = "OPENAI_API_KEY"
    model_env = "OPENAI_VIDEO_MODEL"
    docs_url = "https://platform.openai.com/api-keys"
    default_base_url = "https://api.openai.com/v1"
    badge, tag = "paid", "Sora 2 text- and image-to-video, 4–12 s"
    price_per_second = PRICES["sora-2"]
    modalities = ("text", "image")
    aspect_ratios = ("16:9", "9:16")
    resolutions = ("720p", "1080p")
    durations = (4, 8, 12)
    min_duration, max_duration, default_duration = 4, 12, 4
    supports_negative_prompt = False
    supports_first_frame = True
    accepts_seed = False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": model, "display": model.replace("-", " ").title(), "price": f"${price:.2f}/s",
             "modalities": ["text", "image"]}
            for model, price in PRICES.items()
        ]  # fmt: skip

    def estimate_usd(self, duration: int | None, model: str | None = None) -> float | None:
        price = PRICES.get(str(model or self.default_model()), PRICES["sora-2"])
        return round(price * (duration or self.default_duration or 4), 6)

    def _body(self, request: VideoRequest) -> dict[str, Any]:
        size = SIZES[(request.aspect_ratio, request.resolution)]
        if request.resolution == "1080p" and not request.model.startswith("sora-2-pro"):
            raise InvalidInputError(
                f"{request.model} makes 720p videos; use model='sora-2-pro' for 1080p", provider=self.name
            )
        body: dict[str, Any] = {"model": request.model, "prompt": request.prompt, "size": size,
                                "seconds": str(request.duration or self.default_duration)}  # fmt: skip
        if request.image_url:
            body["input_reference"] = {"image_url": request.image_url}
        return body
