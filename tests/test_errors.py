"""The exception tree: stable codes, classification by status, redaction, JSON form."""

from __future__ import annotations

import pytest

from hermes_nb import errors
from hermes_nb.redaction import register_secret

CODES = {
    errors.InvalidInputError: "INVALID_INPUT",
    errors.ProviderNotFoundError: "PROVIDER_NOT_FOUND",
    errors.ProviderNotConfiguredError: "PROVIDER_NOT_CONFIGURED",
    errors.ProviderAuthError: "PROVIDER_AUTH_FAILED",
    errors.RateLimitedError: "PROVIDER_RATE_LIMITED",
    errors.ProviderUnavailableError: "PROVIDER_UNAVAILABLE",
    errors.NetworkError: "NETWORK_ERROR",
    errors.TimeoutError_: "TIMEOUT",
    errors.ContentBlockedError: "CONTENT_BLOCKED",
    errors.ContentFetchError: "CONTENT_FETCH_FAILED",
    errors.ContentPolicyError: "CONTENT_POLICY",
    errors.ParseError: "PARSE_ERROR",
    errors.CacheMissError: "CACHE_MISS",
}


@pytest.mark.parametrize(("cls", "code"), sorted(CODES.items(), key=lambda kv: kv[1]))
def test_codes_are_stable(cls: type[errors.HermesError], code: str) -> None:
    assert cls.code == code
    assert issubclass(cls, errors.HermesError)
    assert errors.error_from_code(code, "m").__class__ is cls


@pytest.mark.parametrize(
    ("status", "cls"),
    [
        (401, errors.ProviderAuthError),
        (403, errors.ProviderAuthError),
        (408, errors.TimeoutError_),
        (429, errors.RateLimitedError),
        (500, errors.ProviderUnavailableError),
        (503, errors.ProviderUnavailableError),
        (404, errors.ProviderError),
    ],
)
def test_error_for_status(status: int, cls: type[errors.HermesError]) -> None:
    err = errors.error_for_status(status, "boom", provider="p", retry_after=3)
    assert type(err) is cls
    assert err.status == status and err.provider == "p"


def test_rate_limited_keeps_retry_after() -> None:
    err = errors.error_for_status(429, "slow down", retry_after=7.5)
    assert isinstance(err, errors.RateLimitedError) and err.retry_after == 7.5


def test_timeout_is_also_builtin_timeout() -> None:
    assert isinstance(errors.TimeoutError_("t"), TimeoutError)


def test_messages_are_redacted() -> None:
    register_secret("sk-live-0123456789abcdef")
    err = errors.ProviderAuthError("key sk-live-0123456789abcdef rejected", provider="openai")
    assert "0123456789" not in str(err)
    assert "0123456789" not in repr(err.to_dict())


def test_retryable_codes_drive_fallback() -> None:
    assert errors.InvalidInputError.code not in errors.RETRYABLE_CODES
    assert errors.RateLimitedError.code in errors.RETRYABLE_CODES
    assert errors.TimeoutError_.code in errors.RETRYABLE_CODES
