"""Web provider rows for ``hn.providers("web")``: capabilities, tier, keyless, availability, why not."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from hermes_nb.errors import HermesError
from hermes_nb.plugins.registry import normalize_name, web_providers
from hermes_nb.plugins.setup_hints import setup_hint
from hermes_nb.plugins.upstream_providers import upstream_only
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web.selection import CAPABILITIES, is_available, resolve, supports, tier_of

__all__ = ["ProviderRow", "describe", "docs_url"]


@dataclass(frozen=True)
class ProviderRow:
    """One line of ``%hermes providers``."""

    name: str
    display_name: str
    capabilities: tuple[str, ...]
    available: bool
    why_not: str
    tier: str
    plugin: str
    selected_for: tuple[str, ...] = ()
    keyless: bool = False  # works without any key (``is_keyless_available()``)
    docs_url: str = ""


def describe() -> list[ProviderRow]:
    """Every web provider with its capabilities, availability (and why not), tier and plugin."""
    first: dict[str, list[str]] = {}
    for capability in CAPABILITIES:
        try:
            first.setdefault(normalize_name(resolve(capability).name), []).append(capability)
        except HermesError:
            pass
    rows = []
    for provider in web_providers.list():
        name = normalize_name(provider.name)
        available = is_available(provider)
        why = ""
        if not available:
            why = setup_hint(provider, web_providers.owner(name))
        try:
            display = str(provider.display_name)
        except Exception:
            display = name
        rows.append(
            ProviderRow(
                name=name,
                display_name=display,
                capabilities=tuple(c for c in CAPABILITIES if supports(provider, c)),
                available=available,
                why_not=why,
                tier=tier_of(provider),
                plugin=web_providers.owner(name),
                selected_for=tuple(first.get(name, ())),
                keyless=_keyless(provider),
                docs_url=docs_url(provider),
            )
        )
    for missing in upstream_only("web", {row.name for row in rows}):  # Hermes's, not runnable here
        rows.append(
            ProviderRow(
                name=missing.name,
                display_name=missing.display_name,
                capabilities=missing.capabilities,
                available=False,
                why_not=missing.reason,
                tier=missing.tier,
                plugin="hermes (not bundled)",
                docs_url=missing.docs_url,
            )
        )
    return rows


def _keyless(provider: Any) -> bool:
    try:
        return bool(provider.is_keyless_available())
    except Exception:  # a plugin's probe must not break the listing
        return False


def docs_url(provider: WebSearchProvider) -> str:
    """The provider's ``docs_url`` attribute, else the first link of its setup schema, else ""."""
    own = provider.docs_url
    if isinstance(own, str) and own:
        return own
    try:
        env_vars = (provider.get_setup_schema() or {}).get("env_vars") or []
    except Exception:
        return ""
    links = [str(v.get("url")) for v in env_vars if isinstance(v, dict) and v.get("url")]
    return links[0] if links else ""
