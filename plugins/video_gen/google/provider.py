"""Google Veo through the Gemini API: ``POST models/{model}:predictLongRunning`` → ``GET {operation}`` until
``done`` → the sample's ``video.uri`` (downloaded with the key, only from the configured host).

The request is Vertex-style: ``instances: [{prompt, image?}]`` and ``parameters`` (``aspectRatio``,
``durationSeconds``, ``resolution``, ``negativePrompt``, ``seed``). At the deadline the operation is
cancelled (``{operation}:cancel``, best effort). Veo 3.x takes 4, 6 or 8 seconds, 16:9 or 9:16,
720p or 1080p; its videos carry sound.
"""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import urlsplit

from hermes_nb.provider_api import (
    Backoff,
    VideoGenProvider,
    VideoRequest,
    errors,
    json_or_none,
    save_bytes_video,
    vendor_error,
    vendor_message,
)

KEY_ENV = "GEMINI_API_KEY"
BACKOFF = Backoff(start=2.0, factor=1.5, cap=10.0)
#: model id → rough list price per second (USD; estimates, marked so)
MODELS = {
    "veo-3.1-generate-preview": 0.40,
    "veo-3.1-fast-generate-preview": 0.15,
    "veo-3.0-generate-001": 0.40,
}


def _error_for(response: Any) -> Any:
    message = vendor_message(json_or_none(response), response.status_code)
    return vendor_error(response, message, provider="google", vendor="Google", key_env=KEY_ENV)


class GoogleVeoProvider(VideoGenProvider):
    """Veo 3.x text- and image-to-video with native audio."""

    name = "google"
    display_name = "Google Veo"
    key_env = KEY_ENV
    model_env = "GEMINI_VIDEO_MODEL"
    docs_url = "https://aistudio.google.com/apikey"
    default_base_url = "https://generativelanguage.googleapis.com/v1beta"
    badge, tag = "paid", "Veo 3.1 through the Gemini API"
    modalities = ("text", "image")
    aspect_ratios = ("16:9", "9:16")
    resolutions = ("720p", "1080p")
    durations = (4, 6, 8)
    min_duration, max_duration, default_duration = 4, 8, 8
    supports_negative_prompt = True
    supports_audio = True
    supports_first_frame = True
    accepts_seed = True

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": model, "price": f"~${usd:.2f}/s"} for model, usd in MODELS.items()]

    def estimate_usd(self, duration: int | None, model: str | None = None) -> float | None:
        usd = MODELS.get(str(model or self.resolve_model(None)))
        return None if usd is None else round(usd * (duration or self.default_duration or 8), 6)

    def _body(self, request: VideoRequest) -> dict[str, Any]:
        instance: dict[str, Any] = {"prompt": request.prompt}
        if request.image_url:
            instance["image"] = _inline_image(request.image_url)
        parameters: dict[str, Any] = {
            "aspectRatio": request.aspect_ratio,
            "durationSeconds": request.duration or self.default_duration,
            "resolution": request.resolution,
        }
        if request.negative_prompt:
            parameters["negativePrompt"] = request.negative_prompt
        if request.seed is not None:
            parameters["seed"] = request.seed
        return {"instances": [instance], "parameters": parameters}

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        base, headers = self.base_url(), {"x-goog-api-key": self.api_key()}
        job = self.job("Veo operation", request, backoff=BACKOFF)
        started = self.json_answer(
            self.send(
                "POST", f"{base}/models/{request.model}:predictLongRunning", json=self._body(request),
                headers=headers, timeout=min(60.0, request.timeout_s), error_map=_error_for,
            )
        )  # fmt: skip
        operation = str(started.get("name") or "")
        if not operation:
            raise errors.ProviderError("Google answered without an operation name", provider=self.name)

        def poll(*, timeout: float, deadline: float) -> dict[str, Any]:
            answer = self.send(
                "GET", f"{base}/{operation}", headers=headers, timeout=timeout, deadline=deadline,
                error_map=_error_for,
            )  # fmt: skip
            return self.json_answer(answer)

        def outcome(answer: dict[str, Any]) -> dict[str, Any] | None:
            if not answer.get("done"):
                return None
            error = answer.get("error")
            if isinstance(error, dict):
                raise errors.ProviderError(
                    f"Veo operation {operation} failed: {error.get('message')}", provider=self.name
                )
            return answer

        def cancel() -> None:
            self.send("POST", f"{base}/{operation}:cancel", headers=headers, timeout=10.0, retry=False,
                      error_map=_error_for)  # fmt: skip

        final = job.wait(poll, outcome, cancel=cancel, first=started if started.get("done") else None)
        response = final.get("response") if isinstance(final.get("response"), dict) else {}
        generated = response.get("generateVideoResponse") if isinstance(response, dict) else None
        generated = generated if isinstance(generated, dict) else {}
        samples = generated.get("generatedSamples") or []
        if not samples and generated.get("raiMediaFilteredReasons"):
            reasons = "; ".join(str(r) for r in generated["raiMediaFilteredReasons"])
            raise errors.ContentPolicyError(f"Veo filtered the video: {reasons}", provider=self.name)
        video = samples[0].get("video") if samples and isinstance(samples[0], dict) else None
        uri = video.get("uri") if isinstance(video, dict) else None
        if not isinstance(uri, str) or not _same_host(uri, base):
            raise self.no_video(
                f"Veo operation {operation} finished without a video on {urlsplit(base).netloc}"
            )
        download = self.send("GET", uri, headers=headers, timeout=max(10.0, min(job.left(), 180.0)),
                             error_map=_error_for)  # fmt: skip
        try:
            path = save_bytes_video(download.content, prefix=self.name)
        except errors.ParseError as exc:
            raise self.no_video(f"Veo operation {operation} returned no usable video: {exc}") from exc
        usd = self.estimate_usd(request.duration, request.model)
        cost = None if usd is None else {"usd": usd, "estimated": True}
        return self.answer(request, path, operation=operation, cost=cost)


def _inline_image(source: str) -> dict[str, str]:
    """Veo takes the first frame inline: ``bytesBase64Encoded`` and ``mimeType`` (a data URI's parts)."""
    from hermes_nb.provider_api import read_image_source

    image = read_image_source(source)
    return {"bytesBase64Encoded": base64.b64encode(image.data).decode("ascii"), "mimeType": image.mime_type}


def _same_host(url: str, base: str) -> bool:
    want, got = urlsplit(base), urlsplit(url)
    return (got.scheme, got.netloc) == (want.scheme, want.netloc)
