"""Serper provider against the emulator: request shape, mapping, clamping, every error class."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hermes_nb import config
from hermes_nb.errors import (
    InvalidInputError,
    NetworkError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
)
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=5) as server:
        yield server


@pytest.fixture
def serper(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, providers=["serper"]):
        yield web_providers.get("serper")


def test_registered_with_metadata() -> None:
    load_plugins()
    provider = web_providers.get("serper")
    assert provider is not None and provider.tier == "commercial"  # type: ignore[attr-defined]
    assert provider.get_setup_schema()["env_vars"][0]["key"] == "SERPER_API_KEY"
    assert not provider.is_available() and not provider.is_keyless_available()
    assert provider.supports_search() and not provider.supports_extract()


def test_search_request_and_mapping(serper, emu: Emulator) -> None:
    out = serper.search("python asyncio tutorial", limit=3)
    hits = out["data"]["web"]
    assert out["success"] is True and [h["position"] for h in hits] == [1, 2, 3]
    assert all(h["url"].startswith("https://") and h["title"] and h["description"] for h in hits)
    assert out["data"]["effective_limit"] == 3 and out["data"]["answer"]
    (req,) = emu.requests_for("serper")
    assert req.method == "POST" and req.path == "/serper/search"
    assert req.json == {"q": "python asyncio tutorial", "num": 3}
    assert req.headers["x-api-key"] == "emu-serper-key"
    assert "authorization" not in req.headers


def test_num_clamped_to_100(serper, emu: Emulator) -> None:
    assert len(serper.search("many", limit=500)["data"]["web"]) == 100
    assert emu.requests_for("serper")[0].json["num"] == 100


def test_empty_answer_is_success(serper, emu: Emulator) -> None:
    emu.fail("serper", "empty")
    assert serper.search("nothing") == {"success": True, "data": {"web": [], "effective_limit": 5}}


def test_bad_key_is_403_auth_failure_without_the_key(serper, emu: Emulator) -> None:
    config.set_key("SERPER_API_KEY", "a-secret-serper-key-123")
    emu.fail("serper", "auth")
    with pytest.raises(ProviderAuthError) as info:
        serper.search("q")
    assert info.value.status == 403 and "SERPER_API_KEY" in str(info.value)
    assert "a-secret-serper-key-123" not in str(info.value)


def test_missing_key_sends_nothing(serper, emu: Emulator) -> None:
    config.set_key("SERPER_API_KEY", None)
    with pytest.raises(ProviderNotConfiguredError, match="SERPER_API_KEY"):
        serper.search("q")
    assert emu.requests_for("serper") == []


def test_out_of_credits_is_a_non_retryable_rate_limit(serper, emu: Emulator) -> None:
    emu.fail("serper", "400")
    with pytest.raises(RateLimitedError) as info:
        serper.search("q")
    assert info.value.retryable is False and "credits" in str(info.value)


def test_bad_request_is_invalid_input(serper) -> None:
    with pytest.raises(InvalidInputError, match="Serper refused"):
        serper.search("   ")


def test_rate_limit_keeps_retry_after(serper, emu: Emulator) -> None:
    emu.fail("serper", "429", retry_after=4)
    with pytest.raises(RateLimitedError) as info:
        serper.search("q")
    assert info.value.retry_after == 4.0


def test_rate_limit_retried_when_allowed(serper, emu: Emulator) -> None:
    config.set("web.max_retries", 1)
    emu.fail("serper", "429", retry_after=0)
    assert serper.search("again")["success"] is True
    assert len(emu.requests_for("serper")) == 2


@pytest.mark.parametrize("status", ["500", "503"])
def test_5xx_is_unavailable(serper, emu: Emulator, status: str) -> None:
    emu.fail("serper", status)
    with pytest.raises(ProviderUnavailableError):
        serper.search("q")


def test_timeout_reset_and_malformed_json(serper, emu: Emulator) -> None:
    config.set("web.timeout", 0.3)
    emu.fail("serper", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        serper.search("q")
    emu.fail("serper", "reset")
    with pytest.raises(NetworkError):
        serper.search("q")
    emu.fail("serper", "malformed_json")
    with pytest.raises(ParseError):
        serper.search("q")


def test_base_url_setting_is_honoured(serper, emu: Emulator) -> None:
    config.set("web.serper.base_url", emu.url + "/serper/")
    serper.search("slash")
    assert emu.requests_for("serper")[0].path == "/serper/search"


def test_explicit_and_auto_selection(serper, emu: Emulator) -> None:
    import hermes_nb as hn

    config.set("cache.mode", "off")
    explicit = hn.search("chosen", limit=2, backend="serper")
    assert explicit.provider == "serper" and len(explicit) == 2
    auto = hn.search("only keyed one", limit=2)  # no other key is set: serper leads the commercial tier
    assert auto.provider == "serper" and [a.provider for a in auto.attempts] == ["serper"]
