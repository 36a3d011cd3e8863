"""What a video request is, and what it costs: each generation is paid for once, then served from the store.

A request is its provider, model, prompt, the image it animates (by digest), duration, aspect ratio,
resolution, seed, negative prompt, audio and every other option: ``video_request``. How a call uses
the cache is decided by ``hermes_nb.store.replay`` (kind ``video``; its rows live in the store's
``videos`` table): an identical request is answered with the stored video and no provider call;
``new=True`` generates again, ``no_cache=True`` neither reads nor records, replay serves only stored
or recorded videos (a cassette keeps them beside itself). Fresh videos count against
``video_gen.budget_usd``.
"""

from __future__ import annotations

import json
from typing import Any

from hermes_nb import config
from hermes_nb.plugins.registry import normalize_name
from hermes_nb.plugins.video_provider import VideoGenProvider
from hermes_nb.redaction import is_secret_name, redact
from hermes_nb.store import ledger, replay
from hermes_nb.store.database import get_store
from hermes_nb.store.replay import FileRows, Mode, cache_mode
from hermes_nb.videos.results import VideoResult, from_record, to_record

__all__ = ["safe_parameters", "video_request", "replay_wanted", "lookup", "remember", "estimate_usd"]


def _find_videos(request: dict[str, Any]) -> list[dict[str, Any]]:
    return get_store().find_videos(limit=200, provider=request["provider"], prompt=request["prompt"])


def _add_video(row: dict[str, Any]) -> None:
    get_store().record_video(row)


replay.register_file_rows("video", FileRows(_find_videos, _add_video))


def safe_parameters(options: dict[str, Any]) -> dict[str, Any]:
    """Options fit for provenance and cache keys: secret-named ones dropped, values redacted."""
    out: dict[str, Any] = {}
    for key, value in sorted(options.items()):
        if is_secret_name(str(key)):
            continue
        if isinstance(value, (str, int, float, bool)) or value is None:
            out[str(key)] = redact(value) if isinstance(value, str) else value
        else:
            out[str(key)] = redact(json.dumps(value, default=str, sort_keys=True))[:500]
    return out


def video_request(
    provider: str | None,
    model: str | None,
    prompt: str,
    *,
    image: str | None,
    duration: int | None,
    aspect_ratio: str | None,
    resolution: str | None,
    seed: int | None,
    negative_prompt: str | None,
    audio: bool | None,
    options: dict[str, Any],
) -> dict[str, Any]:
    """The normalised request: what makes two generations the same (``n`` is always 1)."""
    return {
        "provider": provider,
        "model": model or None,
        "prompt": prompt,
        "image": image,
        "duration": duration,
        "aspect_ratio": aspect_ratio,
        "resolution": resolution,
        "seed": seed,
        "negative_prompt": negative_prompt,
        "audio": audio,
        "n": 1,
        "parameters": safe_parameters(options),
    }


def replay_wanted(backend: str | None, model: str | None, request: dict[str, Any]) -> dict[str, Any]:
    """The request as replay matches it without resolving a provider (no keys needed)."""
    provider = backend or config.get("video_gen.provider")
    return {
        **request,
        "provider": normalize_name(str(provider)) if provider else None,
        "model": model or config.get("video_gen.model") or None,
    }


def lookup(mode: Mode, request: dict[str, Any], wanted: dict[str, Any] | None = None) -> VideoResult | None:
    """The stored (or recorded) video for ``request``; None when a provider must be asked."""
    found = replay.read_files("video", mode, request, decode=from_record, encode=to_record, wanted=wanted)
    return found[0] if found else None


def stored(request: dict[str, Any]) -> bool:
    """True when the store answers ``request`` in ``read_write`` (a batch estimate counts it free)."""
    return cache_mode() is Mode.READ_WRITE and replay.stored_files("video", request) is not None


def estimate_usd(provider: VideoGenProvider, duration: int | None, model: str | None) -> float | None:
    """What one fresh video costs by the provider's own estimate (None: unknown)."""
    try:
        value = provider.estimate_usd(duration, model)
    except Exception:  # a plugin's estimate is advisory; its failure must not stop a call
        return None
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def remember(result: VideoResult, request: dict[str, Any], run: str, mode: Mode) -> None:
    """Count a fresh video's cost against ``video_gen.budget_usd``, then keep it (store, recorders)."""
    ledger.add_spend(result.cost, ledger.VIDEO_BUDGET)
    replay.keep_file("video", request, to_record(result), mode, run=run, index=0)
