"""Parallel provider on the emulator: search and extract (objective, mode), keyless MCP, every error class."""

from __future__ import annotations

from collections.abc import Iterator

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
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import web_providers
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=11) as server:
        yield server


@pytest.fixture
def parallel(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, ["parallel"]):
        config.set_key("PARALLEL_API_KEY", "emu-parallel-key")
        yield web_providers.get("parallel")


def test_capabilities_availability_and_keyless(parallel) -> None:
    assert parallel.supports_search() and parallel.supports_extract() and not parallel.supports_crawl()
    assert parallel.is_available() and parallel.is_keyless_available()
    config.set_key("PARALLEL_API_KEY", None)
    assert not parallel.is_available() and parallel.is_keyless_available()


def test_search_request_and_mapping(parallel, emu: Emulator) -> None:
    hits = parallel.search("battery recycling", limit=3)["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3]
    assert all(h["url"] and h["title"] and h["description"] for h in hits)
    (req,) = emu.requests_for("parallel")
    assert req.method == "POST" and req.path == "/parallel/v1/search"
    assert req.headers["x-api-key"] == "emu-parallel-key"
    assert req.json == {
        "objective": "battery recycling",
        "search_queries": ["battery recycling"],
        "mode": "fast",
        "advanced_settings": {"max_results": 3},
    }


def test_objective_and_mode_settings(parallel, emu: Emulator) -> None:
    config.set("web.parallel.mode", "advanced")
    config.set("web.parallel.objective", "Find recent peer-reviewed work")
    parallel.search("perovskite", limit=2)
    (req,) = emu.requests_for("parallel")
    assert req.json["mode"] == "advanced" and req.json["objective"] == "Find recent peer-reviewed work"
    with pytest.raises(InvalidInputError, match="web.parallel.mode must be one of turbo, fast"):
        config.set("web.parallel.mode", "ludicrous")  # refused when set: the manifest's choices
    config.unset("web.parallel.mode")
    config.save({"web.parallel.mode": "ludicrous"})  # a hand-edited config.yaml still reaches the provider
    with pytest.raises(InvalidInputError, match="web.parallel.mode"):
        parallel.search("q")


def test_extract_keeps_per_url_errors(parallel, emu: Emulator) -> None:
    urls = ["https://docs.example.com/a", "https://down.invalid/", "https://blog.example.org/b"]
    pages = parallel.extract(urls, objective="pricing")
    assert [p["url"] for p in pages] == urls
    assert pages[0]["content"].startswith("# ") and not pages[0].get("error")
    assert "fetch_error" in pages[1]["error"] and pages[1]["error_code"] == "CONTENT_FETCH_FAILED"
    (req,) = emu.requests_for("parallel")
    assert req.path == "/parallel/v1/extract"
    assert req.json == {"urls": urls, "advanced_settings": {"full_content": True}, "objective": "pricing"}


def test_extract_chunks_more_than_20_urls(parallel, emu: Emulator) -> None:
    urls = [f"https://docs.example.com/p{i}" for i in range(23)]
    pages = parallel.extract(urls)
    assert len(pages) == 23 and not any(p.get("error") for p in pages)
    assert [len(r.json["urls"]) for r in emu.requests_for("parallel")] == [20, 3]


def test_keyless_search_and_extract_through_mcp(parallel, emu: Emulator) -> None:
    config.set_key("PARALLEL_API_KEY", None)
    hits = parallel.search("open data", limit=4)["data"]["web"]
    assert len(hits) == 4 and all(h["url"] for h in hits)
    calls = [r for r in emu.requests_for("parallel") if (r.json or {}).get("method") == "tools/call"]
    assert [r.path for r in calls] == ["/parallel/mcp"]
    assert calls[0].json["params"] == {
        "name": "web_search",
        "arguments": {"objective": "open data", "search_queries": ["open data"]},
    }
    assert all("x-api-key" not in r.headers for r in emu.requests_for("parallel"))
    pages = parallel.extract(["https://docs.example.com/a", "https://down.invalid/"])
    assert pages[0]["content"] and pages[1]["error"]


def test_bad_key_is_auth_error(parallel, emu: Emulator) -> None:
    config.set_key("PARALLEL_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="PARALLEL_API_KEY") as info:
        parallel.search("q")
    assert emu.BAD_KEY not in str(info.value)


def test_402_credit_not_retryable_and_422_invalid(parallel, emu: Emulator) -> None:
    emu.fail("parallel", "402")
    with pytest.raises(RateLimitedError) as info:
        parallel.search("q")
    assert not info.value.retryable
    emu.fail("parallel", "422")
    with pytest.raises(InvalidInputError):
        parallel.search("q")


def test_429_5xx_malformed_timeout(parallel, emu: Emulator) -> None:
    emu.fail("parallel", "429", retry_after=2)
    with pytest.raises(RateLimitedError) as info:
        parallel.search("q")
    assert info.value.retry_after == 2.0 and info.value.retryable
    emu.fail("parallel", "500")
    with pytest.raises(ProviderUnavailableError):
        parallel.extract(["https://docs.example.com/"])
    emu.fail("parallel", "malformed_json")
    with pytest.raises(ParseError):
        parallel.search("q")
    config.set("web.timeout", 0.3)
    emu.fail("parallel", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        parallel.search("q")


def test_explicit_backend(parallel) -> None:
    import hermes_nb as hn

    res = hn.search("tidal power", limit=2, backend="parallel")
    assert res.provider == "parallel" and len(res) == 2


def test_base_url_from_the_vendor_env_var(parallel, emu: Emulator, monkeypatch: pytest.MonkeyPatch) -> None:
    base = config.get("web.parallel.base_url")
    config.unset("web.parallel.base_url")
    monkeypatch.setenv("PARALLEL_BASE_URL", base)
    assert len(parallel.search("q", limit=1)["data"]["web"]) == 1
    assert emu.requests_for("parallel")[0].path == "/parallel/v1/search"


def test_auto_mode_extracts_with_parallel_when_only_it_is_keyed(parallel) -> None:
    import hermes_nb as hn

    res = hn.extract(["https://docs.example.com/auto"])
    assert res.provider == "parallel" and res.pages[0].content
