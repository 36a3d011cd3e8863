"""The exception tree: stable codes, classification by status, redaction, JSON form."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

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


# -- one source: a code is declared once, on its class, and known everywhere -------------------


@pytest.fixture
def scratch_codes() -> Iterator[None]:
    saved = dict(errors.CODES)
    yield
    errors._CODES.clear()
    errors._CODES.update(saved)


def test_a_code_declared_on_one_class_is_known_everywhere(scratch_codes: None) -> None:
    from hermes_nb.plugins import image_provider
    from hermes_nb.tools import builtin
    from hermes_nb.web import outage, selection

    class TeapotError(errors.ProviderError, code="PROVIDER_TEAPOT", statuses=(418,), error_types=("teapot",), retryable=True, unreachable=True):  # noqa: E501 - the one line under test
        """The provider is a teapot."""

    assert errors.CODES["PROVIDER_TEAPOT"] is TeapotError
    assert type(errors.error_from_code("PROVIDER_TEAPOT", "m")) is TeapotError
    assert type(errors.error_for_status(418, "short and stout", provider="p")) is TeapotError
    assert "PROVIDER_TEAPOT" in errors.RETRYABLE_CODES and "PROVIDER_TEAPOT" in errors.UNREACHABLE_CODES
    # image envelopes, both ways
    assert image_provider.ERROR_TYPES["teapot"] == "PROVIDER_TEAPOT"
    assert image_provider.error_type_for(TeapotError("m")) == "teapot"
    envelope = {"success": False, "error": "no coffee", "error_type": "teapot", "provider": "p"}
    assert type(image_provider.error_from_envelope(envelope)) is TeapotError
    # auto selection moves on; tool calls carry the code
    assert selection._retryable(TeapotError("m"))
    assert builtin._failure(TeapotError("m"), "x")["code"] == "PROVIDER_TEAPOT"
    assert outage.UNREACHABLE_CODES is errors.UNREACHABLE_CODES
    # the README check of tests/test_docs.py sees it (and would fail until its row is written)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert [c for c in errors.CODES if f"`{c}`" not in readme] == ["PROVIDER_TEAPOT"]


def test_a_code_is_declared_once(scratch_codes: None) -> None:
    with pytest.raises(TypeError, match="CACHE_MISS is already declared by CacheMissError"):

        class Again(errors.HermesError, code="CACHE_MISS"):
            """A second owner of a taken code."""


def test_the_drawn_tree_names_every_code() -> None:
    assert errors.__doc__ is not None
    missing = [code for code in errors.CODES if f" {code}" not in errors.__doc__]
    assert missing == [], f"add a row for {missing} to the tree in hermes_nb/errors.py's docstring"


def test_abstract_bases_are_not_raised_by_code() -> None:
    assert "TRANSPORT_ERROR" not in errors.CODES and "CONTENT_ERROR" not in errors.CODES
    assert type(errors.error_from_code("TRANSPORT_ERROR", "m")) is errors.ProviderError
    assert errors.NetworkError.moves_on and not errors.InvalidInputError.moves_on
