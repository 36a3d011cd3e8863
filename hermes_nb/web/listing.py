"""The web provider listing behind ``%hermes providers``: capabilities, availability and why not, tier."""

from __future__ import annotations

from dataclasses import dataclass

from hermes_nb.errors import HermesError
from hermes_nb.plugins.registry import normalize_name, web_providers
from hermes_nb.plugins.setup_hints import setup_hint
from hermes_nb.web.selection import CAPABILITIES, is_available, resolve, supports, tier_of

__all__ = ["ProviderRow", "describe"]


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
            )
        )
    return rows
