"""The video SDK: ``video`` / ``avideo`` (``video_many`` is in ``hermes_nb.batch``).

Which provider answers is decided by ``hermes_nb.videos.selection``. Before any request the call is
checked against what the provider declares (``capabilities()``: image-to-video, durations, aspect
ratios, resolutions, audio, negative prompt) and against ``video_gen.budget_usd``; an identical
earlier request is served from the store (``new=True`` generates again). Every video ends as a
sniffed file in ``$HERMES_HOME/cache/videos`` — a URL is downloaded at once (they expire) — with its
provenance in the store. Image-to-video takes a path, an http(s) URL, a data URI or an
``ImageResult`` (anything with a ``path``).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from hermes_nb import config
from hermes_nb._version import __version__
from hermes_nb.errors import HermesError, InvalidInputError, ProviderError
from hermes_nb.plugins.contracts import check_video_envelope
from hermes_nb.plugins.deadline import call_with_deadline, deadline_for
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.plugins.video_provider import (
    MAX_VIDEO_BYTES,
    VideoGenProvider,
    check_video_request,
    save_url_video,
    video_error_from_envelope,
)
from hermes_nb.store import ledger
from hermes_nb.store.replay import call_mode, replay_path
from hermes_nb.store.video_files import probe, sha256_file, videos_cache_dir, write_provenance, write_video
from hermes_nb.videos.caching import estimate_usd, lookup, remember, replay_wanted, stored, video_request
from hermes_nb.videos.results import VideoResult, poster_path
from hermes_nb.videos.selection import capabilities_of, resolve_video_provider

__all__ = ["video", "avideo", "image_source", "plan_video", "estimate_many"]


# --------------------------------------------------------------------------- inputs


def image_source(image: Any) -> tuple[str, str] | None:
    """``(what the provider gets, what the cache key holds)`` for the image to animate, or None.

    A local file becomes a verified data URI (keyed by its bytes' digest); an http(s) URL is passed
    on as it is; an ``ImageResult`` (any object with a ``path``) is its file.
    """
    if image is None:
        return None
    if not isinstance(image, (str, Path)):
        path = getattr(image, "path", None)  # an ImageResult, without importing the image package
        if not isinstance(path, (str, Path)):
            raise InvalidInputError(
                "image= takes a path, an http(s) URL, a data: URI or an ImageResult, "
                f"got {type(image).__name__}"
            )
        image = path
    text = str(image).strip()
    if not text:
        raise InvalidInputError("image= is empty; give a path, an http(s) URL or an ImageResult")
    if text.startswith(("http://", "https://")):
        return text, text
    from hermes_nb.plugins.image_download import read_image_source

    source = read_image_source(text)
    return source.data_uri(), "sha256:" + hashlib.sha256(source.data).hexdigest()[:16]


def _check_prompt(prompt: Any) -> str:
    if not isinstance(prompt, str) or not prompt.strip():
        raise InvalidInputError("prompt is required for video generation (a non-empty string)")
    return prompt.strip()


def _check_types(duration: Any, seed: Any, audio: Any) -> None:
    if duration is not None and (isinstance(duration, bool) or not isinstance(duration, int) or duration < 1):
        raise InvalidInputError(f"duration must be a whole number of seconds (≥ 1), got {duration!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise InvalidInputError(f"seed must be an integer, got {seed!r}")
    if audio is not None and not isinstance(audio, bool):
        raise InvalidInputError(f"audio must be True or False, got {audio!r}")


# --------------------------------------------------------------------------- keeping the file


def _materialise(video: Any, *, prefix: str, timeout: float) -> Path:
    """The envelope's ``video`` (URL or absolute path) as a file in the videos cache."""
    text = str(video).strip()
    if text.startswith(("http://", "https://")):
        return save_url_video(text, prefix=prefix, timeout=timeout)
    source = Path(text).expanduser()
    if not source.is_absolute() or not source.is_file():
        raise ProviderError(
            f"the provider returned {text!r}, which is neither a URL nor an existing file", provider=prefix
        )
    if source.stat().st_size > MAX_VIDEO_BYTES:  # checked before reading: a provider may point anywhere
        raise ProviderError(
            f"the provider's video {source.name} is larger than 200 MiB; refused", provider=prefix
        )
    if source.resolve().parent == videos_cache_dir().resolve():
        with source.open("rb") as handle:
            from hermes_nb.store.video_files import sniff_video

            try:
                sniff_video(handle.read(64))
            except HermesError:
                source.unlink(missing_ok=True)  # a provider wrote something that is not a video: keep nothing
                raise
        return source.resolve()
    return write_video(source.read_bytes(), prefix=prefix)


def _keep_thumbnail(envelope: dict[str, Any], video: Path) -> None:
    """The provider's own thumbnail (a local JPEG/PNG path in ``thumbnail``) as the poster, if it gave one."""
    thumb = envelope.get("thumbnail")
    if not isinstance(thumb, str) or not Path(thumb).is_file() or Path(thumb).stat().st_size > 512 * 1024:
        return
    data = Path(thumb).read_bytes()
    if data[:3] == b"\xff\xd8\xff":
        poster_path(video).write_bytes(data)


# --------------------------------------------------------------------------- the pipeline


def plan_video(
    provider: VideoGenProvider, *, image: bool, references: int, duration: int | None,
    aspect_ratio: str | None, resolution: str | None, negative_prompt: str | None, audio: bool | None,
    seed: int | None, options: dict[str, Any],
) -> None:  # fmt: skip
    """Refuse, before any request, what the provider declares it cannot take."""
    check_video_request(
        normalize_name(provider.name), capabilities_of(provider), image=image, references=references,
        duration=duration, aspect_ratio=aspect_ratio, resolution=resolution,
        negative_prompt=bool(negative_prompt), audio=audio, seed=seed is not None,
        last_frame=bool(options.get("last_frame_url")),
    )  # fmt: skip


def file_provenance(
    prompt: str, provider: str, model: str, seed: int | None, cost: dict[str, Any] | None
) -> dict[str, str]:
    """What a generated file carries in its own metadata: prompt, model, seed, provider, cost, maker."""
    fields = {"prompt": prompt, "provider": provider, "model": model, "generator": f"hermes_nb {__version__}"}
    if seed is not None:
        fields["seed"] = str(seed)
    if cost and isinstance(cost.get("usd"), (int, float)):
        fields["cost_usd"] = f"{float(cost['usd']):.4f}" + (" (estimated)" if cost.get("estimated") else "")
    return {key: value for key, value in fields.items() if value}


def _generate(
    provider: VideoGenProvider, request: dict[str, Any], *, image_url: str | None, options: dict[str, Any]
) -> VideoResult:
    name = normalize_name(provider.name)
    kwargs: dict[str, Any] = dict(options)
    for key in ("model", "duration", "aspect_ratio", "resolution", "negative_prompt", "audio", "seed"):
        if request[key] is not None:
            kwargs[key] = request[key]
    if image_url:
        kwargs["image_url"] = image_url
    started = time.perf_counter()
    try:
        envelope = call_with_deadline(
            deadline_for("video"), name, provider.generate, request["prompt"], **kwargs
        )
    except HermesError:
        raise
    except Exception as exc:
        raise ProviderError(
            f"video provider {name!r} raised {type(exc).__name__}: {exc}", provider=name
        ) from exc
    check_video_envelope(envelope, name)
    if not envelope["success"]:
        raise video_error_from_envelope({**envelope, "provider": envelope.get("provider") or name})
    timeout = float(config.get("video_gen.timeout", 600.0))
    path = _materialise(envelope["video"], prefix=name, timeout=timeout)
    _keep_thumbnail(envelope, path)
    cost = envelope.get("cost") if isinstance(envelope.get("cost"), dict) else None
    if cost is None:  # the provider's listed price, marked as an estimate
        usd = estimate_usd(
            provider, int(envelope.get("duration") or 0) or request["duration"], request["model"]
        )
        cost = None if usd is None else {"usd": usd, "estimated": True}
    model = str(envelope.get("model") or request["model"] or "")
    seed = envelope["seed"] if isinstance(envelope.get("seed"), int) else request["seed"]
    # Into the file itself where the container allows (before its hash is taken); always into the store.
    write_provenance(path, file_provenance(request["prompt"], name, model, seed, cost))
    info = probe(path)
    return VideoResult(
        path=path,
        prompt=request["prompt"],
        provider=name,
        model=model,
        aspect_ratio=str(envelope.get("aspect_ratio") or request["aspect_ratio"] or ""),
        resolution=str(envelope.get("resolution") or request["resolution"] or ""),
        sha256=sha256_file(path),
        format=info.format.extension,
        length_s=info.duration_s,
        width=info.width,
        height=info.height,
        duration=int(envelope.get("duration") or 0) or request["duration"],
        seed=seed,
        negative_prompt=request["negative_prompt"],
        audio=request["audio"],
        image=request["image"],
        cost=cost,
        duration_s=round(time.perf_counter() - started, 6),
        envelope={**envelope, "video": str(path)},
        parameters=request["parameters"],
        created=datetime.now(timezone.utc).isoformat(timespec="seconds"),
    )


@config.consistent()  # one look at config.yaml per call
def video(
    prompt: str,
    *,
    image: Any = None,
    duration: int | None = None,
    aspect_ratio: str | None = None,
    resolution: str | None = None,
    seed: int | None = None,
    negative_prompt: str | None = None,
    audio: bool | None = None,
    model: str | None = None,
    backend: str | None = None,
    new: bool = False,
    no_cache: bool = False,
    **options: Any,
) -> VideoResult:
    """Generate one video for ``prompt`` (text-to-video), or animate ``image`` (image-to-video).

    ``image`` is a path, an http(s) URL, a data URI or an ``ImageResult``; unset options are the
    provider's defaults; other keyword ``options`` go to the provider unchanged. An identical
    earlier request is served from the store (``cached=True``, no provider call, no cost);
    ``new=True`` generates again, ``no_cache=True`` neither reads nor records.
    """
    text = _check_prompt(prompt)
    _check_types(duration, seed, audio)
    mode = call_mode(no_cache=no_cache, refresh=new)
    source = image_source(image)
    image_url, image_key = source if source else (None, None)
    fields: dict[str, Any] = dict(
        image=image_key, duration=duration, aspect_ratio=aspect_ratio, resolution=resolution, seed=seed,
        negative_prompt=negative_prompt or None, audio=audio, options=options,
    )  # fmt: skip
    if not mode.calls and replay_path() is not None:  # replay needs no provider and no key
        wanted = video_request(None, model, text, **fields)
        replayed = lookup(mode, wanted, replay_wanted(backend, model, wanted))
        assert replayed is not None  # replay raises CACHE_MISS rather than answer nothing
        return replayed
    provider = resolve_video_provider(backend)
    name = normalize_name(provider.name)
    chosen = provider.resolve_model(model)
    request = video_request(name, chosen, text, **fields)
    cached = lookup(mode, request)
    if cached is not None:
        return cached
    plan_video(provider, image=image_url is not None, references=0, duration=duration,
               aspect_ratio=aspect_ratio, resolution=resolution, negative_prompt=negative_prompt, audio=audio,
               seed=seed, options=options)  # fmt: skip
    if ledger.budget(ledger.VIDEO_BUDGET) is not None:
        usd = estimate_usd(provider, duration, chosen)
        unknown = ", price unknown" if usd is None else ""
        ledger.check_budget(usd or 0.0, f"generating a video with {name}{unknown}", ledger.VIDEO_BUDGET)
    result = _generate(provider, request, image_url=image_url, options=options)
    remember(result, request, uuid.uuid4().hex[:12], mode)
    return result


def estimate_many(
    prompts: list[Any], *, image: Any = None, duration: int | None = None, aspect_ratio: str | None = None,
    resolution: str | None = None, seed: int | None = None, negative_prompt: str | None = None,
    audio: bool | None = None, model: str | None = None, backend: str | None = None, all_fresh: bool = False,
    **options: Any,
) -> tuple[int, float | None]:  # fmt: skip
    """``(videos to generate, estimated USD)``: stored answers cost nothing (unless ``all_fresh``)."""
    if not call_mode().calls:
        return 0, 0.0  # replay never generates (and needs no provider)
    provider = resolve_video_provider(backend)
    name, chosen = normalize_name(provider.name), provider.resolve_model(model)
    source = image_source(image)
    fresh = 0
    for prompt in prompts:
        request = video_request(
            name, chosen, str(prompt).strip(), image=source[1] if source else None, duration=duration,
            aspect_ratio=aspect_ratio, resolution=resolution, seed=seed,
            negative_prompt=negative_prompt or None, audio=audio, options=options,
        )  # fmt: skip
        if all_fresh or not stored(request):
            fresh += 1
    price = estimate_usd(provider, duration, chosen)
    return fresh, None if price is None else round(fresh * price, 6)


async def avideo(prompt: str, **kwargs: Any) -> VideoResult:
    """Async twin of ``video`` (the blocking work runs in a worker thread)."""
    return await asyncio.to_thread(video, prompt, **kwargs)
