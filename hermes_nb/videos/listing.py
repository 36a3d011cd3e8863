"""Video provider rows for ``hn.providers("video_gen")``: modalities, options, models, price, availability."""

from __future__ import annotations

from dataclasses import dataclass

from hermes_nb.plugins.registry import video_providers
from hermes_nb.videos.selection import capabilities_of, describe_video_providers

__all__ = ["VideoProviderRow", "describe"]


@dataclass(frozen=True)
class VideoProviderRow:
    """One video provider as ``hn.providers("video_gen")`` lists it."""

    name: str
    display_name: str
    capabilities: tuple[str, ...]  # "text-to-video", plus "image-to-video" when it animates images
    options: tuple[str, ...]  # durations, aspect ratios, resolutions, audio, negative prompt, seed
    tier: str
    keyless: bool
    available: bool
    why_not: str
    docs_url: str
    models: tuple[str, ...]
    default_model: str | None
    active: bool  # the provider an ``hn.video`` call without backend= would use
    plugin: str
    price_note: str = ""


def describe() -> list[VideoProviderRow]:
    """One row per registered video provider (no secret values)."""
    rows = []
    for info in describe_video_providers():
        provider = video_providers.get(info["name"])
        if provider is None:
            continue
        try:
            env_vars = [
                v for v in (provider.get_setup_schema() or {}).get("env_vars") or [] if isinstance(v, dict)
            ]
        except Exception:  # a plugin's schema must not break the listing
            env_vars = []
        keyless = not any(v.get("key") for v in env_vars)
        caps = capabilities_of(provider)
        modes = (
            ("text-to-video", "image-to-video")
            if "image" in (caps.get("modalities") or [])
            else ("text-to-video",)
        )
        rows.append(
            VideoProviderRow(
                name=info["name"],
                display_name=str(info["display_name"]),
                capabilities=modes,
                options=_options(caps),
                tier=str(provider.tier or ("local" if keyless else "commercial")),
                keyless=keyless,
                available=bool(info["available"]),
                why_not=str(info["setup"]),
                docs_url=str(provider.docs_url or ""),
                models=tuple(info["models"]),
                default_model=info["default_model"],
                active=bool(info["active"]),
                plugin=str(info["owner"]),
                price_note=str(provider.price_note or ""),
            )
        )
    return rows


def _options(caps: dict[str, object]) -> tuple[str, ...]:
    out = []
    durations = caps.get("durations")
    if isinstance(durations, (list, tuple)) and durations:
        out.append("duration=" + "|".join(str(d) for d in durations))
    elif caps.get("max_duration"):
        out.append(f"duration={caps.get('min_duration') or 1}-{caps.get('max_duration')}")
    for key, label in (("aspect_ratios", "aspect_ratio"), ("resolutions", "resolution")):
        values = caps.get(key)
        if isinstance(values, (list, tuple)) and values:
            out.append(f"{label}=" + "|".join(str(v) for v in values))
    if caps.get("supports_audio"):
        out.append("audio")
    if caps.get("supports_negative_prompt"):
        out.append("negative_prompt")
    if caps.get("seed") is not False:
        out.append("seed")
    return tuple(out)
