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

Fallback chains (``web.search_fallback``, ``web.extract_fallback``, ``web.crawl_fallback``: an
ordered list of provider names, or ``none``). With a list, the active provider (the configured one,
else auto mode's first candidate) is tried, then each provider of the list in order, moving on when
one fails for any reason but the caller's input (``INVALID_INPUT``, ``CONTENT_BLOCKED``,
``CONTENT_POLICY``), is out of quota, is not set up, or answers with **no results** (recorded as
``NO_RESULTS``; an empty answer is returned only when every provider of the chain gave one or
failed). ``none`` tries only the active provider and raises its first error. A ``backend=``
argument is never rerouted. Each try is an ``Attempt`` on the result.
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
    "fallback_chain",
    "out_of_quota",
    "NO_RESULTS",
    "resolve",
    "run",
    "arun",
]

T = TypeVar("T")

CAPABILITIES = ("search", "extract", "crawl")
#: The attempt code of a provider that answered with nothing (a fallback chain moves on).
NO_RESULTS = "NO_RESULTS"
#: Codes a fallback chain stops on: the caller's input or a policy, which another provider cannot fix.
_CHAIN_STOPS = frozenset({"INVALID_INPUT", "CONTENT_BLOCKED", "CONTENT_POLICY", "CACHE_MISS", "STORE_ERROR"})
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


def fallback_chain(capability: str) -> list[str] | None:
    """``web.<capability>_fallback``: None when unset, ``[]`` for ``none``, else provider names.

    A list, or a string of names separated by commas or spaces (``"searxng, brave, ddgs"``).
    """
    _check_capability(capability)
    key = f"web.{capability}_fallback"
    value = config.get(key)
    if value is None:
        return None
    if isinstance(value, str):
        value = value.replace(",", " ").split()
    if not isinstance(value, (list, tuple)):
        raise InvalidInputError(
            f"config {key} must be a list of provider names or 'none', got {type(value).__name__}; "
            f"fix it with hn.config.set({key!r}, ['searxng', 'ddgs'])"
        )
    names = [normalize_name(v) for v in value if normalize_name(v)]
    return [] if names in ([], ["none"]) else [n for n in dict.fromkeys(names) if n != "none"]


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
        exc.code in RETRYABLE_CODES or (type(exc) is ProviderError and exc.retryable) or out_of_quota(exc)
    )


def out_of_quota(exc: BaseException) -> bool:
    """HTTP 402, or a vendor's "credits exhausted" answer (a rate limit that waiting does not lift)."""
    if not isinstance(exc, HermesError):
        return False
    return exc.status == 402 or (exc.code == "PROVIDER_RATE_LIMITED" and not exc.retryable)


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
    """One selection walk: the providers to try, the attempts so far, and the overall deadline.

    ``steps`` holds each provider to try, or the error that one entry of a fallback chain gives
    before any call (unknown, not set up, cannot serve the capability): recorded, then skipped.
    """

    def __init__(
        self, capability: str, backend: str | None, deadline: float | None, clock: Callable[[], float]
    ) -> None:
        self.capability = capability
        self.explicit, source = configured_backend(capability, backend)
        argument = backend is not None and self.explicit is not None
        self.chain = None if argument else fallback_chain(capability)  # a backend= is never rerouted
        self.steps: list[WebSearchProvider | HermesError] = []
        if self.chain:
            self.steps = self._chained(source)
        elif self.explicit is not None:
            self.steps = [_explicit(capability, self.explicit, source)]
        else:
            found = candidates(capability)
            if not found:
                raise _no_candidates(capability)
            self.steps = list(found[:1] if self.chain == [] else found)
        self.budget = _default_deadline() if deadline is None else deadline
        self.clock = clock
        self.start = clock()
        self.began = self.start
        self.attempts: list[Attempt] = []
        self.keyless: list[bool] = []  # per attempt: the provider was in the keyless tier
        self.last: HermesError | None = None
        self.timed_out = False
        self.empty: tuple[object, str] | None = None  # the latest answer with no results, and who gave it

    def _chained(self, source: str) -> list[WebSearchProvider | HermesError]:
        """The active provider, then the chain's providers (each resolved as an explicit choice)."""
        assert self.chain
        first: list[str] = [self.explicit] if self.explicit is not None else [
            normalize_name(p.name) for p in candidates(self.capability)[:1]
        ]
        steps: list[WebSearchProvider | HermesError] = []
        for index, name in enumerate(dict.fromkeys([*first, *self.chain])):
            where = source if index == 0 and self.explicit is not None else f"web.{self.capability}_fallback"
            try:
                steps.append(_explicit(self.capability, name, where))
            except HermesError as exc:
                steps.append(exc)
        return steps

    @property
    def chained(self) -> bool:
        return bool(self.chain)

    def may_start(self, provider: WebSearchProvider | HermesError) -> bool:
        """False once the deadline has passed (the first provider is always tried)."""
        if self.budget is not None and self.attempts and self.clock() - self.start >= self.budget:
            tried = ", ".join(a.provider for a in self.attempts)
            self.last = TimeoutError_(
                f"{self.capability} deadline of {self.budget:g}s passed after trying {tried}; "
                "raise web.deadline or pass backend= to use one provider",
                provider=self._name(provider),
            )
            self.timed_out = True
            return False
        self.began = self.clock()
        return True

    @staticmethod
    def _name(step: WebSearchProvider | HermesError) -> str:
        if isinstance(step, HermesError):
            return normalize_name(step.provider or "?")
        return normalize_name(step.name)

    def skipped(self, err: HermesError) -> None:
        """A chain entry that could not even be called: recorded, and the chain moves on."""
        self.attempts.append(Attempt(self._name(err), _code(err), err.message, 0.0))
        self.last = self.last or err

    def failed(self, provider: WebSearchProvider, exc: Exception) -> bool:
        """Record a failure; True when the next candidate should be tried."""
        err = _as_hermes(exc, normalize_name(provider.name))
        message = f"out of quota: {err.message}" if out_of_quota(err) else err.message
        self.attempts.append(Attempt(normalize_name(provider.name), _code(err), message, self._elapsed()))
        self.keyless.append(tier_of(provider) == "keyless")
        self.last = err
        if self.chained:
            return _code(err) not in _CHAIN_STOPS
        return self.explicit is None and self.chain is None and _retryable(err)

    def answered_nothing(self, provider: WebSearchProvider, value: object) -> bool:
        """In a chain, an answer with no results is recorded and the chain moves on (True)."""
        if not self.chained:
            return False
        name = normalize_name(provider.name)
        self.attempts.append(Attempt(name, NO_RESULTS, "answered with no results", self._elapsed()))
        self.empty = (value, name)
        return True

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
    empty: Callable[[T], bool] | None = None,
) -> tuple[T, str, list[Attempt]]:
    """Run ``call(provider)`` on the explicit provider, the auto candidates or the fallback chain in order.

    ``deadline`` is seconds for the whole call (default ``web.deadline``); once it has passed no
    further candidate is started. ``empty(value)`` tells an answer with no results (a fallback
    chain moves on after one). Returns ``(value, provider name, attempts)``; when every try
    fails, the last error is raised with ``details["attempts"]``.
    """
    walk = _Walk(capability, backend, deadline, clock)
    for step in walk.steps:
        if isinstance(step, HermesError):
            walk.skipped(step)
            continue
        if not walk.may_start(step):
            break
        try:
            value = call(step)
        except Exception as exc:
            if walk.failed(step, exc):
                continue
            break
        if empty is not None and empty(value) and walk.answered_nothing(step, value):
            continue
        return value, walk.succeeded(step), walk.attempts
    return _end(walk)


async def arun(
    capability: str,
    call: Callable[[WebSearchProvider], Awaitable[T]],
    *,
    backend: str | None = None,
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    empty: Callable[[T], bool] | None = None,
) -> tuple[T, str, list[Attempt]]:
    """Async twin of ``run``: ``call(provider)`` returns an awaitable."""
    walk = _Walk(capability, backend, deadline, clock)
    for step in walk.steps:
        if isinstance(step, HermesError):
            walk.skipped(step)
            continue
        if not walk.may_start(step):
            break
        try:
            value = await call(step)
        except Exception as exc:
            if walk.failed(step, exc):
                continue
            break
        if empty is not None and empty(value) and walk.answered_nothing(step, value):
            continue
        return value, walk.succeeded(step), walk.attempts
    return _end(walk)


def _end(walk: _Walk) -> tuple[T, str, list[Attempt]]:
    """No provider answered with results: the latest empty answer if there was one, else the error."""
    if walk.empty is not None:
        value, name = walk.empty
        return value, name, walk.attempts  # type: ignore[return-value]  # a value of this walk's T
    raise walk.error()
