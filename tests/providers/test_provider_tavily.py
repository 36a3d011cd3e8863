"""Tavily provider against the emulator: search, extract (per-URL errors), crawl, every error class."""

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


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=5) as server:
        yield server


@pytest.fixture
def tavily(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu):
        yield web_providers.get("tavily")


def test_capabilities_and_availability(tavily) -> None:
    assert tavily.supports_search() and tavily.supports_extract() and tavily.supports_crawl()
    assert tavily.is_available()
    config.set_key("TAVILY_API_KEY", None)
    assert not tavily.is_available()


def test_search_request_and_mapping(tavily, emu: Emulator) -> None:
    out = tavily.search("vector databases", limit=4)
    hits = out["data"]["web"]
    assert len(hits) == 4 and [h["position"] for h in hits] == [1, 2, 3, 4]
    assert all(h["url"] and h["title"] and h["description"] for h in hits)
    (req,) = emu.requests_for("tavily")
    assert req.method == "POST" and req.path == "/tavily/search"
    assert req.headers["authorization"] == "Bearer emu-tavily-key"
    assert req.headers["user-agent"].startswith("hermes_nb/")
    assert req.json == {"query": "vector databases", "max_results": 4, "search_depth": "basic"}
    assert "api_key" not in req.json  # the key travels in the header only


def test_search_limit_clamped(tavily, emu: Emulator) -> None:
    out = tavily.search("lots", limit=99)
    assert out["data"]["effective_limit"] == 20 and len(out["data"]["web"]) == 20
    assert emu.requests_for("tavily")[0].json["max_results"] == 20


def test_base_url_from_env_var_when_config_unset(tavily, emu: Emulator, monkeypatch) -> None:
    config.unset("web.tavily.base_url")
    monkeypatch.setenv("TAVILY_BASE_URL", emu.base_url("tavily"))
    assert tavily.search("env base")["success"] is True
    assert emu.requests_for("tavily")[0].path == "/tavily/search"


def test_extract_keeps_order_and_reports_failed_urls(tavily, emu: Emulator) -> None:
    good = emu.page_url("/site/articles/hello-world.html")
    bad = "https://unreachable.invalid/page"
    pages = tavily.extract([bad, good], format="markdown", include_raw=True)
    assert [p["url"] for p in pages] == [bad, good]
    assert pages[0]["error"] and pages[0]["content"] == ""
    assert pages[0]["error_code"] == "CONTENT_FETCH_FAILED"
    assert "Hello, World" in pages[1]["content"] and "error" not in pages[1]
    assert pages[1]["raw_content"] == pages[1]["content"]
    (req,) = emu.requests_for("tavily")
    assert req.path == "/tavily/extract" and req.json["urls"] == [bad, good]
    assert req.json["format"] == "markdown"


def test_extract_chunks_more_than_20_urls(tavily, emu: Emulator) -> None:
    urls = [f"https://example.com/doc/{i}" for i in range(25)]
    pages = tavily.extract(urls)
    assert [p["url"] for p in pages] == urls and all("error" not in p for p in pages)
    assert [len(r.json["urls"]) for r in emu.requests_for("tavily")] == [20, 5]


def test_crawl(tavily, emu: Emulator) -> None:
    out = tavily.crawl(emu.page_url("/site/"), depth=1, limit=3)
    assert 1 <= len(out["results"]) <= 3
    assert all(r["url"].startswith(emu.url) and r["content"] for r in out["results"])
    (req,) = emu.requests_for("tavily")
    assert req.path == "/tavily/crawl"
    assert req.json["max_depth"] == 1 and req.json["limit"] == 3 and req.json["url"] == emu.page_url("/site/")


def test_bad_key_is_auth_error_without_the_key(tavily, emu: Emulator) -> None:
    config.set_key("TAVILY_API_KEY", "tvly-" + "s3cr3t" * 4)
    emu.fail("tavily", "auth")
    with pytest.raises(ProviderAuthError) as info:
        tavily.search("q")
    assert info.value.status == 401 and "TAVILY_API_KEY" in str(info.value)
    assert "s3cr3t" not in str(info.value)


def test_without_a_key_crawl_is_not_configured(tavily, emu: Emulator) -> None:
    config.set_key("TAVILY_API_KEY", None)
    with pytest.raises(ProviderNotConfiguredError, match="TAVILY_API_KEY"):
        tavily.crawl("https://example.com/")
    assert emu.requests_for("tavily") == []


def test_keyless_mode_searches_and_extracts(tavily, emu: Emulator) -> None:
    config.set_key("TAVILY_API_KEY", None)
    assert tavily.is_keyless_available() and not tavily.is_available()
    assert len(tavily.search("tide tables", limit=2)["data"]["web"]) == 2
    pages = tavily.extract(["https://docs.example.com/a"])
    assert pages[0]["content"] and not pages[0].get("error")
    for req in emu.requests_for("tavily"):
        assert req.headers["x-tavily-access-mode"] == "keyless"
        assert "authorization" not in req.headers and "api_key" not in req.json


def test_keyless_rejection_carries_its_delay_in_the_body(tavily, emu: Emulator) -> None:
    config.set_key("TAVILY_API_KEY", None)
    emu.fail("tavily", "429", retry_after=30)
    with pytest.raises(RateLimitedError, match="keyless") as info:
        tavily.search("q")
    assert info.value.retry_after == 30.0 and info.value.retryable


@pytest.mark.parametrize("status", ["432", "433"])
def test_plan_limits_are_rate_limited_not_retryable(tavily, emu: Emulator, status: str) -> None:
    emu.fail("tavily", status)
    with pytest.raises(RateLimitedError) as info:
        tavily.search("q")
    assert info.value.status == int(status) and not info.value.retryable
    assert len(emu.requests_for("tavily")) == 1


def test_429_with_retry_after(tavily, emu: Emulator) -> None:
    emu.fail("tavily", "429", times=None, retry_after=3)
    with pytest.raises(RateLimitedError) as info:
        tavily.search("q")
    assert info.value.retry_after == 3.0 and info.value.retryable


def test_429_retried_once_then_success(tavily, emu: Emulator) -> None:
    config.set("web.max_retries", 1)
    emu.fail("tavily", "429", retry_after=0)
    assert tavily.search("q")["success"] is True
    assert len(emu.requests_for("tavily")) == 2


def test_400_is_invalid_input(tavily, emu: Emulator) -> None:
    emu.fail("tavily", "400")
    with pytest.raises(InvalidInputError, match="Bad request"):
        tavily.search("q")


def test_5xx_timeout_and_malformed_json(tavily, emu: Emulator) -> None:
    emu.fail("tavily", "503")
    with pytest.raises(ProviderUnavailableError):
        tavily.search("q")
    emu.fail("tavily", "malformed_json")
    with pytest.raises(ParseError):
        tavily.extract(["https://example.com/"])
    config.set("web.timeout", 0.3)
    emu.fail("tavily", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        tavily.crawl("https://example.com/")
