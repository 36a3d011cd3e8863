"""The one video-provider resolver, shared by the SDK, the magics and the listings.

The image rule (``hermes_nb.images.selection``), for ``video_gen``: an explicit choice — the
``backend`` argument, else ``video_gen.provider`` — is the only provider used (unknown:
``PROVIDER_NOT_FOUND`` listing the registered ones; unavailable: ``PROVIDER_NOT_CONFIGURED``
naming the key); otherwise the single available provider; otherwise an error saying how to choose.
A paid backend is never picked merely because its key is set next to another.
"""

from __future__ import annotations

import logging
from typing import Any

from hermes_nb import config
from hermes_nb.errors import HermesError, ProviderNotConfiguredError, ProviderNotFoundError
from hermes_nb.plugins.registry import normalize_name, video_providers
from hermes_nb.plugins.setup_hints import setup_hint
from hermes_nb.plugins.video_provider import VideoGenProvider

__all__ = ["resolve_video_provider", "describe_video_providers", "capabilities_of"]

log = logging.getLogger(__name__)

_CHOOSE_HINT = 'choose one with hn.config.set("video_gen.provider", "<name>") or video(..., backend="<name>")'


def _hint(provider: VideoGenProvider) -> str:
    return setup_hint(provider, video_providers.owner(normalize_name(provider.name)))


def resolve_video_provider(backend: str | None = None) -> VideoGenProvider:
    """The video provider a call would use (see the module docstring for the rule)."""
    if backend is not None and str(backend).strip():
        name, source = normalize_name(backend), "argument"
    else:
        name, source = normalize_name(config.get("video_gen.provider") or ""), "video_gen.provider"
    if name:
        provider = video_providers.get(name)
        if provider is None:
            registered = ", ".join(video_providers.names()) or "none"
            raise ProviderNotFoundError(
                f"no video provider named {name!r} ({source}); registered: {registered}", provider=name
            )
        if not video_providers.available(provider):
            raise ProviderNotConfiguredError(
                f"video provider {name!r} ({source}) is not available: {_hint(provider)}", provider=name
            )
        return provider
    available = [p for p in video_providers.list() if video_providers.available(p)]
    if len(available) == 1:
        return available[0]
    if not available:
        options = "; ".join(f"{p.name}: {_hint(p)}" for p in video_providers.list()) or "none registered"
        raise ProviderNotConfiguredError(f"no video provider is available ({options}); then {_CHOOSE_HINT}")
    names = ", ".join(normalize_name(p.name) for p in available)
    raise ProviderNotConfiguredError(
        f"several video providers are available ({names}) and none is chosen; {_CHOOSE_HINT}"
    )


def capabilities_of(provider: VideoGenProvider) -> dict[str, Any]:
    """What the provider declares (``{}`` when its ``capabilities()`` fails: nothing is refused then)."""
    try:
        caps = provider.capabilities()
    except Exception as exc:
        log.warning("video provider %r: capabilities() raised %s", provider.name, exc)
        return {}
    return caps if isinstance(caps, dict) else {}


def describe_video_providers() -> list[dict[str, Any]]:
    """One row per registered video provider for ``hn.providers("video_gen")`` (no secret values)."""
    try:
        active: str | None = normalize_name(resolve_video_provider().name)
    except HermesError:
        active = None
    rows = []
    for provider in video_providers.list():
        name = normalize_name(provider.name)
        try:
            models = [str(m.get("id")) for m in provider.list_models() if isinstance(m, dict)]
            schema = provider.get_setup_schema() or {}
            default = provider.default_model()
        except Exception:
            models, schema, default = [], {}, None
        available = video_providers.available(provider)
        caps = capabilities_of(provider)
        rows.append(
            {
                "name": name,
                "display_name": provider.display_name,
                "available": available,
                "active": name == active,
                "default_model": default,
                "models": models,
                "modalities": list(caps.get("modalities") or ["text"]),
                "badge": schema.get("badge", ""),
                "setup": "" if available else _hint(provider),
                "owner": video_providers.owner(name),
            }
        )
    return rows
