"""The one error when no key is set up and the keyless providers could not reach the web.

Without keys and without network, the keyless ring fails with whatever its last provider said (a
different DNS error, a different vendor host on every run). Auto selection raises this instead:
the same words every time — for ``hn.search`` and every magic alike, so saved notebooks do not
change — naming the three ways forward, each only with providers that can serve the capability:
a key, the emulator, a self-hosted server. What each provider said stays on
``details["attempts"]`` (and ``.attempts`` of the result types).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from hermes_nb.errors import UNREACHABLE_CODES, HermesError, NetworkError
from hermes_nb.plugins.registry import normalize_name, web_providers
from hermes_nb.plugins.setup_hints import missing_env
from hermes_nb.redaction import is_secret_name
from hermes_nb.web.results import Attempt

__all__ = ["SELF_HOSTED", "keyless_outage", "outage_message"]

#: Providers that run on your own server, and the setting that points at it (first ones shown first).
SELF_HOSTED = {
    "searxng": ("SearXNG", "web.searxng.base_url"),
    "firecrawl": ("Firecrawl", "web.firecrawl.base_url"),
    "openserp": ("OpenSERP", "web.openserp.base_url"),
}
_KEYS_SHOWN = 3
_SERVERS_SHOWN = 2
#: Failures that still fit "could not get through": a keyless mode that needs a missing dependency.
_ALSO_OFFLINE = ("PROVIDER_NOT_CONFIGURED",)
#: What only a missing connection gives: at least one of these, or a slow or rate-limited provider
#: (TIMEOUT, 5xx, 429 alone) keeps its own, more precise error.
_NO_CONNECTION = ("NETWORK_ERROR", "CONTENT_FETCH_FAILED")


def _supports(provider: Any, capability: str) -> bool:
    try:
        return bool(getattr(provider, f"supports_{capability}")())
    except Exception:  # a broken provider is simply not suggested
        return False


def _declared_tier(provider: Any) -> str:
    try:
        tier = provider.tier
    except Exception:  # a tier property that fails: not a keyed provider to suggest
        return ""
    return tier if isinstance(tier, str) else ""


def _key_names(capability: str) -> list[str]:
    """Secret names of the keyed (commercial) providers that can serve ``capability``."""
    names: list[str] = []
    for provider in web_providers.list():
        if _declared_tier(provider) == "commercial" and _supports(provider, capability):
            owner = web_providers.owner(normalize_name(provider.name))
            names += [n for n in missing_env(provider, owner) if is_secret_name(n)]
    names = sorted(dict.fromkeys(names))
    return names[:_KEYS_SHOWN] + ["…"] if len(names) > _KEYS_SHOWN else names


def _servers(capability: str) -> list[str]:
    """``hn.config.set(...)`` calls for the self-hosted providers that can serve ``capability``."""
    found = []
    for name, (label, setting) in SELF_HOSTED.items():
        provider = web_providers.get(name)
        if provider is not None and _supports(provider, capability):
            found.append(f"{label}: hn.config.set('{setting}', URL)")
    return found[:_SERVERS_SHOWN]


def outage_message(capability: str) -> str:
    """The stable message for ``capability`` (search, extract, crawl)."""
    keys = _key_names(capability)
    ways = [
        f"set a key ({', '.join(keys)}) with hn.config.set_key(NAME, getpass())"
        if keys
        else "set a provider's API key with hn.config.set_key(NAME, getpass())",
        "work offline against the emulator (hermes_nb.testing.use_emulator)",
    ]
    servers = _servers(capability)
    if servers:
        ways.append(f"or run a self-hosted server ({'; '.join(servers)})")
    else:
        ways[-1] = "or " + ways[-1]
    return (
        f"web {capability} failed: no provider with a key is set up and the keyless ones could not "
        f"reach the web. Ways forward: {'; '.join(ways)}."
    )


def keyless_outage(
    capability: str, attempts: Sequence[Attempt], keyless: Sequence[bool], last: HermesError
) -> HermesError | None:
    """The stable error for a failed auto walk, or None when it was not a keyless outage.

    ``keyless[i]`` says whether the provider of ``attempts[i]`` served keyless. A keyless outage:
    every provider tried was keyless, each failed for want of a way through (network, timeout,
    5xx, a page that could not be fetched, a missing dependency), and at least one could not
    connect at all. Slow, failing or rate-limited providers alone keep their own error.
    """
    failures = [a for a in attempts if a.code is not None]
    if not failures or len(failures) != len(attempts) or not all(keyless):
        return None
    codes = {a.code for a in failures}
    if not all(c in UNREACHABLE_CODES or c in _ALSO_OFFLINE for c in codes):
        return None
    if not codes & set(_NO_CONNECTION):
        return None
    return NetworkError(
        outage_message(capability),
        details={"attempts": list(attempts), "last_error": last},
    )
