"""Firecrawl on the emulator: search, scrape, crawl jobs, self-hosted, keyless MCP, every error class."""

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
from hermes_nb.net.http_client import get_client
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=13) as server:
        yield server


@pytest.fixture
def firecrawl(emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    monkeypatch.delenv("FIRECRAWL_API_URL", raising=False)
    emu.reset_log()
    emu.clear_faults()
    emu.state.pop("firecrawl.self_hosted", None)
    emu.state.pop("firecrawl.polls_to_complete", None)
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, ["firecrawl"]):
        config.set_key("FIRECRAWL_API_KEY", "fc-emu-key")
        provider = web_providers.get("firecrawl")
        monkeypatch.setattr(provider, "poll_interval_s", 0.0)
        yield provider


def test_capabilities_tiers_and_keyless(firecrawl) -> None:
    assert firecrawl.supports_search() and firecrawl.supports_extract() and firecrawl.supports_crawl()
    assert firecrawl.is_available() and firecrawl.tier == "commercial" and firecrawl.is_keyless_available()
    config.set_key("FIRECRAWL_API_KEY", None)
    assert firecrawl.is_available() and firecrawl.tier == "self_hosted"  # a base URL is configured
    config.unset("web.firecrawl.base_url")
    assert not firecrawl.is_available() and firecrawl.is_keyless_available()


def test_search_request_and_mapping(firecrawl, emu: Emulator) -> None:
    hits = firecrawl.search("web scraping", limit=3)["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3]
    assert all(h["url"] and h["title"] and h["description"] for h in hits)
    (req,) = emu.requests_for("firecrawl")
    assert req.method == "POST" and req.path == "/firecrawl/v2/search"
    assert req.headers["authorization"] == "Bearer fc-emu-key"
    assert req.json == {"query": "web scraping", "limit": 3}


def test_scrape_is_extract_with_per_url_errors(firecrawl, emu: Emulator) -> None:
    urls = ["https://docs.example.com/a", "https://down.invalid/x"]
    pages = firecrawl.extract(urls)
    assert [p["url"] for p in pages] == urls
    assert pages[0]["content"].startswith("# ") and pages[0]["title"] and not pages[0].get("error")
    assert pages[1]["error"] and pages[1]["error_code"] == "CONTENT_FETCH_FAILED"
    reqs = emu.requests_for("firecrawl")
    assert [r.path for r in reqs] == ["/firecrawl/v2/scrape"] * 2
    assert reqs[0].json == {"url": urls[0], "formats": ["markdown"], "onlyMainContent": True}


def test_site_refused_is_a_per_url_error(firecrawl, emu: Emulator) -> None:
    emu.fail("/firecrawl/v2/scrape", "403")
    pages = firecrawl.extract(["https://social.example.com/", "https://docs.example.com/"])
    assert "refused this site" in pages[0]["error"] and pages[1]["content"]


def test_crawl_polls_pages_and_follows_next(firecrawl, emu: Emulator) -> None:
    emu.state["firecrawl.polls_to_complete"] = 3
    out = firecrawl.crawl("https://docs.example.com/guide", limit=4, depth=2)
    urls = [p["url"] for p in out["results"]]
    assert urls[0] == "https://docs.example.com/guide" and len(urls) == 4
    assert all(p["content"] for p in out["results"])
    reqs = emu.requests_for("firecrawl")
    start = reqs[0]
    assert start.method == "POST" and start.path == "/firecrawl/v2/crawl"
    assert start.json["limit"] == 4 and start.json["maxDiscoveryDepth"] == 2
    polls = [r for r in reqs[1:] if r.method == "GET"]
    assert len(polls) == 4  # 3 status polls, then the `next` page
    assert polls[-1].param("skip") == "2"


def test_crawl_deadline(firecrawl, emu: Emulator) -> None:
    emu.state["firecrawl.polls_to_complete"] = 1000
    config.set("web.firecrawl.crawl_timeout", 0)
    with pytest.raises(TimeoutError_, match="web.firecrawl.crawl_timeout"):
        firecrawl.crawl("https://docs.example.com/")
    cancels = [r for r in emu.requests_for("firecrawl") if r.method == "DELETE"]
    assert [r.path.rsplit("/", 2)[-2] for r in cancels] == ["crawl"]  # the job was cancelled, once


def test_self_hosted_needs_no_key(firecrawl, emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    emu.state["firecrawl.self_hosted"] = True
    config.set_key("FIRECRAWL_API_KEY", None)
    base = config.get("web.firecrawl.base_url")
    config.unset("web.firecrawl.base_url")
    monkeypatch.setenv("FIRECRAWL_API_URL", base)
    assert firecrawl.is_available() and firecrawl.tier == "self_hosted"
    assert len(firecrawl.search("q", limit=2)["data"]["web"]) == 2
    (req,) = emu.requests_for("firecrawl")
    assert req.path == "/firecrawl/v2/search" and "authorization" not in req.headers


def test_keyless_search_and_scrape_through_mcp(firecrawl, emu: Emulator) -> None:
    config.set_key("FIRECRAWL_API_KEY", None)
    config.unset("web.firecrawl.base_url")
    hits = firecrawl.search("open data", limit=2)["data"]["web"]
    assert len(hits) == 2 and hits[0]["url"]
    calls = [r for r in emu.requests_for("firecrawl") if (r.json or {}).get("method") == "tools/call"]
    assert calls[0].path == "/firecrawl/v2/mcp"
    assert calls[0].json["params"] == {
        "name": "firecrawl_search",
        "arguments": {"query": "open data", "limit": 2},
    }
    pages = firecrawl.extract(["https://docs.example.com/a", "https://down.invalid/"])
    assert pages[0]["content"] and pages[1]["error"]
    with pytest.raises(ProviderNotConfiguredError, match="FIRECRAWL_API_KEY"):
        firecrawl.crawl("https://docs.example.com/")


def test_429_delay_only_in_the_body_is_honoured(firecrawl, emu: Emulator) -> None:
    emu.fail("firecrawl", "429", retry_after=7)
    with pytest.raises(RateLimitedError) as info:
        firecrawl.search("q")
    assert info.value.retry_after == 7.0 and info.value.retryable


def test_429_body_delay_drives_the_retry_wait(
    firecrawl, emu: Emulator, monkeypatch: pytest.MonkeyPatch
) -> None:
    config.set("web.max_retries", 1)
    waits: list[float] = []
    monkeypatch.setattr(get_client("firecrawl"), "_sleep", waits.append)
    emu.fail("firecrawl", "429", retry_after=5)
    assert firecrawl.search("q")["success"] is True
    assert waits == [5.0] and len(emu.requests_for("firecrawl")) == 2


def test_auth_credits_bad_request(firecrawl, emu: Emulator) -> None:
    config.set_key("FIRECRAWL_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="FIRECRAWL_API_KEY") as info:
        firecrawl.search("q")
    assert emu.BAD_KEY not in str(info.value)
    config.set_key("FIRECRAWL_API_KEY", "fc-emu-key")
    emu.fail("firecrawl", "402")
    with pytest.raises(RateLimitedError) as no_credit:
        firecrawl.search("q")
    assert not no_credit.value.retryable
    emu.fail("firecrawl", "400")
    with pytest.raises(InvalidInputError):
        firecrawl.search("q")


def test_5xx_malformed_timeout(firecrawl, emu: Emulator) -> None:
    emu.fail("firecrawl", "503")
    with pytest.raises(ProviderUnavailableError):
        firecrawl.search("q")
    emu.fail("firecrawl", "malformed_json")
    with pytest.raises(ParseError):
        firecrawl.search("q")
    config.set("web.timeout", 0.3)
    emu.fail("firecrawl", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        firecrawl.search("q")


def test_explicit_crawl_through_the_sdk(firecrawl) -> None:
    import hermes_nb as hn

    res = hn.crawl("https://docs.example.com/", limit=2, backend="firecrawl")
    assert res.provider == "firecrawl" and len(res.pages) == 2


def test_auto_mode_crawls_with_firecrawl_when_only_it_is_keyed(firecrawl) -> None:
    import hermes_nb as hn

    res = hn.crawl("https://docs.example.com/", limit=2)
    assert res.provider == "firecrawl" and len(res.pages) == 2
