"""Brave provider against the emulator: request shape, mapping, clamping, every error class."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import (
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
)
from hermes_nb.net import http_client
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=3) as server:
        yield server


@pytest.fixture
def brave(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu):
        yield web_providers.get("brave")


def test_registered_with_alias_and_metadata() -> None:
    load_plugins()
    provider = web_providers.get("brave")
    assert provider is not None and web_providers.get("brave-free") is provider
    assert provider.tier == "commercial"  # type: ignore[attr-defined]  # class attribute of the plugin
    assert provider.get_setup_schema()["env_vars"][0]["key"] == "BRAVE_SEARCH_API_KEY"
    assert not provider.is_available()  # no key in the hermetic test environment


def test_search_request_and_mapping(brave, emu: Emulator) -> None:
    out = brave.search("python asyncio tutorial", limit=3)
    assert out["success"] is True
    hits = out["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3]
    assert all(h["url"].startswith("http") and h["title"] for h in hits)
    assert all("<strong>" not in h["description"] and "&lt;" not in h["description"] for h in hits)
    assert out["data"]["effective_limit"] == 3
    (req,) = emu.requests_for("brave")
    assert req.method == "GET" and req.path == "/brave/res/v1/web/search"
    assert req.query["q"] == ["python asyncio tutorial"] and req.query["count"] == ["3"]
    assert req.headers["x-subscription-token"] == "emu-brave-key"
    assert req.headers["accept"] == "application/json"
    assert req.headers["user-agent"].startswith("hermes_nb/")


def test_count_clamped_to_20(brave, emu: Emulator) -> None:
    out = brave.search("many results", limit=50)
    assert len(out["data"]["web"]) == 20
    assert out["data"]["effective_limit"] == 20
    assert emu.requests_for("brave")[0].query["count"] == ["20"]


def test_empty_answer_is_success(brave, emu: Emulator) -> None:
    emu.fail("brave", "empty")
    assert brave.search("nothing") == {"success": True, "data": {"web": [], "effective_limit": 5}}


def test_bad_key_is_auth_error_and_never_echoes_the_key(brave, emu: Emulator) -> None:
    config.set_key("BRAVE_SEARCH_API_KEY", emu.BAD_KEY + "-but-longer-secret")
    emu.fail("brave", "auth")
    with pytest.raises(ProviderAuthError) as info:
        brave.search("q")
    assert info.value.status == 422 and "BRAVE_SEARCH_API_KEY" in str(info.value)
    assert "bad-key-but-longer-secret" not in str(info.value)


def test_literal_bad_key(brave, emu: Emulator) -> None:
    config.set_key("BRAVE_SEARCH_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="SUBSCRIPTION_TOKEN_INVALID"):
        brave.search("q")


def test_missing_key_sends_nothing(brave, emu: Emulator) -> None:
    config.set_key("BRAVE_SEARCH_API_KEY", None)
    with pytest.raises(ProviderNotConfiguredError, match="BRAVE_SEARCH_API_KEY"):
        brave.search("q")
    assert emu.requests_for("brave") == []


def test_rate_limited_then_retried(brave, emu: Emulator) -> None:
    emu.fail("brave", "429", times=1, retry_after=0)
    config.set("web.max_retries", 1)
    assert brave.search("retry me", limit=2)["success"] is True
    assert len(emu.requests_for("brave")) == 2


def test_rate_limited_surfaces_typed_with_reset(brave, emu: Emulator) -> None:
    emu.fail("brave", "429", times=None, retry_after=7)
    with pytest.raises(RateLimitedError) as info:
        brave.search("q")
    assert info.value.retry_after == 7.0 and info.value.retryable


@pytest.mark.parametrize("status", ["500", "502", "503"])
def test_5xx_is_unavailable(brave, emu: Emulator, status: str) -> None:
    emu.fail("brave", status)
    with pytest.raises(ProviderUnavailableError):
        brave.search("q")


def test_timeout(brave, emu: Emulator) -> None:
    config.set("web.timeout", 0.3)
    emu.fail("brave", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        brave.search("q")


def test_malformed_json_is_parse_error(brave, emu: Emulator) -> None:
    emu.fail("brave", "malformed_json")
    with pytest.raises(ParseError):
        brave.search("q")


def test_too_long_query_is_invalid_input(brave) -> None:
    with pytest.raises(InvalidInputError, match="Brave refused the request"):
        brave.search("word " * 60)


def _quota_transport(request: httpx.Request) -> httpx.Response:
    error = {"code": "QUOTA_LIMITED", "status": 429, "detail": "Monthly quota"}
    body = {"type": "ErrorResponse", "error": error}
    return httpx.Response(429, json=body, headers={"X-RateLimit-Reset": "1, 86400"})


def test_quota_limited_is_not_retryable() -> None:
    # the emulator speaks RATE_LIMITED only; the monthly quota answer comes from a mock transport
    load_plugins()
    config.set_key("BRAVE_SEARCH_API_KEY", "mock-brave-key")
    config.set("web.max_retries", 0)
    http_client.set_transport(httpx.MockTransport(_quota_transport))
    with pytest.raises(RateLimitedError) as info:
        web_providers.get("brave").search("q")  # type: ignore[union-attr]
    assert not info.value.retryable and info.value.retry_after == 86400.0
