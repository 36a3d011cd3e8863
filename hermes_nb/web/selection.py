"""The one resolver that picks web providers for search, extract and crawl.

Explicit mode: the ``backend=`` argument, else ``web.<capability>_backend``, else ``web.backend``.
Only that provider is used; if it cannot serve, the error names the fix. No silent switch.

Auto mode: every registered provider that supports the capability and is available, ordered by

1. tier: ``commercial`` (keyed APIs) → ``self_hosted`` → ``keyless`` → ``offline`` (``local``);
2. position in ``web.provider_priority`` within a tier (unlisted providers come after listed ones);
3. name.

A provider's tier is its ``tier`` class attribute, else ``keyless`` when ``is_keyless_available()``
and ``commercial`` otherwise. Auto mode moves to the next candidate on a retryable error
(``errors.RETRYABLE_CODES``: rate limits, 5xx, timeouts, network, auth) and stops on any other
(bad input, blocked content).

The keyless tier (Hermes PRs #90313/#90572) is the last resort before ``offline``: zero-config
providers (``direct``, ``ddgs``) and every provider that is not ``is_available()`` (no key, no
configuration) but ``is_keyless_available()`` — Jina Reader, Keenable's public endpoints, and
vendors' keyless modes. Inside it the order is ``web.provider_priority``, then ``KEYLESS_ORDER``,
then name. A provider whose key is set is never run keyless: it keeps its own tier, and a failure
there moves on to the next provider, not to the same vendor's keyless mode. An explicit choice is
only ever that provider (keyless when it has no key and works without one).
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import TypeVar

from hermes_nb import config
from hermes_nb.errors import (
    RETRYABLE_CODES,
    HermesError,
    InvalidInputError,
    ProviderError,
    ProviderNotConfiguredError,
    ProviderNotFoundError,
    TimeoutError_,
)
from hermes_nb.plugins.registry import normalize_name, web_providers
from hermes_nb.plugins.setup_hints import missing_env, setup_hint
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.web.outage import keyless_outage
from hermes_nb.web.results import Attempt

__all__ = [
    "CAPABILITIES",
    "TIERS",
    "KEYLESS_ORDER",
    "configured_backend",
    "keyless_only",
    "tier_of",
    "is_available",
    "supports",
    "candidates",
    "resolve",
    "run",
    "arun",
]

T = TypeVar("T")

CAPABILITIES = ("search", "extract", "crawl")
TIERS = ("commercial", "self_hosted", "keyless", "offline")
#: The keyless ring in auto mode: no third party first, then keyless services, then vendors' trial modes.
KEYLESS_ORDER = ("direct", "ddgs", "jina", "keenable", "exa", "parallel", "tavily", "firecrawl")

_KEYLESS_HINT = {
    "search": "ddgs, keenable, or local for pages already in the store",
    "extract": "direct (no key needed), jina (Jina Reader), keenable",
    "crawl": "direct (no key needed)",
}


def _check_capability(capability: str) -> None:
    if capability not in CAPABILITIES:
        raise InvalidInputError(
            f"unknown web capability {capability!r}; use one of {', '.join(CAPABILITIES)}"
        )


def configured_backend(capability: str, backend: str | None = None) -> tuple[str | None, str]:
    """The explicit provider name (or None for auto) and where it came from."""
    _check_capability(capability)
    if backend is not None and normalize_name(backend) not in ("", "auto"):
        return normalize_name(backend), "backend= argument"
    if backend is not None and normalize_name(backend) == "auto":
        return None, "backend='auto'"
    for key in (f"web.{capability}_backend", "web.backend"):
        value = config.get(key)
        if isinstance(value, str) and normalize_name(value) not in ("", "auto"):
            return normalize_name(value), key
    return None, "auto"


def supports(provider: WebSearchProvider, capability: str) -> bool:
    """``supports_<capability>()``; a probe that raises counts as no."""
    probes = {"search": provider.supports_search, "extract": provider.supports_extract,
              "crawl": provider.supports_crawl}
    try:
        return bool(probes[capability]())
    except Exception:
        return False


def _keyless(provider: WebSearchProvider) -> bool:
    try:
        return bool(provider.is_keyless_available())
    except Exception:
        return False


def _keyed(provider: WebSearchProvider) -> bool:
    try:
        return bool(provider.is_available())
    except Exception:
        return False


def is_available(provider: WebSearchProvider) -> bool:
    """``is_available()`` or keyless-available; any exception counts as unavailable."""
    try:
        if provider.is_available():
            return True
    except Exception:
        return False
    return _keyless(provider)


def keyless_only(provider: WebSearchProvider) -> bool:
    """True when the provider can serve only through its keyless mode (no key, no configuration)."""
    return not _keyed(provider) and _keyless(provider)


def tier_of(provider: WebSearchProvider) -> str:
    """The auto-mode tier: the declared one, or ``keyless`` while only the keyless mode works."""
    if keyless_only(provider):
        return "keyless"
    tier = provider.tier
    if isinstance(tier, str) and tier in TIERS:  # a third-party value may be anything
        return tier
    return "keyless" if _keyless(provider) else "commercial"


def _priority() -> list[str]:
    value = config.get("web.provider_priority")
    if isinstance(value, str):
        value = [part for part in value.replace(",", " ").split()]
    if not isinstance(value, (list, tuple)):
        return []
    return [normalize_name(v) for v in value if normalize_name(v)]


def _sort_key(provider: WebSearchProvider, priority: list[str]) -> tuple[int, int, int, str]:
    name = normalize_name(provider.name)
    rank = priority.index(name) if name in priority else len(priority)
    tier = tier_of(provider)
    ring = KEYLESS_ORDER.index(name) if tier == "keyless" and name in KEYLESS_ORDER else len(KEYLESS_ORDER)
    return TIERS.index(tier), rank, ring, name


def candidates(capability: str) -> list[WebSearchProvider]:
    """Auto-mode candidates for ``capability``, in the order they are tried."""
    _check_capability(capability)
    priority = _priority()
    found = [p for p in web_providers.list() if supports(p, capability) and _can_serve(p, capability)]
    return sorted(found, key=lambda p: _sort_key(p, priority))


def _can_serve(provider: WebSearchProvider, capability: str) -> bool:
    """Available for ``capability``: a keyless mode serves only its ``keyless_capabilities`` when declared."""
    if not is_available(provider):
        return False
    limited = provider.keyless_capabilities
    if not isinstance(limited, (tuple, list, set, frozenset)):  # None: the keyless mode serves all
        return True
    return capability in limited or not keyless_only(provider)


def _capable_names(capability: str) -> list[str]:
    return [normalize_name(p.name) for p in web_providers.list() if supports(p, capability)]


def _disabled_key(name: str) -> str | None:
    disabled = config.get("plugins.disabled") or []
    if isinstance(disabled, str):
        disabled = [disabled]

    def norm(value: object) -> str:
        return normalize_name(value).replace("_", "-")

    wanted = {norm(name), norm(f"web/{name}"), norm(f"web-{name}")}
    for entry in disabled:
        if norm(entry) in wanted:
            return str(entry)
    return None


def _missing_env(provider: WebSearchProvider) -> list[str]:
    return missing_env(provider, web_providers.owner(normalize_name(provider.name)))


def _explicit(capability: str, name: str, source: str) -> WebSearchProvider:
    provider = web_providers.get(name)
    if provider is None:
        key = _disabled_key(name)
        if key is not None:
            raise ProviderNotFoundError(
                f"web provider {name!r} ({source}) comes from a disabled plugin; "
                f"run `hermes-nb plugins enable {key}`",
                provider=name,
            )
        known = ", ".join(web_providers.names()) or "none registered"
        raise ProviderNotFoundError(
            f"unknown web provider {name!r} ({source}); known providers: {known}. "
            "Run `%hermes providers` to see them all",
            provider=name,
        )
    if not supports(provider, capability):
        able = ", ".join(_capable_names(capability)) or "none installed"
        raise InvalidInputError(
            f"{name} is {_caps_text(provider)}; set web.{capability}_backend to one of: {able}",
            provider=name,
        )
    if not is_available(provider):
        need = setup_hint(provider, web_providers.owner(normalize_name(provider.name)))
        raise ProviderNotConfiguredError(
            f"web provider {name} ({source}) is not available: {need}. "
            f"Keyless alternatives: {_KEYLESS_HINT[capability]}",
            provider=name,
        )
    return provider


def _caps_text(provider: WebSearchProvider) -> str:
    caps = [c for c in CAPABILITIES if supports(provider, c)]
    return f"{'/'.join(caps)}-only" if caps else "not usable for any web capability"


def resolve(capability: str, backend: str | None = None) -> WebSearchProvider:
    """The provider that would be tried first (explicit errors raise as in ``run``)."""
    name, source = configured_backend(capability, backend)
    if name is not None:
        return _explicit(capability, name, source)
    found = candidates(capability)
    if not found:
        raise _no_candidates(capability)
    return found[0]


def _no_candidates(capability: str) -> ProviderNotConfiguredError:
    keyed = []
    for provider in web_providers.list():
        if supports(provider, capability) and tier_of(provider) in ("commercial", "self_hosted"):
            env = _missing_env(provider)
            keyed.append(
                f"{normalize_name(provider.name)} ({', '.join(env)})"
                if env
                else normalize_name(provider.name)
            )
    keys = "; or set a key: " + ", ".join(keyed) if keyed else ""
    return ProviderNotConfiguredError(
        f"No available {capability} provider. Keyless options: {_KEYLESS_HINT[capability]}{keys}"
    )


def _code(exc: BaseException) -> str:
    return exc.code if isinstance(exc, HermesError) else type(exc).__name__


def _retryable(exc: BaseException) -> bool:
    return isinstance(exc, HermesError) and (
        exc.code in RETRYABLE_CODES or (type(exc) is ProviderError and exc.retryable)
    )


def _as_hermes(exc: Exception, provider: str) -> HermesError:
    """Untyped exceptions from third-party providers become a retryable ProviderError."""
    if isinstance(exc, HermesError):
        if exc.provider is None:
            exc.provider = provider
        return exc
    if isinstance(exc, NotImplementedError):
        return InvalidInputError(f"{provider}: {exc}", provider=provider)
    return ProviderError(f"{provider} failed: {type(exc).__name__}: {exc}", provider=provider, retryable=True)


def _default_deadline() -> float | None:
    value = config.get("web.deadline")
    return float(value) if isinstance(value, (int, float)) and value > 0 else None


class _Walk:
    """One selection walk: the providers to try, the attempts so far, and the overall deadline."""

    def __init__(
        self, capability: str, backend: str | None, deadline: float | None, clock: Callable[[], float]
    ) -> None:
        self.capability = capability
        self.explicit, source = configured_backend(capability, backend)
        if self.explicit is not None:
            self.providers = [_explicit(capability, self.explicit, source)]
        else:
            self.providers = candidates(capability)
            if not self.providers:
                raise _no_candidates(capability)
        self.budget = _default_deadline() if deadline is None else deadline
        self.clock = clock
        self.start = clock()
        self.began = self.start
        self.attempts: list[Attempt] = []
        self.keyless: list[bool] = []  # per attempt: the provider was in the keyless tier
        self.last: HermesError | None = None
        self.timed_out = False

    def may_start(self, provider: WebSearchProvider) -> bool:
        """False once the deadline has passed (the first provider is always tried)."""
        if self.budget is not None and self.attempts and self.clock() - self.start >= self.budget:
            tried = ", ".join(a.provider for a in self.attempts)
            self.last = TimeoutError_(
                f"{self.capability} deadline of {self.budget:g}s passed after trying {tried}; "
                "raise web.deadline or pass backend= to use one provider",
                provider=normalize_name(provider.name),
            )
            self.timed_out = True
            return False
        self.began = self.clock()
        return True

    def failed(self, provider: WebSearchProvider, exc: Exception) -> bool:
        """Record a failure; True when the next candidate should be tried."""
        err = _as_hermes(exc, normalize_name(provider.name))
        self.attempts.append(Attempt(normalize_name(provider.name), _code(err), err.message, self._elapsed()))
        self.keyless.append(tier_of(provider) == "keyless")
        self.last = err
        return self.explicit is None and _retryable(err)

    def succeeded(self, provider: WebSearchProvider) -> str:
        name = normalize_name(provider.name)
        outcome = "ok (keyless)" if keyless_only(provider) else "ok"
        self.attempts.append(Attempt(name, None, outcome, self._elapsed()))
        return name

    def _elapsed(self) -> float:
        return round(self.clock() - self.began, 6)

    def error(self) -> HermesError:
        """The last error with ``details["attempts"]``; a keyless outage gives the one stable message."""
        assert self.last is not None
        self.last.details["attempts"] = list(self.attempts)
        if self.explicit is None and not self.timed_out:
            outage = keyless_outage(self.capability, self.attempts, self.keyless, self.last)
            if outage is not None:
                return outage
        return self.last


def run(
    capability: str,
    call: Callable[[WebSearchProvider], T],
    *,
    backend: str | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[T, str, list[Attempt]]:
    """Run ``call(provider)`` on the explicit provider or the auto candidates in order.

    ``deadline`` is seconds for the whole call (default ``web.deadline``); once it has passed no
    further candidate is started. Returns ``(value, provider name, attempts)``; when every try
    fails, the last error is raised with ``details["attempts"]``.
    """
    walk = _Walk(capability, backend, deadline, clock)
    for provider in walk.providers:
        if not walk.may_start(provider):
            break
        try:
            value = call(provider)
        except Exception as exc:
            if walk.failed(provider, exc):
                continue
            break
        return value, walk.succeeded(provider), walk.attempts
    raise walk.error()


async def arun(
    capability: str,
    call: Callable[[WebSearchProvider], Awaitable[T]],
    *,
    backend: str | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
) -> tuple[T, str, list[Attempt]]:
    """Async twin of ``run``: ``call(provider)`` returns an awaitable."""
    walk = _Walk(capability, backend, deadline, clock)
    for provider in walk.providers:
        if not walk.may_start(provider):
            break
        try:
            value = await call(provider)
        except Exception as exc:
            if walk.failed(provider, exc):
                continue
            break
        return value, walk.succeeded(provider), walk.attempts
    raise walk.error()
