"""fal.ai video through the queue API: ``POST {base}/{endpoint}`` → ``status_url`` until ``COMPLETED`` →
``response_url`` (``video.url``, downloaded at once); ``PUT cancel_url`` at the deadline.

A model is a **family** (as in Hermes): the family routes to its text-to-video endpoint, or to its
image-to-video endpoint when there is an image to animate, and declares the options it takes —
anything else is refused before the submit. The queue's URLs carry the key, so they are followed
only on the configured host.
"""

from __future__ import annotations

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

KEY_ENV = "FAL_KEY"
BACKOFF = Backoff(start=1.0, factor=1.5, cap=8.0)


@dataclass(frozen=True)
class Family:
    """One model family: its endpoints and what its payload takes."""

    display: str
    text_endpoint: str
    image_endpoint: str
    usd_per_second: float  # a rough list price per second: estimates only, marked so
    aspect_ratios: tuple[str, ...] = ()  # () leaves the key out (the endpoint decides)
    resolutions: tuple[str, ...] = ()
    durations: tuple[int, ...] = ()  # the allowed lengths
    duration_suffix: str = ""  # veo3.1 wants "8s"
    image_key: str = "image_url"
    audio: bool = False
    negative: bool = False
    seed: bool = False


FAMILIES: dict[str, Family] = {
    "pixverse-v6": Family(
        "Pixverse v6", "fal-ai/pixverse/v6/text-to-video", "fal-ai/pixverse/v6/image-to-video", 0.05,
        resolutions=("360p", "540p", "720p", "1080p"), durations=tuple(range(1, 16)), audio=True,
        negative=True, seed=True,
    ),
    "veo3.1": Family(
        "Veo 3.1", "fal-ai/veo3.1", "fal-ai/veo3.1/image-to-video", 0.40, aspect_ratios=("16:9", "9:16"),
        resolutions=("720p", "1080p"), durations=(4, 6, 8), duration_suffix="s", audio=True, negative=True,
        seed=True,
    ),
    "kling-v3": Family(
        "Kling 3.0 (Standard)", "fal-ai/kling-video/v3/standard/text-to-video",
        "fal-ai/kling-video/v3/standard/image-to-video", 0.10, aspect_ratios=("16:9", "9:16", "1:1"),
        durations=tuple(range(3, 16)), image_key="start_image_url", audio=True, negative=True,
    ),
    "ltx-2.3": Family(
        "LTX 2.3 (22B)", "fal-ai/ltx-2.3-22b/text-to-video", "fal-ai/ltx-2.3-22b/image-to-video", 0.04,
        audio=True, negative=True, seed=True,
    ),
}  # fmt: skip
DEFAULT_FAMILY = "pixverse-v6"


def _error_for(response: Any) -> Any:
    message = vendor_message(json_or_none(response), response.status_code)
    return vendor_error(
        response, message, provider="fal", vendor="fal.ai", key_env=KEY_ENV, refused=(400, 404, 422)
    )


def family_of(model: str | None) -> tuple[str, Family]:
    """The family a model id names: a family id or one of its endpoint paths."""
    wanted = str(model or "").strip()
    for key, family in FAMILIES.items():
        if wanted in (key, family.text_endpoint, family.image_endpoint):
            return key, family
    raise errors.InvalidInputError(
        f"fal has no video family {wanted!r}; choose one of {', '.join(FAMILIES)}", provider="fal"
    )


class FalVideoProvider(VideoGenProvider):
    """fal's video families; each family's own options are checked before anything is sent."""

    name = "fal"
    display_name = "fal.ai"
    key_env = KEY_ENV
    model_env = "FAL_VIDEO_MODEL"
    docs_url = "https://fal.ai/dashboard/keys"
    default_base_url = "https://queue.fal.run"
    badge, tag = "paid", "video model families on fal's queue"
    modalities = ("text", "image")

    def list_models(self) -> list[dict[str, Any]]:
        return [
            {
                "id": key,
                "display": f.display,
                "price": f"~${f.usd_per_second:.2f}/s",
                "modalities": ["text", "image"],
            }
            for key, f in FAMILIES.items()
        ]

    def default_model(self) -> str:
        return DEFAULT_FAMILY

    def capabilities(self) -> dict[str, Any]:
        """The chosen family's options (``video_gen.fal.model`` or the default)."""
        try:
            _, family = family_of(self.resolve_model(None))
        except errors.InvalidInputError:
            family = FAMILIES[DEFAULT_FAMILY]
        return _caps(family)

    def estimate_usd(self, duration: int | None, model: str | None = None) -> float | None:
        try:
            _, family = family_of(model or self.resolve_model(None))
        except errors.InvalidInputError:
            return None
        seconds = duration or (family.durations[0] if family.durations else 5)
        return round(family.usd_per_second * seconds, 6)

    def _payload(self, request: VideoRequest, family: Family) -> dict[str, Any]:
        payload: dict[str, Any] = {"prompt": request.prompt}
        if request.image_url:
            payload[family.image_key] = request.image_url
        if family.aspect_ratios and not request.image_url:
            payload["aspect_ratio"] = request.aspect_ratio
        if family.resolutions:
            payload["resolution"] = request.resolution
        if request.duration is not None:
            payload["duration"] = f"{request.duration}{family.duration_suffix}"
        if request.audio is not None:
            payload["generate_audio"] = bool(request.audio)
        if request.negative_prompt:
            payload["negative_prompt"] = request.negative_prompt
        if request.seed is not None:
            payload["seed"] = request.seed
        return payload

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        key, family = family_of(request.model)
        _check(key, family, request)
        endpoint = family.image_endpoint if request.image_url else family.text_endpoint
        base, headers = self.base_url(), {"Authorization": f"Key {self.api_key()}"}
        job = self.job(f"fal {key} video", request, backoff=BACKOFF)
        ticket = self.json_answer(
            self.send("POST", f"{base}/{endpoint}", json=self._payload(request, family), headers=headers,
                      timeout=min(60.0, request.timeout_s), error_map=_error_for)
        )  # fmt: skip
        request_id = str(ticket.get("request_id") or "")
        app = "/".join(endpoint.split("/")[:2])
        fallback = f"{base}/{app}/requests/{request_id}"
        status_url = _same_host(ticket.get("status_url"), base) or f"{fallback}/status"
        response_url = _same_host(ticket.get("response_url"), base) or fallback
        cancel_url = _same_host(ticket.get("cancel_url"), base) or f"{fallback}/cancel"
        if not request_id:
            raise errors.ProviderError("fal answered the submit without a request_id", provider=self.name)

        def poll(*, timeout: float, deadline: float) -> dict[str, Any]:
            return self.json_answer(self.send("GET", status_url, headers=headers, timeout=timeout,
                                              deadline=deadline, error_map=_error_for))  # fmt: skip

        def outcome(status: dict[str, Any]) -> bool | None:
            if status.get("status") != "COMPLETED":
                return None
            if status.get("error"):
                raise errors.ProviderError(
                    f"fal video job {request_id} failed: {status['error']}", provider=self.name
                )
            return True

        def cancel() -> None:
            self.send("PUT", cancel_url, headers=headers, timeout=10.0, retry=False, error_map=_error_for)

        job.wait(poll, outcome, cancel=cancel)
        result = self.json_answer(
            self.send("GET", response_url, headers=headers, timeout=30.0, error_map=_error_for)
        )
        if result.get("has_nsfw_concepts") in (True, [True]):
            raise errors.ContentPolicyError("fal's safety checker flagged the video", provider=self.name)
        video = result.get("video") if isinstance(result.get("video"), dict) else {}
        url = video.get("url")
        if not isinstance(url, str) or not url:
            raise self.no_video(f"fal video job {request_id} finished without a video URL")
        path = save_url_video(url, prefix=self.name, timeout=max(10.0, min(job.left(), 180.0)))
        seconds = request.duration or (family.durations[0] if family.durations else 0)
        cost = {"usd": round(family.usd_per_second * seconds, 6), "estimated": True} if seconds else None
        envelope = self.answer(request, path, request_id=request_id, endpoint=endpoint, cost=cost,
                               seed=result.get("seed", request.seed))  # fmt: skip
        envelope["model"] = key
        return envelope


def _caps(family: Family) -> dict[str, Any]:
    caps: dict[str, Any] = {
        "modalities": ["text", "image"], "aspect_ratios": list(family.aspect_ratios),
        "resolutions": list(family.resolutions), "supports_audio": family.audio,
        "supports_negative_prompt": family.negative, "max_reference_images": 0, "seed": family.seed,
        "supports_first_frame": True, "supports_last_frame": False,
    }  # fmt: skip
    if family.durations:
        caps.update(durations=list(family.durations), min_duration=min(family.durations),
                    max_duration=max(family.durations))  # fmt: skip
    else:
        caps.update(min_duration=1, max_duration=20)
    return caps


def _check(key: str, family: Family, request: VideoRequest) -> None:
    """The family of an explicit ``model=`` may differ from the configured one: check it too."""
    Refused = errors.InvalidInputError  # noqa: N806 - a local alias for the class

    caps = _caps(family)
    problems = [
        f"duration={request.duration}" if request.duration and family.durations
        and request.duration not in family.durations else "",
        f"aspect_ratio={request.aspect_ratio!r}" if family.aspect_ratios and not request.image_url
        and request.aspect_ratio not in family.aspect_ratios else "",
        "audio" if request.audio and not caps["supports_audio"] else "",
        "a negative prompt" if request.negative_prompt and not family.negative else "",
        "a seed" if request.seed is not None and not family.seed else "",
    ]  # fmt: skip
    bad = next((p for p in problems if p), "")
    if bad:
        raise Refused(f"the fal family {key} does not take {bad}", provider="fal")


def _same_host(url: Any, base: str) -> str | None:
    """``url`` when it is on the configured host (queue URLs carry the key), else None."""
    if not isinstance(url, str):
        return None
    want, got = urlsplit(base), urlsplit(url)
    return url if (got.scheme, got.netloc) == (want.scheme, want.netloc) else None
