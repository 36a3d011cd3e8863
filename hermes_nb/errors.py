"""The one exception tree of hermes_nb, with stable error codes.

    HermesError                      .code, .provider, .plugin, .retryable, .status
    ├── InvalidInputError            INVALID_INPUT
    ├── ProviderError                PROVIDER_ERROR (its own failure answer, when nothing below fits)
    │   ├── ProviderNotFoundError    PROVIDER_NOT_FOUND
    │   ├── ProviderNotConfiguredError  PROVIDER_NOT_CONFIGURED (missing key, URL or dependency)
    │   ├── ProviderAuthError        PROVIDER_AUTH_FAILED
    │   ├── RateLimitedError         PROVIDER_RATE_LIMITED   (.retry_after)
    │   ├── ProviderUnavailableError PROVIDER_UNAVAILABLE    (5xx)
    │   └── ParseError               PARSE_ERROR
    ├── TransportError
    │   ├── NetworkError             NETWORK_ERROR
    │   └── TimeoutError_            TIMEOUT
    ├── ContentError
    │   ├── ContentBlockedError      CONTENT_BLOCKED (SSRF / policy)
    │   ├── ContentFetchError        CONTENT_FETCH_FAILED
    │   └── ContentPolicyError       CONTENT_POLICY (image moderation)
    ├── CacheMissError               CACHE_MISS (replay mode)
    └── StoreError                   STORE_ERROR (the SQLite store is damaged, locked or read-only)

Errors are classified by exception type and HTTP status (``error_for_status``), never by
message substrings.

Every code is declared once, on its class: ``class XError(Base, code="X", statuses=…,
error_types=…, retryable=…, moves_on=…, unreachable=…)``. Everything else is derived from those
declarations: ``CODES`` (code → class, what ``error_from_code`` builds), ``error_for_status``,
``RETRYABLE_CODES`` (auto selection moves on), ``UNREACHABLE_CODES`` (could not get through),
``ERROR_TYPES`` (Hermes's ``error_type`` values in image envelopes), the README check. Adding a
code is one class here, its row in the tree above and its entry in the README's error list.

Messages name the fix. They never contain secret values: every message passes through
``hermes_nb.redaction.redact`` when the error is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from hermes_nb.redaction import redact

__all__ = [
    "HermesError",
    "InvalidInputError",
    "ProviderError",
    "ProviderNotFoundError",
    "ProviderNotConfiguredError",
    "ProviderAuthError",
    "RateLimitedError",
    "ProviderUnavailableError",
    "ParseError",
    "TransportError",
    "NetworkError",
    "TimeoutError_",
    "ContentError",
    "ContentBlockedError",
    "ContentFetchError",
    "ContentPolicyError",
    "CacheMissError",
    "StoreError",
    "CODES",
    "RETRYABLE_CODES",
    "UNREACHABLE_CODES",
    "ERROR_TYPES",
    "error_for_status",
    "error_from_code",
]

#: Every declared code → its class, in declaration order (filled by ``HermesError.__init_subclass__``).
_CODES: dict[str, type[HermesError]] = {}


class HermesError(Exception):
    """Base of every error hermes_nb raises on purpose.

    A subclass declares its code in the class statement (``code="…"``) and, when they apply:
    ``statuses`` (HTTP statuses that mean it), ``error_types`` (Hermes's ``error_type`` values
    in image envelopes, the first one is what hermes_nb writes), ``retryable``, ``moves_on`` (auto
    selection tries the next provider; defaults to ``retryable``), ``unreachable`` (the provider
    could not be reached, as opposed to refusing the request) and ``abstract`` (a grouping base
    whose code is never raised on its own).
    """

    code = "HERMES_ERROR"
    retryable = False
    moves_on = False
    unreachable = False
    statuses: tuple[int, ...] = ()
    error_types: tuple[str, ...] = ()

    def __init_subclass__(
        cls,
        *,
        code: str | None = None,
        statuses: Iterable[int] = (),
        error_types: Iterable[str] = (),
        retryable: bool | None = None,
        moves_on: bool | None = None,
        unreachable: bool | None = None,
        abstract: bool = False,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        if retryable is not None:
            cls.retryable = retryable
        if moves_on is not None or retryable is not None:
            cls.moves_on = bool(retryable if moves_on is None else moves_on)
        if unreachable is not None:
            cls.unreachable = unreachable
        if code is None:  # keeps its parent's code (a refinement, e.g. a lazy-install failure)
            return
        cls.code, cls.statuses, cls.error_types = code, tuple(statuses), tuple(error_types)
        if abstract:
            return
        owner = _CODES.get(code)
        if owner is not None and owner.__qualname__ != cls.__qualname__:
            raise TypeError(f"error code {code} is already declared by {owner.__name__}")
        _CODES[code] = cls

    def __init__(
        self,
        message: str,
        *,
        provider: str | None = None,
        plugin: str | None = None,
        status: int | None = None,
        retryable: bool | None = None,
        details: dict[str, Any] | None = None,
    ) -> None:
        self.message = redact(str(message))
        self.provider = provider
        self.plugin = plugin
        self.status = status
        if retryable is not None:
            self.retryable = retryable
        self.details = details or {}
        super().__init__(self.message)

    def __str__(self) -> str:
        return self.message

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form used by tool handlers: ``{"code", "message", "provider", ...}``."""
        data: dict[str, Any] = {"code": self.code, "message": self.message}
        if self.provider:
            data["provider"] = self.provider
        if self.status is not None:
            data["status"] = self.status
        data["retryable"] = self.retryable
        return data


# One class per code. Keep the tree in the module docstring and the README's list in step.

_INPUT_TYPES = ("invalid_argument", "invalid_input", "too_many_references", "invalid_image_url",
                "modality_unsupported")  # fmt: skip


class InvalidInputError(HermesError, ValueError, code="INVALID_INPUT", error_types=_INPUT_TYPES):
    """The caller's input cannot be used; the message names the fix."""


class ProviderError(HermesError, code="PROVIDER_ERROR"):
    """A provider could not serve the request (its own failure answer when nothing more specific fits)."""


class ProviderNotFoundError(ProviderError, LookupError, code="PROVIDER_NOT_FOUND",
                            error_types=("provider_not_registered",)):  # fmt: skip
    """No provider of that name is registered."""


_MISSING_TYPES = ("missing_api_key", "missing_dependency", "not_configured")


class ProviderNotConfiguredError(ProviderError, code="PROVIDER_NOT_CONFIGURED", moves_on=True,
                                 error_types=_MISSING_TYPES):  # fmt: skip
    """A key, URL or dependency is missing (auto selection moves on to the next provider)."""


class ProviderAuthError(ProviderError, code="PROVIDER_AUTH_FAILED", statuses=(401, 403), retryable=True,
                        error_types=("auth_required",)):  # fmt: skip
    """The key was refused (retryable: in auto mode another provider may still answer)."""


class RateLimitedError(ProviderError, code="PROVIDER_RATE_LIMITED", statuses=(429,), retryable=True,
                       unreachable=True, error_types=("rate_limited",)):  # fmt: skip
    """The provider asks to slow down; ``retry_after`` seconds when it said."""

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ProviderUnavailableError(ProviderError, code="PROVIDER_UNAVAILABLE", statuses=range(500, 1000),
                               retryable=True, unreachable=True,
                               error_types=("provider_unavailable",)):  # fmt: skip
    """The provider failed on its side (5xx)."""


class ParseError(ProviderError, code="PARSE_ERROR", retryable=True, error_types=("parse_error",)):
    """The provider answered something that is not what its API promises."""


class TransportError(HermesError, code="TRANSPORT_ERROR", abstract=True, retryable=True, unreachable=True):
    """The request did not complete at the network level."""


class NetworkError(TransportError, code="NETWORK_ERROR", error_types=("network_error",)):
    """No connection (DNS, refused, reset)."""


class TimeoutError_(TransportError, TimeoutError, code="TIMEOUT", statuses=(408,),  # noqa: N801, N818 - trailing _ avoids shadowing the builtin
                    error_types=("timeout",)):  # fmt: skip
    """The provider did not answer in time."""


class ContentError(HermesError, code="CONTENT_ERROR", abstract=True):
    """A page or image could not be used."""


class ContentBlockedError(ContentError, code="CONTENT_BLOCKED", error_types=("content_blocked",)):
    """Refused before fetching (SSRF guard or policy)."""


class ContentFetchError(ContentError, code="CONTENT_FETCH_FAILED", unreachable=True,
                        error_types=("content_fetch_failed",)):  # fmt: skip
    """The page could not be fetched."""


class ContentPolicyError(ContentError, code="CONTENT_POLICY", error_types=("content_policy",)):
    """The provider's moderation refused the prompt or the image."""


class CacheMissError(HermesError, LookupError, code="CACHE_MISS"):
    """Replay found no recorded answer; the message names the request and the fix."""


class StoreError(HermesError, code="STORE_ERROR"):
    """The store file is damaged, locked or not writable."""


# --------------------------------------------------------------------------- derived from the classes

#: Every code that can be raised → its class (what ``error_from_code`` builds); a live view.
CODES: Mapping[str, type[HermesError]] = _CODES


class _Derived(Mapping[str, str]):
    """A read-only, live mapping computed from the declared classes (tests may declare more)."""

    def __init__(self, build: Callable[[], dict[str, str]]) -> None:
        self._build = build

    def __getitem__(self, key: str) -> str:
        return self._build()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._build())

    def __len__(self) -> int:
        return len(self._build())


class _LiveCodes:
    """A live set of the codes whose class has ``flag`` set (``in``, iteration, ``len``)."""

    def __init__(self, flag: str) -> None:
        self._flag = flag

    def _codes(self) -> frozenset[str]:
        return frozenset(code for code, cls in _CODES.items() if getattr(cls, self._flag))

    def __contains__(self, code: object) -> bool:
        return code in self._codes()

    def __iter__(self) -> Iterator[str]:
        return iter(sorted(self._codes()))

    def __len__(self) -> int:
        return len(self._codes())

    def __repr__(self) -> str:
        return f"{{{', '.join(sorted(self._codes()))}}}"


#: Codes on which auto selection moves on to the next provider.
RETRYABLE_CODES = _LiveCodes("moves_on")
#: Codes that mean "could not get through", as opposed to a bad request or a refused key.
UNREACHABLE_CODES = _LiveCodes("unreachable")
#: Hermes's ``error_type`` values (and hermes_nb's additions) → the code the SDK raises.
ERROR_TYPES: Mapping[str, str] = _Derived(
    lambda: {error_type: code for code, cls in _CODES.items() for error_type in cls.error_types}
)


def error_from_code(code: str, message: str, **kwargs: Any) -> HermesError:
    """Build the exception class that owns ``code`` (unknown codes give ``ProviderError``)."""
    cls = _CODES.get(code, ProviderError)
    return cls(message, **kwargs)


def error_for_status(
    status: int,
    message: str,
    *,
    provider: str | None = None,
    retry_after: float | None = None,
) -> HermesError:
    """Map an HTTP status to the error class; vendors' own odd codes are mapped by the caller first."""
    kwargs: dict[str, Any] = {"provider": provider, "status": status}
    cls = next((c for c in _CODES.values() if status in c.statuses), ProviderError)
    if issubclass(cls, RateLimitedError):
        return cls(message, retry_after=retry_after, **kwargs)
    return cls(message, **kwargs)
