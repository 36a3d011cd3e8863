"""Replicate video models: ``POST /models/{owner}/{name}/predictions``, ``urls.get`` until final, the output.

Each known model maps the common options onto its own input names (MiniMax takes the image as
``first_frame_image``, Wan as ``image``…); an unknown ``owner/name`` gets ``prompt``, ``image``,
``duration``, ``aspect_ratio``, ``seed`` and ``negative_prompt`` as given. The prediction is
cancelled (``urls.cancel``) when the deadline passes, so that it stops billing; the output URL
expires, so the video is downloaded at once. Errors are RFC 7807 problem bodies.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from hermes_nb.provider_api import (
    Backoff,
    VideoGenProvider,
    VideoRequest,
    errors,
    json_or_none,
    save_url_video,
    vendor_error,
    vendor_message,
)

KEY_ENV = "REPLICATE_API_TOKEN"
BACKOFF = Backoff(start=1.0, factor=1.5, cap=8.0)
FAILED = ("failed", "canceled", "aborted")
_MODEL_ID = re.compile(r"^[\w.-]+/[\w.-]+$")


@dataclass(frozen=True)
class Model:
    """A known video model: its input names (empty: not taken) and a rough per-second list price."""

    display: str
    usd_per_second: float
    image: str = "image"
    duration: str = "duration"
    aspect_ratio: str = "aspect_ratio"
    seed: str = "seed"
    negative_prompt: str = "negative_prompt"
    durations: tuple[int, ...] = ()


MODELS: dict[str, Model] = {
    "minimax/video-01": Model(
        "MiniMax Video-01",
        0.08,
        image="first_frame_image",
        duration="",
        aspect_ratio="",
        seed="",
        negative_prompt="",
        durations=(6,),
    ),
    "kwaivgi/kling-v2.1": Model("Kling v2.1", 0.05, image="start_image", seed="", durations=(5, 10)),
    "wan-video/wan-2.2-t2v-fast": Model("Wan 2.2 (fast)", 0.02, duration="", negative_prompt=""),
}
DEFAULT_MODEL = "minimax/video-01"


def _error_for(response: Any) -> Any:
    message = vendor_message(json_or_none(response), response.status_code)
    return vendor_error(
        response,
        message,
        provider="replicate",
        vendor="Replicate",
        key_env=KEY_ENV,
        billing="https://replicate.com/account/billing",
    )


def _trusted(url: Any, base: str) -> str | None:
    if not isinstance(url, str):
        return None
    want, got = urlsplit(base), urlsplit(url)
    return url if (got.scheme, got.netloc) == (want.scheme, want.netloc) else None


class ReplicateVideoProvider(VideoGenProvider):
    """Video models on Replicate (MiniMax, Kling, Wan, or any ``owner/name``)."""

    name = "replicate"
    display_name = "Replicate"
    key_env = KEY_ENV
    model_env = "REPLICATE_VIDEO_MODEL"
    docs_url = "https://replicate.com/account/api-tokens"
    default_base_url = "https://api.replicate.com/v1"
    badge, tag = "paid", "video models through predictions"
    modalities = ("text", "image")
    max_duration = 10
    supports_negative_prompt = True
    accepts_seed = True

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {"id": key, "display": m.display, "price": f"~${m.usd_per_second:.2f}/s"}
            for key, m in MODELS.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_MODEL

    def estimate_usd(self, duration: int | None, model: str | None = None) -> float | None:
        known = MODELS.get(str(model or self.resolve_model(None)))
        if known is None:
            return None
        return round(known.usd_per_second * (duration or (known.durations or (5,))[0]), 6)

    def _input(self, request: VideoRequest) -> dict[str, Any]:
        model = MODELS.get(request.model, Model(request.model, 0.0))
        given = {
            "image": request.image_url,
            "duration": request.duration,
            "seed": request.seed,
            "negative_prompt": request.negative_prompt,
        }
        out: dict[str, Any] = {"prompt": request.prompt}
        for option, value in given.items():
            name = getattr(model, option)
            if value is None:
                continue
            if not name:
                raise errors.InvalidInputError(
                    f"{request.model} on Replicate takes no {option.replace('_', ' ')}", provider=self.name
                )
            out[name] = value
        if model.durations and request.duration is not None and request.duration not in model.durations:
            allowed = ", ".join(str(d) for d in model.durations)
            raise errors.InvalidInputError(
                f"{request.model} makes {allowed} s videos, not {request.duration}", provider=self.name
            )
        if model.aspect_ratio:
            out[model.aspect_ratio] = request.aspect_ratio
        return out

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        if not _MODEL_ID.match(request.model):
            raise errors.InvalidInputError(
                f"Replicate models are owner/name, got {request.model!r}", provider=self.name
            )
        base, headers = self.base_url(), {"Authorization": f"Bearer {self.api_key()}"}
        job = self.job("Replicate prediction", request, backoff=BACKOFF)
        prediction = self.json_answer(
            self.send(
                "POST",
                f"{base}/models/{request.model}/predictions",
                json={"input": self._input(request)},
                headers={**headers, "Prefer": "wait=5"},
                timeout=min(60.0, request.timeout_s),
                error_map=_error_for,
            )
        )
        pid = str(prediction.get("id") or "")
        urls = prediction.get("urls") if isinstance(prediction.get("urls"), dict) else {}
        get_url = _trusted(urls.get("get"), base) or f"{base}/predictions/{pid}"
        cancel_url = _trusted(urls.get("cancel"), base) or f"{base}/predictions/{pid}/cancel"

        def poll(*, timeout: float, deadline: float) -> dict[str, Any]:
            return self.json_answer(
                self.send(
                    "GET", get_url, headers=headers, timeout=timeout, deadline=deadline, error_map=_error_for
                )
            )

        def outcome(answer: dict[str, Any]) -> dict[str, Any] | None:
            status = str(answer.get("status") or "")
            if status == "succeeded":
                return answer
            if status in FAILED:
                raise errors.ProviderError(
                    f"Replicate prediction {pid} {status}: {answer.get('error') or 'no reason given'}",
                    provider=self.name,
                )
            return None

        def cancel() -> None:
            self.send("POST", cancel_url, headers=headers, timeout=10.0, retry=False, error_map=_error_for)

        final = job.wait(poll, outcome, cancel=cancel, first=prediction)
        output = final.get("output")
        url = output[0] if isinstance(output, list) and output else output
        if not isinstance(url, str) or not url:
            raise self.no_video(f"Replicate prediction {pid} succeeded without an output URL")
        path = save_url_video(url, prefix=self.name, timeout=max(10.0, min(job.left(), 180.0)))
        usd = self.estimate_usd(request.duration, request.model)
        return self.answer(
            request, path, prediction_id=pid, cost=None if usd is None else {"usd": usd, "estimated": True}
        )
