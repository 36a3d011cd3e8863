"""The one stable line a magic shows when only keyless providers were tried and none reached the web.

Without keys and without network, the keyless providers fail with whatever the last engine said
(a different DNS error on every run). The magic shows this instead — the same words every time,
so saved notebooks do not change — and the exception keeps the full detail for whoever wants it.
"""

from __future__ import annotations

from typing import Any

from hermes_nb.errors import UNREACHABLE_CODES, HermesError
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.setup_hints import missing_env
from hermes_nb.web import selection

__all__ = ["offline_line"]

_KEYS_SHOWN = 3


def _keyless_only(exc: HermesError) -> bool:
    attempts: list[Any] = list(exc.details.get("attempts") or [])
    names = [getattr(attempt, "provider", None) for attempt in attempts]
    names = [n for n in names if n] or [exc.provider]
    for name in names:
        provider = web_providers.get(name) if name else None
        if provider is None or selection.tier_of(provider) != "keyless":
            return False
    return True


def _key_names(capability: str) -> list[str]:
    names: list[str] = []
    for provider in web_providers.list():
        if selection.tier_of(provider) == "commercial" and selection.supports(provider, capability):
            names += missing_env(provider, web_providers.owner(str(provider.name)))
    return sorted(dict.fromkeys(names))[:_KEYS_SHOWN]


def offline_line(exc: HermesError, capability: str) -> str | None:
    """The stable one-liner for ``exc``, or None when ``exc`` is not a keyless-provider outage."""
    if exc.code not in UNREACHABLE_CODES or not _keyless_only(exc):
        return None
    keys = ", ".join(_key_names(capability)) or "a provider's API key"
    return (
        f"{exc.code}: web {capability} failed: no provider with a key is set up and the keyless ones "
        f"could not reach the web. Ways forward: set a key ({keys}, …) with "
        "hn.config.set_key(NAME, getpass()); work offline against the emulator "
        "(hermes_nb.testing.use_emulator); or use a self-hosted SearXNG with "
        "hn.config.set('web.searxng.base_url', URL). (Full detail: the exception's .details.)"
    )
