"""The one image-provider resolver, shared by the SDK, the ``image_generate`` tool and the magics.

Rule (Hermes's registry rule; fixes Hermes #12, where the tool ignored it):

1. an explicit choice — the ``backend`` argument, else ``image_gen.provider`` — is the only
   provider used; an unknown name is ``ProviderNotFoundError`` listing the registered ones, an
   unavailable one is ``ProviderNotConfiguredError`` naming the missing key or dependency;
2. otherwise the single available provider (if exactly one key is set, that provider *is* the
   single available one);
3. otherwise an error listing the available providers and how to choose one. A paid backend is
   never picked merely because its key happens to be set next to another.
"""

from __future__ import annotations

import logging
from typing import Any

from hermes_nb import config
from hermes_nb.errors import HermesError, ProviderNotConfiguredError, ProviderNotFoundError
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.registry import image_providers, normalize_name
from hermes_nb.plugins.setup_hints import missing_env, setup_hint
from hermes_nb.redaction import is_secret_name

__all__ = ["resolve_image_provider", "describe_image_providers", "resolve_model", "takes_seed"]

log = logging.getLogger(__name__)

_KEYS_SHOWN = 3
_CHOOSE_HINT = 'choose one with hn.config.set("image_gen.provider", "<name>") or %hermes use image <name>'


def _setup_hint(provider: ImageGenProvider) -> str:
    return setup_hint(provider, image_providers.owner(normalize_name(provider.name)))


def _explicit_choice(backend: str | None) -> tuple[str, str]:
    if backend is not None and str(backend).strip():
        return normalize_name(backend), "argument"
    configured = config.get("image_gen.provider")
    if configured:
        return normalize_name(configured), "image_gen.provider"
    return "", ""


def resolve_image_provider(backend: str | None = None) -> ImageGenProvider:
    """The image provider a call would use (see the module docstring for the rule)."""
    name, source = _explicit_choice(backend)
    if name:
        provider = image_providers.get(name)
        if provider is None:
            registered = ", ".join(image_providers.names()) or "none"
            raise ProviderNotFoundError(
                f"no image provider named {name!r} ({source}); registered: {registered}",
                provider=name,
            )
        if not image_providers.available(provider):
            raise ProviderNotConfiguredError(
                f"image provider {name!r} ({source}) is not available: {_setup_hint(provider)}",
                provider=name,
            )
        return provider
    ready = [p for p in image_providers.list() if image_providers.available(p)]
    available = [p for p in ready if p.auto_select]
    if len(available) == 1:
        return available[0]
    if not available:
        raise _none_available()
    names = ", ".join(normalize_name(p.name) for p in available)
    raise ProviderNotConfiguredError(
        f"several image providers are available ({names}) and none is chosen; {_CHOOSE_HINT}"
    )


def _none_available() -> ProviderNotConfiguredError:
    """One short line: a few keys, the emulator, where each provider's needs are listed.

    Every provider's own hint stays on ``details["needs"]`` (name → hint).
    """
    providers = image_providers.list()
    owners = {normalize_name(p.name): image_providers.owner(normalize_name(p.name)) for p in providers}
    keys = sorted(
        {n for p in providers for n in missing_env(p, owners[normalize_name(p.name)]) if is_secret_name(n)}
    )
    shown = ", ".join(keys[:_KEYS_SHOWN] + (["…"] if len(keys) > _KEYS_SHOWN else []))
    key = f"set a key ({shown})" if shown else "set a provider's key"
    by_name = [p.name for p in providers if not p.auto_select and image_providers.available(p)]
    named = "".join(f"; {name}: set up, but chosen only by name (backend='{name}')" for name in by_name)
    return ProviderNotConfiguredError(
        f"no image provider is available: {key} with hn.config.set_key(NAME, getpass()), or work offline "
        "against the emulator (hermes_nb.testing.use_emulator); %hermes providers (or hn.providers()) "
        f"lists what each one needs{named}",
        details={"needs": {normalize_name(p.name): _setup_hint(p) for p in providers}},
    )


def describe_image_providers() -> list[dict[str, Any]]:
    """One row per registered provider for ``%hermes providers`` (no secret values)."""
    try:
        active: str | None = normalize_name(resolve_image_provider().name)
    except HermesError:
        active = None
    rows = []
    for provider in image_providers.list():
        name = normalize_name(provider.name)
        try:
            models = [str(m.get("id")) for m in provider.list_models() if isinstance(m, dict)]
            schema = provider.get_setup_schema() or {}
        except Exception:
            models, schema = [], {}
        available = image_providers.available(provider)
        rows.append(
            {
                "name": name,
                "display_name": provider.display_name,
                "available": available,
                "active": name == active,
                "default_model": provider.default_model(),
                "models": models,
                "badge": schema.get("badge", ""),
                "setup": "" if available else _setup_hint(provider),
                "owner": image_providers.owner(name),
            }
        )
    return rows


def resolve_model(provider: ImageGenProvider, model: str | None = None) -> str | None:
    """Argument → the provider's own rule (``resolve_model``) or ``image_gen.<name>.model`` →
    ``image_gen.model`` → the provider's default."""
    if model:
        return str(model)
    chosen = provider.resolve_model(None)  # ImageGenProvider's rule unless the provider has its own
    return str(chosen) if chosen else None


def takes_seed(provider: ImageGenProvider) -> bool:
    """Providers say ``capabilities()["seed"] = False`` when they ignore it; unknown means yes."""
    try:
        return bool((provider.capabilities() or {}).get("seed", True))
    except Exception:
        return True
