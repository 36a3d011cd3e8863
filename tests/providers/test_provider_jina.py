"""Jina provider on the emulator: Reader extract (keyless and keyed), Search (keyed), every error class."""

from __future__ import annotations

from collections.abc import Iterator

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
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.testing import Emulator, use_emulator

KEY = "jina_" + "k" * 24


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=8) as server:
        yield server


@pytest.fixture
def jina(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, providers=["jina"]):
        yield web_providers.get("jina")


def test_keyless_reader_and_search_only_with_a_key() -> None:
    load_plugins()
    provider = web_providers.get("jina")
    assert provider is not None and provider.is_keyless_available() and not provider.is_available()
    assert provider.supports_extract() and not provider.supports_search()
    config.set_key("JINA_API_KEY", KEY)
    assert provider.is_available() and provider.supports_search()


def test_keyless_extract_request_and_mapping(jina, emu: Emulator) -> None:
    url = emu.page_url("/site/")
    (page,) = jina.extract([url])
    assert page["url"] == url and page["title"] and page["content"] == page["raw_content"]
    assert page["metadata"]["source"] == "jina" and page["metadata"]["keyless"] is True
    assert "Jina Reader" in page["metadata"]["third_party"] and page["metadata"]["tokens"] >= 1
    (req,) = emu.requests_for("jina")
    assert req.method == "GET" and req.path == f"/jina/{url}"
    assert req.headers["accept"] == "application/json" and req.headers["x-respond-with"] == "markdown"
    assert "authorization" not in req.headers


def test_keyed_extract_sends_the_key_and_text_format(jina, emu: Emulator) -> None:
    config.set_key("JINA_API_KEY", KEY)
    (page,) = jina.extract([emu.page_url("/site/")], format="text")
    assert page["metadata"]["keyless"] is False and not page["content"].startswith("#")
    (req,) = emu.requests_for("jina")
    assert req.headers["authorization"] == f"Bearer {KEY}" and req.headers["x-respond-with"] == "text"


def test_per_url_failures_keep_the_rest(jina, emu: Emulator) -> None:
    good = emu.page_url("/site/")
    pages = jina.extract(["https://gone.invalid/x", good])
    assert pages[0]["error_code"] == "CONTENT_FETCH_FAILED" and "could not read" in pages[0]["error"]
    assert pages[1]["content"] and "error" not in pages[1]


def test_empty_page_is_a_per_url_failure(jina, emu: Emulator) -> None:
    emu.fail("jina", "empty")
    (page,) = jina.extract([emu.page_url("/site/")])
    assert page["error_code"] in ("CONTENT_FETCH_FAILED", "PARSE_ERROR")


def test_keyless_rate_limit_fails_over_at_once(jina, emu: Emulator) -> None:
    config.set("web.max_retries", 2)
    emu.fail("jina", "429", retry_after=30)
    with pytest.raises(RateLimitedError) as info:
        jina.extract([emu.page_url("/site/")])
    assert info.value.retry_after == 30.0 and "JINA_API_KEY" in str(info.value)
    assert len(emu.requests_for("jina")) == 1


def test_insufficient_balance_is_a_non_retryable_rate_limit(jina, emu: Emulator) -> None:
    config.set_key("JINA_API_KEY", KEY)
    emu.fail("jina", "402")
    with pytest.raises(RateLimitedError) as info:
        jina.extract([emu.page_url("/site/")])
    assert info.value.retryable is False


def test_bad_key_is_auth_failure_never_retried_keyless(jina, emu: Emulator) -> None:
    config.set_key("JINA_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="JINA_API_KEY"):
        jina.extract([emu.page_url("/site/")])
    assert len(emu.requests_for("jina")) == 1


def test_5xx_timeout_and_malformed_json(jina, emu: Emulator) -> None:
    emu.fail("jina", "503")
    with pytest.raises(ProviderUnavailableError):
        jina.extract([emu.page_url("/site/")])
    config.set("web.timeout", 0.3)
    emu.fail("jina", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        jina.extract([emu.page_url("/site/")])
    emu.fail("jina", "malformed_json")
    (page,) = jina.extract([emu.page_url("/site/")])
    assert page["error_code"] == "PARSE_ERROR"


def test_search_needs_a_key_and_sends_nothing_without(jina, emu: Emulator) -> None:
    with pytest.raises(ProviderNotConfiguredError, match="JINA_API_KEY"):
        jina.search("q")
    assert emu.requests_for("jina-search") == []


def test_search_request_and_mapping(jina, emu: Emulator) -> None:
    config.set_key("JINA_API_KEY", KEY)
    out = jina.search("transformers attention", limit=4)
    hits = out["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3, 4] and out["data"]["effective_limit"] == 4
    assert all(h["url"].startswith("https://") and h["description"] for h in hits)
    (req,) = emu.requests_for("jina-search")
    assert req.path == "/jina-search/" and req.query == {"q": ["transformers attention"], "count": ["4"]}
    assert req.headers["authorization"] == f"Bearer {KEY}" and req.headers["accept"] == "application/json"


def test_search_count_clamped_and_errors(jina, emu: Emulator) -> None:
    config.set_key("JINA_API_KEY", KEY)
    assert len(jina.search("many", limit=99)["data"]["web"]) == 20
    emu.fail("jina-search", "429", retry_after=2)
    with pytest.raises(RateLimitedError):
        jina.search("q")
    emu.fail("jina-search", "422")
    with pytest.raises(InvalidInputError, match="Jina Search refused"):
        jina.search("q")
    emu.fail("jina-search", "auth")
    with pytest.raises(ProviderAuthError):
        jina.search("q")
    emu.fail("jina-search", "malformed_json")
    with pytest.raises(ParseError):
        jina.search("q")


def test_direct_fallback_still_uses_the_reader_endpoint(jina, emu: Emulator) -> None:
    config.set("web.jina_fallback", True)
    direct = web_providers.get("direct")
    assert direct is not None
    url = emu.page_url("/site/")
    (page,) = direct.extract([url], prefer_reader=True)
    assert page["metadata"].get("reader") == "jina"
    assert [r.path for r in emu.requests_for("jina")] == [f"/jina/{url}"]
