"""The one exception tree of hermes_nb, with stable error codes.

    HermesError                      .code, .provider, .plugin, .retryable, .status
    ├── InvalidInputError            INVALID_INPUT
    ├── ProviderError
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
message substrings. Messages name the fix. They never contain secret values: every message
passes through ``hermes_nb.redaction.redact`` when the error is built.
"""

from __future__ import annotations

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
    "RETRYABLE_CODES",
    "error_for_status",
    "error_from_code",
]


class HermesError(Exception):
    """Base of every error hermes_nb raises on purpose."""

    code = "HERMES_ERROR"
    retryable = False

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


class InvalidInputError(HermesError, ValueError):
    code = "INVALID_INPUT"


class ProviderError(HermesError):
    """A provider could not serve the request."""

    code = "PROVIDER_ERROR"


class ProviderNotFoundError(ProviderError, LookupError):
    code = "PROVIDER_NOT_FOUND"


class ProviderNotConfiguredError(ProviderError):
    code = "PROVIDER_NOT_CONFIGURED"


class ProviderAuthError(ProviderError):
    code = "PROVIDER_AUTH_FAILED"
    retryable = True  # in auto mode another provider may still answer


class RateLimitedError(ProviderError):
    code = "PROVIDER_RATE_LIMITED"
    retryable = True

    def __init__(self, message: str, *, retry_after: float | None = None, **kwargs: Any) -> None:
        super().__init__(message, **kwargs)
        self.retry_after = retry_after


class ProviderUnavailableError(ProviderError):
    code = "PROVIDER_UNAVAILABLE"
    retryable = True


class ParseError(ProviderError):
    code = "PARSE_ERROR"
    retryable = True


class TransportError(HermesError):
    """The request did not complete at the network level."""

    code = "TRANSPORT_ERROR"
    retryable = True


class NetworkError(TransportError):
    code = "NETWORK_ERROR"


class TimeoutError_(TransportError, TimeoutError):  # noqa: N801, N818 - trailing _ avoids shadowing the builtin
    code = "TIMEOUT"


class ContentError(HermesError):
    code = "CONTENT_ERROR"


class ContentBlockedError(ContentError):
    code = "CONTENT_BLOCKED"


class ContentFetchError(ContentError):
    code = "CONTENT_FETCH_FAILED"


class ContentPolicyError(ContentError):
    code = "CONTENT_POLICY"


class CacheMissError(HermesError, LookupError):
    code = "CACHE_MISS"


class StoreError(HermesError):
    """The store file is damaged, locked or not writable."""

    code = "STORE_ERROR"


#: Codes on which auto selection moves on to the next provider.
RETRYABLE_CODES = frozenset(
    {
        ProviderAuthError.code,
        RateLimitedError.code,
        ProviderUnavailableError.code,
        ParseError.code,
        NetworkError.code,
        TimeoutError_.code,
        ProviderNotConfiguredError.code,
    }
)

_BY_CODE: dict[str, type[HermesError]] = {
    cls.code: cls
    for cls in (
        InvalidInputError,
        ProviderNotFoundError,
        ProviderNotConfiguredError,
        ProviderAuthError,
        RateLimitedError,
        ProviderUnavailableError,
        ParseError,
        NetworkError,
        TimeoutError_,
        ContentBlockedError,
        ContentFetchError,
        ContentPolicyError,
        CacheMissError,
        StoreError,
    )
}


def error_from_code(code: str, message: str, **kwargs: Any) -> HermesError:
    """Build the exception class that owns ``code`` (unknown codes give ``ProviderError``)."""
    cls = _BY_CODE.get(code, ProviderError)
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
    if status in (401, 403):
        return ProviderAuthError(message, **kwargs)
    if status == 408:
        return TimeoutError_(message, **kwargs)
    if status == 429:
        return RateLimitedError(message, retry_after=retry_after, **kwargs)
    if status >= 500:
        return ProviderUnavailableError(message, **kwargs)
    return ProviderError(message, **kwargs)
