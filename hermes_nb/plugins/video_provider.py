"""The ``VideoGenProvider`` contract (its ``generate`` a template), Hermes's video envelopes and file helpers.

Plugins import these names as ``agent.video_gen_provider`` (served by ``hermes_nb.compat``), the same
names and semantics as Hermes: ``generate(prompt, *, model, image_url, reference_image_urls, duration,
aspect_ratio, resolution, negative_prompt, audio, seed, **kwargs)`` returns ``success_response`` or
``error_response`` and never raises; unknown keyword options are ignored. ``image_url`` routes to
image-to-video. A bundled provider writes only ``_generate(request)``: the template resolves the
model, checks the request against the provider's declared capabilities and turns a ``HermesError``
into the error envelope. ``OpenAICompatibleVideoGenProvider`` is the ``POST /videos`` → poll (hard
deadline, cancel) → download base that OpenAI, DeepInfra, OpenRouter and self-hosted servers share.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_nb import config
from hermes_nb.errors import ContentPolicyError, HermesError, InvalidInputError, ParseError, ProviderError
from hermes_nb.plugins.image_envelopes import error_from_envelope, error_type_for
from hermes_nb.plugins.media_provider import MediaProvider
from hermes_nb.plugins.polled_job import Backoff, PolledJob
from hermes_nb.plugins.provider_keys import KeyEnv
from hermes_nb.plugins.vendor_answers import json_or_none, vendor_error
from hermes_nb.redaction import redact
from hermes_nb.store.video_files import (
    MAX_VIDEO_BYTES,
    decode_video_b64,
    videos_cache_dir,
    write_video,
)

if TYPE_CHECKING:
    import httpx


__all__ = [
    "COMMON_ASPECT_RATIOS",
    "DEFAULT_ASPECT_RATIO",
    "COMMON_RESOLUTIONS",
    "DEFAULT_RESOLUTION",
    "VideoGenProvider",
    "VideoRequest",
    "OpenAICompatibleVideoGenProvider",
    "success_response",
    "error_response",
    "video_error_response_for",
    "video_error_from_envelope",
    "save_b64_video",
    "save_bytes_video",
    "save_url_video",
    "videos_cache_dir",
    "check_video_request",
    "MAX_VIDEO_BYTES",
]

#: Hermes's advertised sets; a provider declares the narrower or wider set it takes.
COMMON_ASPECT_RATIOS: tuple[str, ...] = ("16:9", "9:16", "1:1", "4:3", "3:4", "3:2", "2:3")
DEFAULT_ASPECT_RATIO = "16:9"
COMMON_RESOLUTIONS: tuple[str, ...] = ("480p", "540p", "720p", "1080p")
DEFAULT_RESOLUTION = "720p"
_DOWNLOAD_TIMEOUT_S = 180.0


# --------------------------------------------------------------------------- envelopes


def success_response(
    *,
    video: str,
    model: str,
    prompt: str,
    modality: str = "text",
    aspect_ratio: str = "",
    duration: int = 0,
    provider: str,
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Hermes's success envelope (``video`` a URL or an absolute path); ``extra`` never overwrites."""
    out: dict[str, Any] = {
        "success": True,
        "video": video,
        "model": model,
        "prompt": prompt,
        "modality": modality,
        "aspect_ratio": aspect_ratio,
        "duration": int(duration) if duration else 0,
        "provider": provider,
    }
    for key, value in (extra or {}).items():
        out.setdefault(key, value)
    return out


def error_response(
    *,
    error: str,
    error_type: str = "provider_error",
    provider: str = "",
    model: str = "",
    prompt: str = "",
    aspect_ratio: str = "",
) -> dict[str, Any]:
    """Hermes's error envelope (``video`` None); the message is redacted."""
    return {
        "success": False,
        "video": None,
        "error": redact(str(error)),
        "error_type": error_type,
        "model": model,
        "prompt": prompt,
        "aspect_ratio": aspect_ratio,
        "provider": provider,
    }


def video_error_response_for(
    exc: BaseException, *, provider: str, model: str = "", prompt: str = "", aspect_ratio: str = ""
) -> dict[str, Any]:
    """``error_response`` for an exception caught in ``generate`` (typed by class, as images are)."""
    return error_response(
        error=str(exc), error_type=error_type_for(exc), provider=provider, model=model, prompt=prompt,
        aspect_ratio=aspect_ratio,
    )  # fmt: skip


def video_error_from_envelope(envelope: dict[str, Any]) -> HermesError:
    """The exception for a video ``error_response`` (the same ``error_type`` table as images)."""
    return error_from_envelope({**envelope, "error": envelope.get("error") or "video generation failed"})


# --------------------------------------------------------------------------- files


def save_bytes_video(raw: bytes, *, prefix: str = "video", extension: str = "mp4") -> Path:
    """Write video bytes as ``<prefix>_<YYYYMMDD_HHMMSS>_<uuid8>.<ext>`` in ``$HERMES_HOME/cache/videos``.

    The container is sniffed from the bytes (MP4/MOV ``ftyp``, WebM/Matroska EBML) and names the
    extension (``extension`` is Hermes's hint only); anything else, an empty body or more than
    ``MAX_VIDEO_BYTES`` is refused before a byte is written; the write is atomic.
    """
    return write_video(raw, prefix=prefix)


def save_b64_video(b64_data: str, *, prefix: str = "video", extension: str = "mp4") -> Path:
    """Decode base64 (or a ``data:`` URI) and ``save_bytes_video`` it."""
    return write_video(decode_video_b64(b64_data), prefix=prefix)


def save_url_video(
    url: str, *, prefix: str = "video", timeout: float = _DOWNLOAD_TIMEOUT_S, max_bytes: int = MAX_VIDEO_BYTES
) -> Path:
    """Download a (often short-lived) video URL through the guarded fetcher and keep it.

    Refused, with nothing written: more than ``max_bytes``, a non-video content type, bytes that
    are not a video, or an empty body. Raises ``HermesError`` subclasses (Hermes raises too).
    """
    from hermes_nb.net.fetch import fetch  # lazy: httpx stays off the %load_ext path

    page = fetch(url, max_bytes=max_bytes, timeout=timeout, deadline=timeout, accept="video/*;q=1, */*;q=0.1")
    if page.truncated or len(page.content) > max_bytes:
        raise ProviderError(f"video at {url} exceeds the {max_bytes // (1024 * 1024)} MiB cap; refused")
    kind = (page.content_type or "").split(";")[0].strip().lower()
    if (
        kind
        and not kind.startswith("video/")
        and kind not in ("application/octet-stream", "binary/octet-stream")
    ):
        raise ProviderError(f"{url} returned {kind}, not a video")
    try:
        return write_video(page.content, prefix=prefix, max_bytes=max_bytes)
    except ParseError as exc:
        raise ProviderError(f"{url} did not return a usable video: {exc}") from exc


# --------------------------------------------------------------------------- request and checks


@dataclass(frozen=True)
class VideoRequest:
    """One ``generate`` call as the template hands it to ``_generate``."""

    prompt: str  # stripped, never empty
    model: str  # resolved (argument → env → config → default); may be ""
    image_url: str | None  # the first frame / image to animate (image-to-video)
    references: list[str]  # reference_image_urls
    duration: int | None  # seconds; None: the provider's default
    aspect_ratio: str
    resolution: str
    negative_prompt: str | None
    audio: bool | None
    seed: int | None
    options: dict[str, Any] = field(default_factory=dict)  # other keywords (last_frame_url, …)
    timeout_s: float = 600.0  # video_gen.timeout: the whole generation, polling and download included

    @property
    def modality(self) -> str:
        """``"image"`` for image-to-video, else ``"text"``."""
        return "image" if self.image_url else "text"


def check_video_request(
    name: str,
    caps: dict[str, Any],
    *,
    image: bool = False,
    references: int = 0,
    duration: int | None = None,
    aspect_ratio: str | None = None,
    resolution: str | None = None,
    negative_prompt: bool = False,
    audio: bool | None = None,
    seed: bool = False,
    last_frame: bool = False,
) -> None:
    """``InvalidInputError`` naming the choices when an option is outside what ``caps`` declares."""

    def refuse(what: str, allowed: str) -> InvalidInputError:
        return InvalidInputError(
            f"the {name} video provider does not take {what}; {allowed}", provider=name,
            details={"error_type": "invalid_request"},
        )  # fmt: skip

    modalities = caps.get("modalities") or ["text"]
    if image and "image" not in modalities:
        raise refuse("an image to animate (it is text-to-video only)", "leave out image= / --from")
    limit = int(caps.get("max_reference_images") or 0)
    if references > limit:
        raise refuse(f"{references} reference images", f"it takes at most {limit}")
    if duration is not None:
        if isinstance(duration, bool) or not isinstance(duration, int) or duration < 1:
            raise InvalidInputError(f"duration must be a whole number of seconds, got {duration!r}")
        choices = caps.get("durations")
        low, high = int(caps.get("min_duration") or 1), int(caps.get("max_duration") or 10)
        if choices and duration not in choices:
            raise refuse(
                f"duration={duration}", f"choose one of {', '.join(str(c) for c in choices)} seconds"
            )
        if not low <= duration <= high:
            raise refuse(f"duration={duration}", f"choose {low} to {high} seconds")
    ratios = caps.get("aspect_ratios")
    if aspect_ratio is not None and ratios and aspect_ratio not in ratios:
        raise refuse(f"aspect_ratio={aspect_ratio!r}", f"choose one of {', '.join(ratios)}")
    sizes = caps.get("resolutions")
    if resolution is not None and sizes and resolution not in sizes:
        raise refuse(f"resolution={resolution!r}", f"choose one of {', '.join(sizes)}")
    if negative_prompt and not caps.get("supports_negative_prompt"):
        raise refuse("a negative prompt", "leave out negative_prompt=")
    if audio and not caps.get("supports_audio"):
        raise refuse("audio", "leave out audio= (its videos are silent)")
    if seed and caps.get("seed") is False:
        raise refuse("a seed", "leave out seed=")
    if last_frame and not caps.get("supports_last_frame"):
        raise refuse("a last frame", "leave out last_frame_url=")


def _pick(value: Any, allowed: tuple[str, ...], default: str) -> str:
    """The caller's value; Hermes's default becomes the provider's first choice when it takes another set."""
    text = str(value).strip() if isinstance(value, str) and value.strip() else default
    if allowed and text not in allowed and text == default:
        return allowed[0]
    return text


# --------------------------------------------------------------------------- the base class


class VideoGenProvider(MediaProvider, abc.ABC):
    """Base class of every video provider: Hermes's contract plus what hermes_nb reads, declared here.

    Metadata and capabilities are class attributes; a Hermes-style plugin may define ``name`` as a
    ``@property`` and override ``capabilities()`` / ``generate()`` itself and keeps working unchanged.
    """

    # -- what the SDK reads (defaults are Hermes's); the metadata both media kinds share is declared
    # on ``MediaProvider`` (tier, aliases, docs_url, key_env, model_env, default_base_url, badge …) --
    section = "video_gen"
    #: US dollars per generated second, for estimates and budgets (None: unknown).
    price_per_second: float | None = None
    # -- capabilities (Hermes's keys; ``durations``/``accepts_seed`` are hermes_nb's additions) --
    modalities: tuple[str, ...] = ("text",)
    aspect_ratios: tuple[str, ...] = COMMON_ASPECT_RATIOS
    resolutions: tuple[str, ...] = COMMON_RESOLUTIONS
    min_duration: int = 1
    max_duration: int = 10
    durations: tuple[int, ...] = ()  # the only lengths it takes, when it takes a fixed set
    default_duration: int | None = None
    supports_audio: bool = False
    supports_negative_prompt: bool = False
    max_reference_images: int = 0
    supports_first_frame: bool = False
    supports_last_frame: bool = False
    accepts_seed: bool | None = None

    def __new__(cls, *args: Any, **kwargs: Any) -> VideoGenProvider:
        if cls.generate is VideoGenProvider.generate and cls._generate is VideoGenProvider._generate:
            raise TypeError(f"Can't instantiate {cls.__name__}: define generate() or _generate()")
        return super().__new__(cls)

    @property
    @abc.abstractmethod
    def name(self) -> str:
        """Stable id, the value of ``video_gen.provider`` (lowercase)."""

    def default_model(self) -> str | None:
        models = self.list_models()
        return models[0].get("id") if models else None

    def capabilities(self) -> dict[str, Any]:
        """Hermes's keys, built from the class attributes (plus ``durations`` and ``seed`` when declared)."""
        caps: dict[str, Any] = {
            "modalities": list(self.modalities),
            "aspect_ratios": list(self.aspect_ratios),
            "resolutions": list(self.resolutions),
            "max_duration": self.max_duration,
            "min_duration": self.min_duration,
            "supports_audio": self.supports_audio,
            "supports_negative_prompt": self.supports_negative_prompt,
            "max_reference_images": self.max_reference_images,
            "max_reference_videos": 0,
            "max_reference_audios": 0,
            "supports_first_frame": self.supports_first_frame,
            "supports_last_frame": self.supports_last_frame,
        }
        if self.durations:
            caps["durations"] = list(self.durations)
        if self.accepts_seed is not None:
            caps["seed"] = self.accepts_seed
        return caps

    def generate(
        self,
        prompt: str,
        *,
        model: str | None = None,
        image_url: str | None = None,
        reference_image_urls: list[str] | None = None,
        duration: int | None = None,
        aspect_ratio: str = DEFAULT_ASPECT_RATIO,
        resolution: str = DEFAULT_RESOLUTION,
        negative_prompt: str | None = None,
        audio: bool | None = None,
        seed: int | None = None,
        **kwargs: Any,
    ) -> dict[str, Any]:
        """Generate one video; ``success_response`` or ``error_response``, never an exception."""
        aspect = _pick(aspect_ratio, self.aspect_ratios, DEFAULT_ASPECT_RATIO)
        chosen = ""
        try:
            chosen = self.resolve_model(model) or ""
            text = (prompt or "").strip() if isinstance(prompt, str) else ""
            if not text:
                raise InvalidInputError("prompt is required for video generation")
            request = VideoRequest(
                prompt=text,
                model=chosen,
                image_url=image_url or None,
                references=[r for r in (reference_image_urls or []) if r],
                duration=duration if duration is not None else self.default_duration,
                aspect_ratio=aspect,
                resolution=_pick(resolution, self.resolutions, DEFAULT_RESOLUTION),
                negative_prompt=negative_prompt or None,
                audio=audio,
                seed=seed,
                options=dict(kwargs),
                timeout_s=float(config.get("video_gen.timeout", 600.0)),
            )
            check_video_request(
                self.name, self.capabilities(), image=bool(request.image_url),
                references=len(request.references),
                duration=duration, aspect_ratio=request.aspect_ratio, resolution=request.resolution,
                negative_prompt=bool(request.negative_prompt), audio=request.audio,
                seed=request.seed is not None, last_frame=bool(kwargs.get("last_frame_url")),
            )  # fmt: skip
            return self._generate(request)
        except HermesError as exc:
            return video_error_response_for(
                exc, provider=self.name, model=chosen, prompt=prompt, aspect_ratio=aspect
            )

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        """The provider's own work for the template ``generate``: raise ``HermesError`` subclasses."""
        raise NotImplementedError(f"{type(self).__name__} must define _generate() or generate()")

    # -- helpers for bundled providers (the key, base URL, client and JSON answer: ``MediaProvider``) --
    def job(
        self, what: str, request: VideoRequest, *, backoff: Backoff = Backoff(1.0, 1.5, 10.0)
    ) -> PolledJob:
        """The deadline of one generation (``video_gen.timeout``), created just before the submit."""
        return PolledJob(
            self.name, what, timeout_s=request.timeout_s, setting="video_gen.timeout", backoff=backoff
        )

    def answer(self, request: VideoRequest, video: str | Path, **extra: Any) -> dict[str, Any]:
        """Hermes's success envelope for ``request``; ``extra`` keys never overwrite the core ones."""
        return success_response(
            video=str(video), model=request.model, prompt=request.prompt, modality=request.modality,
            aspect_ratio=request.aspect_ratio, duration=request.duration or 0, provider=self.name,
            extra={"resolution": request.resolution, **extra},
        )  # fmt: skip

    def estimate_usd(self, duration: int | None, model: str | None = None) -> float | None:
        """What one video of ``duration`` seconds costs, from ``price_per_second`` (None: unknown)."""
        seconds = duration or self.default_duration or self.min_duration
        return None if self.price_per_second is None else round(self.price_per_second * seconds, 6)

    def no_video(self, message: str) -> ProviderError:
        return ProviderError(message, provider=self.name, details={"error_type": "empty_response"})


# --------------------------------------------------------------------------- OpenAI-compatible


_TERMINAL_OK = ("completed", "succeeded")
_TERMINAL_FAILED = ("failed", "error", "cancelled", "canceled")
_POLICY_CODES = ("moderation_blocked", "content_policy_violation", "content_filter")


class OpenAICompatibleVideoGenProvider(VideoGenProvider):
    """``POST {base}/videos`` → ``GET /videos/{id}`` until final (hard deadline; ``DELETE`` at it) →
    the video from ``data[].url`` or ``GET /videos/{id}/content``, kept as a file.

    A backend declares its identity, ``key_env``, ``default_base_url`` and models; ``_body`` shapes
    the create request (Hermes's shape: ``seconds``, ``size``, and ``image_url``/``aspect_ratio``/
    ``negative_prompt``/``seed`` as extra fields).
    """

    key_env: KeyEnv = "OPENAI_API_KEY"
    default_base_url = "https://api.openai.com/v1"
    modalities = ("text", "image")
    supports_negative_prompt = True
    vendor = ""  # how errors name the vendor (display_name when empty)

    def _body(self, request: VideoRequest) -> dict[str, Any]:
        body: dict[str, Any] = {"model": request.model, "prompt": request.prompt}
        if request.duration:
            body["seconds"] = str(request.duration)
        if request.resolution:
            body["size"] = request.resolution
        extra = {"negative_prompt": request.negative_prompt, "aspect_ratio": request.aspect_ratio,
                 "image_url": request.image_url, "seed": request.seed}  # fmt: skip
        body.update({k: v for k, v in extra.items() if v is not None})
        return body

    def _error_for(self, response: httpx.Response) -> HermesError | None:
        body = json_or_none(response)
        error = body.get("error") if isinstance(body, dict) else None
        message = str(
            error.get("message") if isinstance(error, dict) else error or f"HTTP {response.status_code}"
        )
        return vendor_error(
            response, message, provider=self.name, vendor=self.vendor or self.display_name,
            key_env=self.key_env,
            refused=(400, 404, 422),
        )  # fmt: skip

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key()}"}

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        if not request.model:
            raise InvalidInputError(
                f"no {self.name} video model is chosen; set video_gen.{self.name}.model or pass model=",
                provider=self.name,
            )
        headers, base = self._headers(), self.base_url()
        job = self.job(f"{self.display_name} video job", request)
        created = self.json_answer(
            self.send("POST", f"{base}/videos", json=self._body(request), headers=headers,
                      timeout=min(60.0, request.timeout_s), error_map=self._error_for)
        )  # fmt: skip
        video_id = str(created.get("id") or "")
        if not video_id:
            raise ProviderError(
                f"{self.display_name} answered the create without a job id", provider=self.name
            )

        def poll(*, timeout: float, deadline: float) -> dict[str, Any]:
            answer = self.send("GET", f"{base}/videos/{video_id}", headers=headers, timeout=timeout,
                               deadline=deadline, error_map=self._error_for)  # fmt: skip
            return self.json_answer(answer)

        def cancel() -> None:
            self.send("DELETE", f"{base}/videos/{video_id}", headers=headers, timeout=10.0, retry=False,
                      error_map=self._error_for)  # fmt: skip

        def outcome(answer: dict[str, Any]) -> dict[str, Any] | None:
            status = str(answer.get("status") or "").lower()
            if status in _TERMINAL_OK:
                return answer
            if status in _TERMINAL_FAILED:
                error = answer.get("error")
                detail = error.get("message") if isinstance(error, dict) else error
                code = str(error.get("code") or "") if isinstance(error, dict) else ""
                if code in _POLICY_CODES:
                    raise ContentPolicyError(
                        f"{self.display_name} refused the video: {detail or code}", provider=self.name
                    )
                raise ProviderError(
                    f"{self.display_name} video job {video_id} ended {status}: {detail or 'no reason given'}",
                    provider=self.name, details={"error_type": "job_failed"},
                )  # fmt: skip
            return None

        final = job.wait(poll, outcome, cancel=cancel, first=created)
        path = self._download(final, video_id, base, headers, max(10.0, job.left()))
        seconds = _int_or_none(final.get("seconds")) or request.duration or 0
        usd = self.estimate_usd(seconds or None, request.model) if seconds else None
        cost = None if usd is None else {"usd": usd, "estimated": True}
        return self.answer(
            request, path, job_id=video_id, seconds=seconds or None, size=final.get("size"), cost=cost
        )

    def _download(
        self, final: dict[str, Any], video_id: str, base: str, headers: dict[str, str], left: float
    ) -> Path:
        for item in final.get("data") or []:
            url = item.get("url") if isinstance(item, dict) else None
            if url:
                return save_url_video(str(url), prefix=self.name, timeout=min(left, _DOWNLOAD_TIMEOUT_S))
        response = self.send("GET", f"{base}/videos/{video_id}/content", headers=headers,
                             timeout=min(left, _DOWNLOAD_TIMEOUT_S), error_map=self._error_for)  # fmt: skip
        if len(response.content) > MAX_VIDEO_BYTES:
            raise ProviderError(
                f"{self.display_name} video is larger than the 200 MiB cap; refused", provider=self.name
            )
        try:
            return save_bytes_video(response.content, prefix=self.name)
        except ParseError as exc:
            raise self.no_video(
                f"{self.display_name} video job {video_id} returned no usable video: {exc}"
            ) from exc


def _int_or_none(value: Any) -> int | None:
    try:
        return int(str(value).strip()) if value is not None and str(value).strip() else None
    except ValueError:
        return None
