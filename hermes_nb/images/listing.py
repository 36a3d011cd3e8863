"""Image provider rows for ``hn.providers("image_gen")``: models, options, price, availability and why not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hermes_nb.images.selection import describe_image_providers
from hermes_nb.plugins.image_capabilities import capabilities_of
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.registry import image_providers
from hermes_nb.plugins.upstream_providers import upstream_only

__all__ = ["ImageProviderRow", "describe"]


@dataclass(frozen=True)
class ImageProviderRow:
    """One image provider as ``hn.providers("image_gen")`` lists it."""

    name: str
    display_name: str
    capabilities: tuple[str, ...]  # "generate", plus "edit" when it takes reference images
    tier: str  # "commercial" (needs a key) or "local" (no key: a local pipeline or server)
    keyless: bool
    available: bool
    why_not: str  # the variable or setting to set, empty when available
    docs_url: str
    models: tuple[str, ...]
    default_model: str | None
    active: bool  # the provider an ``hn.imagine`` call without backend= would use
    plugin: str
    options: tuple[str, ...] = ()  # what hn.imagine accepts for it (seed, negative_prompt, size, refs)
    price_note: str = ""  # the default model's price (an estimate) or how it is billed


def describe() -> list[ImageProviderRow]:
    """One row per registered image provider (no secret values)."""
    rows = []
    for info in describe_image_providers():
        provider = image_providers.get(info["name"])
        if provider is None:  # unregistered between the two looks (a reset): nothing to describe
            continue
        schema = _schema(provider)
        env_vars = [v for v in schema.get("env_vars") or [] if isinstance(v, dict)]
        keyless = not any(v.get("key") for v in env_vars)
        links = [str(v["url"]) for v in env_vars if v.get("url")]
        own = provider.docs_url
        rows.append(
            ImageProviderRow(
                name=info["name"],
                display_name=str(info["display_name"]),
                capabilities=_capabilities(provider),
                tier=str(provider.tier or ("local" if keyless else "commercial")),
                keyless=keyless,
                available=bool(info["available"]),
                why_not=str(info["setup"]),
                docs_url=own if isinstance(own, str) and own else (links[0] if links else ""),
                models=tuple(info["models"]),
                default_model=info["default_model"],
                active=bool(info["active"]),
                plugin=str(info["owner"]),
                options=_options(provider),
                price_note=_price_note(provider, info["default_model"], keyless),
            )
        )
    for missing in upstream_only("image_gen", {row.name for row in rows}):  # Hermes's, not runnable here
        rows.append(
            ImageProviderRow(
                name=missing.name,
                display_name=missing.display_name,
                capabilities=missing.capabilities,
                tier=missing.tier,
                keyless=False,
                available=False,
                why_not=missing.reason,
                docs_url=missing.docs_url,
                models=(),
                default_model=None,
                active=False,
                plugin="hermes (not bundled)",
            )
        )
    return rows


def _schema(provider: ImageGenProvider) -> dict[str, Any]:
    try:
        return dict(provider.get_setup_schema() or {})
    except Exception:  # a plugin's schema must not break the listing
        return {}


def _capabilities(provider: ImageGenProvider) -> tuple[str, ...]:
    try:
        declared = provider.capabilities() or {}
    except Exception:
        declared = {}
    references = declared.get("max_reference_images") or 0
    edits = "image" in (declared.get("modalities") or []) or int(references) > 0
    return ("generate", "edit") if edits else ("generate",)


def _options(provider: ImageGenProvider) -> tuple[str, ...]:
    """The ``hn.imagine`` options the provider declares (anything else of these is refused)."""
    caps = capabilities_of(provider)
    out = []
    if caps.seed:
        out.append("seed")
    if caps.negative_prompt:
        out.append("negative_prompt")
    if caps.sizes:
        out.append("size=WxH" if "any" in caps.sizes else "size=" + "|".join(caps.sizes))
    if caps.max_reference_images:
        out.append(f"reference_images (≤{caps.max_reference_images})")
    if caps.upscale:
        out.append("upscale")
    out.extend(c for c in caps.creative_controls if c != "any")  # "any": every option (ComfyUI)
    return tuple(out)


def _price_note(provider: ImageGenProvider, default_model: Any, keyless: bool) -> str:
    note = provider.price_note
    if isinstance(note, str) and note:
        return note
    try:
        models = [m for m in provider.list_models() if isinstance(m, dict)]
    except Exception:  # a plugin's catalogue must not break the listing
        models = []
    chosen = next((m for m in models if m.get("id") == default_model), models[0] if models else {})
    price = str(chosen.get("price") or "")
    if price:
        return f"{chosen.get('id')}: {price}" if len(models) > 1 else price
    return "free (local)" if keyless else ""
