"""SearXNG provider against the emulator: URL config, score order, paging, JSON-disabled 403, errors."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from hermes_nb import config
from hermes_nb.errors import (
    InvalidInputError,
    NetworkError,
    ParseError,
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
    with Emulator(seed=7) as server:
        yield server


@pytest.fixture
def searxng(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    emu.searxng_json_enabled = True
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu):
        yield web_providers.get("searxng")


def test_availability_follows_the_configured_url(monkeypatch) -> None:
    load_plugins()
    provider = web_providers.get("searxng")
    assert provider is not None and provider.tier == "self_hosted"  # type: ignore[attr-defined]  # plugin attr
    assert not provider.is_available()
    monkeypatch.setenv("SEARXNG_URL", "ftp://nope")
    assert not provider.is_available()
    monkeypatch.setenv("SEARXNG_URL", "http://localhost:8888")
    assert provider.is_available()
    config.set("web.searxng.base_url", "not a url")  # config wins over the env var
    assert not provider.is_available()
    with pytest.raises(ProviderNotConfiguredError, match="SEARXNG_URL"):
        provider.search("q")


def test_request_and_score_order(searxng, emu: Emulator) -> None:
    out = searxng.search("kernel plugins", limit=5)
    hits = out["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3, 4, 5]
    (req,) = emu.requests_for("searxng")
    assert req.method == "GET" and req.path == "/searxng/search"
    assert req.query["q"] == ["kernel plugins"] and req.query["format"] == ["json"]
    assert req.query["pageno"] == ["1"]
    assert req.headers["user-agent"].startswith("hermes_nb/")
    # the emulator shuffles results; only the score orders them (score = 10 / (rank + 1))
    assert hits[0]["url"] == sorted(_raw(emu, "kernel plugins"), key=lambda r: -r["score"])[0]["url"]


def _raw(emu: Emulator, query: str) -> list[dict]:
    import httpx

    answer = httpx.get(emu.base_url("searxng") + "/search", params={"q": query, "format": "json"})
    return answer.json()["results"]


def test_scores_descending_within_a_page(searxng, emu: Emulator) -> None:
    hits = searxng.search("graph cache", limit=10)["data"]["web"]
    raw = {r["url"]: r["score"] for r in _raw(emu, "graph cache")}
    scores = [raw[h["url"]] for h in hits]
    assert scores == sorted(scores, reverse=True) and len(hits) == 10


def test_big_limit_reads_more_pages(searxng, emu: Emulator) -> None:
    hits = searxng.search("many pages", limit=25)["data"]["web"]
    assert len(hits) == 25 and len({h["url"] for h in hits}) == 25
    assert [r.query["pageno"] for r in emu.requests_for("searxng")] == [["1"], ["2"], ["3"]]


def test_base_url_that_already_ends_in_search(searxng, emu: Emulator) -> None:
    config.set("web.searxng.base_url", emu.base_url("searxng") + "/search")
    assert searxng.search("q", limit=1)["success"] is True
    assert emu.requests_for("searxng")[0].path == "/searxng/search"


def test_empty_is_success(searxng, emu: Emulator) -> None:
    emu.fail("searxng", "empty")
    assert searxng.search("nothing") == {"success": True, "data": {"web": []}}


def test_json_disabled_403_is_a_configuration_error(searxng, emu: Emulator) -> None:
    emu.searxng_json_enabled = False
    with pytest.raises(InvalidInputError) as info:
        searxng.search("q")
    assert "settings.yml" in str(info.value) and "json" in str(info.value)
    assert info.value.status == 403


def test_400_429_5xx_timeout_malformed(searxng, emu: Emulator) -> None:
    with pytest.raises(InvalidInputError, match="No query"):
        searxng.search("   ")
    emu.fail("searxng", "429", retry_after=2)
    with pytest.raises(RateLimitedError) as info:
        searxng.search("q")
    assert info.value.retry_after == 2.0
    emu.fail("searxng", "500")
    with pytest.raises(ProviderUnavailableError):
        searxng.search("q")
    emu.fail("searxng", "malformed_json")
    with pytest.raises(ParseError):
        searxng.search("q")
    config.set("web.timeout", 0.3)
    emu.fail("searxng", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        searxng.search("q")
    emu.fail("searxng", "reset")
    with pytest.raises(NetworkError):
        searxng.search("q")
