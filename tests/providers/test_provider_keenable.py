"""Keenable provider against the emulator: keyless public and keyed endpoints, fetch, every error class."""

from __future__ import annotations

from collections.abc import Iterator

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import (
    InvalidInputError,
    ParseError,
    ProviderAuthError,
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
    with Emulator(seed=7) as server:
        yield server


@pytest.fixture
def keenable(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, providers=["keenable"]):
        yield web_providers.get("keenable")


def test_keyless_by_default() -> None:
    load_plugins()
    provider = web_providers.get("keenable")
    assert provider is not None
    assert not provider.is_available() and provider.is_keyless_available()
    assert provider.supports_search() and provider.supports_extract() and not provider.supports_crawl()
    config.set_key("KEENABLE_API_KEY", "kn-key-123456")
    assert provider.is_available()


def test_keyless_search_uses_the_public_endpoint_with_the_title_header(keenable, emu: Emulator) -> None:
    out = keenable.search("vector databases", limit=3)
    hits = out["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3] and out["data"]["effective_limit"] == 3
    assert all(h["url"].startswith("https://") and h["title"] and h["description"] for h in hits)
    (req,) = emu.requests_for("keenable")
    assert req.method == "POST" and req.path == "/keenable/v1/search/public"
    assert req.headers["x-keenable-title"] == "hermes_nb" and "x-api-key" not in req.headers
    assert req.json == {"query": "vector databases", "count": 3}


def test_keyed_search_uses_the_keyed_endpoint(keenable, emu: Emulator) -> None:
    config.set_key("KEENABLE_API_KEY", "kn-key-123456")
    assert len(keenable.search("q", limit=2)["data"]["web"]) == 2
    (req,) = emu.requests_for("keenable")
    assert req.path == "/keenable/v1/search" and req.headers["x-api-key"] == "kn-key-123456"
    assert "x-keenable-title" not in req.headers


def test_keyed_failure_is_never_retried_keyless(keenable, emu: Emulator) -> None:
    config.set_key("KEENABLE_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="KEENABLE_API_KEY"):
        keenable.search("q")
    assert [r.path for r in emu.requests_for("keenable")] == ["/keenable/v1/search"]


def test_fetch_keyless_and_per_url_failures(keenable, emu: Emulator) -> None:
    good = emu.page_url("/site/")
    pages = keenable.extract([good, "https://gone.invalid/page"])
    assert pages[0]["url"] == good and pages[0]["content"] and "error" not in pages[0]
    assert pages[0]["metadata"]["source"] == "keenable"
    assert pages[1]["url"] == "https://gone.invalid/page" and pages[1]["error_code"] == "CONTENT_FETCH_FAILED"
    assert "indexed pages only" in pages[1]["error"]
    first, second = emu.requests_for("keenable")
    assert first.method == "GET" and first.path == "/keenable/v1/fetch/public"
    assert first.param("url") == good and first.headers["x-keenable-title"] == "hermes_nb"
    assert second.param("url") == "https://gone.invalid/page"


def test_fetch_keyed(keenable, emu: Emulator) -> None:
    config.set_key("KEENABLE_API_KEY", "kn-key-123456")
    (page,) = keenable.extract([emu.page_url("/site/")])
    assert page["content"]
    (req,) = emu.requests_for("keenable")
    assert req.path == "/keenable/v1/fetch" and req.headers["x-api-key"] == "kn-key-123456"


def test_keyless_rate_limit_is_not_retried_and_names_the_key(keenable, emu: Emulator) -> None:
    config.set("web.max_retries", 2)
    emu.fail("keenable", "429", retry_after=60)
    with pytest.raises(RateLimitedError) as info:
        keenable.search("q")
    assert info.value.retry_after == 60.0 and "KEENABLE_API_KEY" in str(info.value)
    assert len(emu.requests_for("keenable")) == 1


def test_rate_limit_before_any_page_fails_the_call_after_one_keeps_it(keenable, emu: Emulator) -> None:
    emu.fail("keenable", "429")
    with pytest.raises(RateLimitedError):
        keenable.extract([emu.page_url("/site/")])
    answers = iter([
        httpx.Response(200, json={"url": "https://a.example/", "title": "A", "content": "# A"}),
        httpx.Response(429, json={"detail": "Rate limit exceeded."}),
    ])
    http_client.set_transport(httpx.MockTransport(lambda request: next(answers)))
    try:
        pages = keenable.extract(["https://a.example/", "https://b.example/"])
    finally:
        http_client.set_transport(None)
    assert pages[0]["content"] == "# A"
    assert pages[1]["error_code"] == "PROVIDER_RATE_LIMITED" and "1,000 requests" in pages[1]["error"]


def test_missing_title_header_is_refused(keenable, emu: Emulator) -> None:
    resp = httpx.post(emu.base_url("keenable") + "/v1/search/public", json={"query": "x"})
    assert resp.status_code == 400 and "X-Keenable-Title" in resp.json()["detail"]


def test_empty_query_is_invalid_input(keenable) -> None:
    with pytest.raises(InvalidInputError, match="Keenable refused"):
        keenable.search("  ")


def test_disabled_key_403_is_auth(keenable, emu: Emulator) -> None:
    config.set_key("KEENABLE_API_KEY", "kn-key-123456")
    emu.fail("keenable", "403")
    with pytest.raises(ProviderAuthError):
        keenable.search("q")


@pytest.mark.parametrize("status", ["500", "503"])
def test_5xx_is_unavailable(keenable, emu: Emulator, status: str) -> None:
    emu.fail("keenable", status)
    with pytest.raises(ProviderUnavailableError):
        keenable.search("q")


def test_timeout_and_malformed_json(keenable, emu: Emulator) -> None:
    config.set("web.timeout", 0.3)
    emu.fail("keenable", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        keenable.search("q")
    emu.fail("keenable", "malformed_json")
    with pytest.raises(ParseError):
        keenable.search("q")
