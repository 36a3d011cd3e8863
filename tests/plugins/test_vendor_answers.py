"""Reading vendor answers: JSON objects, what an error body says, and the usual status → error map."""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from hermes_nb.errors import (
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    RateLimitedError,
)
from hermes_nb.plugins.vendor_answers import (
    json_object,
    json_or_none,
    retry_after_s,
    vendor_error,
    vendor_message,
)


def answer(status: int = 200, body: Any = None, text: str | None = None, **headers: str) -> httpx.Response:
    if text is not None:
        return httpx.Response(status, text=text, headers=headers)
    return httpx.Response(status, json=body, headers=headers)


def test_json_object() -> None:
    assert json_object(answer(body={"a": 1}), "acme") == {"a": 1}
    with pytest.raises(ParseError, match="Acme answered with invalid JSON") as info:
        json_object(answer(text="<html>"), "acme", "Acme")
    assert info.value.provider == "acme"
    with pytest.raises(ParseError, match="acme answered with JSON that is not an object"):
        json_object(answer(body=[1, 2]), "acme")
    assert json_or_none(answer(text="")) is None and json_or_none(answer(body=[1])) == [1]


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ({"detail": [{"loc": ["body", "width"], "msg": "not ÷32"}]}, "width: not ÷32"),
        ({"detail": "No such model"}, "No such model"),
        ({"error": {"message": "bad key"}}, "bad key"),
        ({"message": "slow down"}, "slow down"),
        ({"type": "about:blank", "title": "Unprocessable"}, "Unprocessable"),
        ("not an object", "HTTP 418"),
    ],
)  # fmt: skip
def test_vendor_message(body: Any, said: str) -> None:
    assert vendor_message(body, 418) == said


def test_vendor_error_maps_the_usual_statuses() -> None:
    kw: dict[str, Any] = {"provider": "acme", "vendor": "Acme", "key_env": "ACME_KEY"}
    auth = vendor_error(answer(401), "nope", **kw)
    assert isinstance(auth, ProviderAuthError) and str(auth) == "Acme rejected the key (nope); check ACME_KEY"
    assert vendor_error(answer(402), "broke", **kw) is None  # no billing page: the client's default
    broke = vendor_error(answer(402), "broke", billing="acme.example/billing", **kw)
    assert type(broke) is ProviderError and "top up at acme.example/billing" in str(broke)
    limited = vendor_error(answer(429, {}, **{"retry-after": "2.5"}), "later", **kw)
    assert isinstance(limited, RateLimitedError) and limited.retry_after == 2.5
    assert vendor_error(answer(429), "later", retry_after=7.0, **kw).retry_after == 7.0  # type: ignore[union-attr]
    refused = vendor_error(answer(422), "width: too big", **kw)
    assert isinstance(refused, InvalidInputError) and refused.status == 422
    assert vendor_error(answer(409), "conflict", **kw) is None
    assert isinstance(vendor_error(answer(409), "conflict", refused=(409,), **kw), InvalidInputError)
    assert vendor_error(answer(503), "down", **kw) is None


def test_retry_after_s() -> None:
    assert retry_after_s(answer(429, {}, **{"retry-after": "3"})) == 3.0
    assert retry_after_s(answer(429, {}, **{"retry-after": "Wed, 21 Oct 2026 07:28:00 GMT"})) is None
    assert retry_after_s(answer(429, {})) is None
