"""xAI Grok Imagine video: ``POST /videos/generations``, ``GET /videos/{request_id}`` until ``done``, the MP4.

Text-to-video runs on ``grok-imagine-video``; an image to animate switches to
``grok-imagine-video-1.5`` unless a model is chosen (as Hermes does). Reference images (at most 7,
as ``reference_images: [{url}]``) cannot be combined with an image to animate and allow at most
10 seconds. The answer's ``video.url`` is temporary: it is downloaded at once. xAI offers no
cancel: at the deadline the wait ends with ``TIMEOUT``.
"""

from __future__ import annotations

import uuid
from typing import Any

from hermes_nb.provider_api import (
    VideoGenProvider,
    VideoRequest,
    errors,
    json_or_none,
    save_url_video,
    vendor_error,
)

TEXT_MODEL = "grok-imagine-video"
IMAGE_MODEL = "grok-imagine-video-1.5"
KEY_ENV = "XAI_API_KEY"


def _error_for(response: Any) -> Any:
    body = json_or_none(response)
    error = body.get("error") if isinstance(body, dict) else None
    message = error.get("message") if isinstance(error, dict) else error or (body or {}).get("message")
    return vendor_error(
        response,
        str(message or f"HTTP {response.status_code}"),
        provider="xai",
        vendor="xAI",
        key_env=KEY_ENV,
    )


class XaiVideoProvider(VideoGenProvider):
    """Grok Imagine video (1–15 s, 480p or 720p, seven aspect ratios, up to 7 reference images)."""

    name = "xai"
    display_name = "xAI"
    key_env = KEY_ENV
    model_env = "XAI_VIDEO_MODEL"
    docs_url = "https://console.x.ai/"
    default_base_url = "https://api.x.ai/v1"
    badge, tag = "paid", "Grok Imagine: text-, image- and reference-to-video"
    price_note = "see docs.x.ai/developers/pricing (cost from usage when xAI reports it)"
    modalities = ("text", "image")
    aspect_ratios = ("16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3")
    resolutions = ("720p", "480p")
    min_duration, max_duration, default_duration = 1, 15, 8
    max_reference_images = 7
    supports_first_frame = True
    accepts_seed = False

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": TEXT_MODEL, "display": "Grok Imagine Video", "modalities": ["text", "image"]},
            {"id": IMAGE_MODEL, "display": "Grok Imagine Video 1.5", "modalities": ["image"]},
        ]

    def _payload(self, request: VideoRequest) -> dict[str, Any]:
        if request.image_url and request.references:
            raise errors.InvalidInputError(
                "xAI cannot combine an image to animate with reference images", provider="xai"
            )
        duration = request.duration or self.default_duration
        if request.references and duration > 10:
            raise errors.InvalidInputError(
                f"xAI takes at most 10 s with reference images, got {duration}", provider="xai"
            )
        model = request.model
        if request.image_url and model == TEXT_MODEL:
            model = IMAGE_MODEL  # the default model: xAI's image-to-video model animates images
        if request.references and model != TEXT_MODEL:
            message = f"xAI reference-to-video needs {TEXT_MODEL}, got {model}"
            raise errors.InvalidInputError(message, provider="xai")
        payload: dict[str, Any] = {
            "model": model, "prompt": request.prompt, "duration": duration,
            "aspect_ratio": request.aspect_ratio, "resolution": request.resolution,
        }  # fmt: skip
        if request.image_url:
            payload["image"] = {"url": request.image_url}
        if request.references:
            payload["reference_images"] = [{"url": url} for url in request.references]
        return payload

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        payload = self._payload(request)
        headers = {"Authorization": f"Bearer {self.api_key()}"}
        base = self.base_url()
        job = self.job("xAI video request", request)
        submitted = self.send(
            "POST", f"{base}/videos/generations", json=payload, timeout=min(60.0, request.timeout_s),
            headers={**headers, "x-idempotency-key": str(uuid.uuid4())}, error_map=_error_for,
        )  # fmt: skip
        request_id = str(self.json_answer(submitted).get("request_id") or "")
        if not request_id:
            raise errors.ProviderError("xAI answered the video request without a request_id", provider="xai")

        def poll(*, timeout: float, deadline: float) -> dict[str, Any]:
            answer = self.send("GET", f"{base}/videos/{request_id}", headers=headers, timeout=timeout,
                               deadline=deadline, error_map=_error_for)  # fmt: skip
            return self.json_answer(answer)

        def outcome(body: dict[str, Any]) -> dict[str, Any] | None:
            status = str(body.get("status") or "").lower()
            if status == "done":
                return body
            if status in ("failed", "error", "expired", "cancelled"):
                error = body.get("error")
                detail = (error.get("message") if isinstance(error, dict) else error) or body.get("message")
                raise errors.ProviderError(
                    f"xAI video request {request_id} ended {status}: {detail or 'no reason given'}",
                    provider="xai", details={"error_type": f"xai_{status}"},
                )  # fmt: skip
            return None

        body = job.wait(poll, outcome)
        video = body.get("video") if isinstance(body.get("video"), dict) else {}
        files = video.get("file_output") if isinstance(video.get("file_output"), dict) else {}
        url = files.get("public_url") or video.get("url")
        if not isinstance(url, str) or not url.strip():
            raise self.no_video("xAI finished the video request without a video URL")
        path = save_url_video(url, prefix=self.name, timeout=max(10.0, min(job.left(), 180.0)))
        return success_answer(self, request, path, payload, body, request_id)


def success_answer(
    provider: XaiVideoProvider, request: VideoRequest, path: Any, payload: dict[str, Any],
    body: dict[str, Any], request_id: str,
) -> dict[str, Any]:  # fmt: skip
    """The envelope: the model and length xAI reports, its usage and the cost from it when given."""
    video = body.get("video") if isinstance(body.get("video"), dict) else {}
    usage = body.get("usage") if isinstance(body.get("usage"), dict) else None
    ticks = (usage or {}).get("cost_in_usd_ticks")
    cost = {"usd": round(ticks / 1e10, 6), "estimated": False} if isinstance(ticks, int) else None
    envelope = provider.answer(request, path, request_id=request_id, usage=usage, cost=cost)
    envelope.update(model=str(body.get("model") or payload["model"]),
                    duration=int(video.get("duration") or payload["duration"]))  # fmt: skip
    return envelope
