"""xAI web search on the emulator: the Responses ``web_search`` tool, citations as results, domain filters."""

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
    with Emulator(seed=17) as server:
        yield server


@pytest.fixture
def xai(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, ["xai"]):
        yield web_providers.get("xai")


def test_registered_as_a_web_provider_beside_the_image_one(xai, emu: Emulator) -> None:
    from hermes_nb.plugins.registry import image_providers

    assert xai.supports_search() and not xai.supports_extract() and xai.is_available()
    assert image_providers.get("xai") is not xai
    assert config.get("web.xai.base_url") == config.get("image_gen.xai.base_url") == emu.base_url("xai")


def test_request_shape(xai, emu: Emulator) -> None:
    xai.search("fusion energy", limit=3)
    (req,) = emu.requests_for("xai")
    assert req.method == "POST" and req.path == "/xai/v1/responses"
    assert req.headers["authorization"] == "Bearer emu-xai-key"
    assert req.json["model"] == "grok-4-fast"
    assert req.json["tools"] == [{"type": "web_search"}]
    (message,) = req.json["input"]
    assert message["role"] == "user" and message["content"].endswith("\nfusion energy")
    assert "search_parameters" not in req.json  # Live Search is retired


def test_citations_become_model_generated_results(xai) -> None:
    out = xai.search("fusion energy", limit=3)
    data = out["data"]
    hits = data["web"]
    assert [h["position"] for h in hits] == [1, 2, 3]
    assert all(h["url"].startswith("https://") and h["title"] and h["description"] for h in hits)
    assert all(h["metadata"] == {"model_generated": True, "source": "xai"} for h in hits)
    assert data["model_generated"] is True and data["answer"].startswith("Here is what the web says")


def test_sdk_result_keeps_the_mark_and_renders_a_badge(xai) -> None:
    import hermes_nb as hn

    res = hn.search("fusion energy", limit=2, backend="xai")
    assert res.provider == "xai" and all(hit.model_generated for hit in res)
    bundle = res._repr_mimebundle_()
    assert "model-generated" in bundle["text/html"] and "[model-generated]" in bundle["text/plain"]
    assert res.envelope["data"]["web"][0]["metadata"]["model_generated"] is True


def test_plain_hits_have_no_badge() -> None:
    from hermes_nb.web.results import SearchHit, SearchResult

    res = SearchResult(query="q", hits=[SearchHit("t", "https://a.example/", "d", 1)], provider="p")
    assert "model-generated" not in res._repr_mimebundle_()["text/html"]
    assert "metadata" not in res.hits[0].to_dict()


def test_allowed_and_excluded_domains(xai, emu: Emulator) -> None:
    config.set("web.xai.allowed_domains", ["arxiv.org", "nature.com"])
    hits = xai.search("fusion", limit=4)["data"]["web"]
    assert {h["url"].split("/")[2] for h in hits} <= {"arxiv.org", "nature.com"}
    assert emu.requests_for("xai")[-1].json["tools"] == [
        {"type": "web_search", "allowed_domains": ["arxiv.org", "nature.com"]}
    ]
    config.set("web.xai.allowed_domains", [])
    config.set("web.xai.excluded_domains", ["docs.example.com", "blog.example.org"])
    hits = xai.search("fusion", limit=4)["data"]["web"]
    assert not {h["url"].split("/")[2] for h in hits} & {"docs.example.com", "blog.example.org"}
    config.set("web.xai.allowed_domains", ["a.com"])
    with pytest.raises(InvalidInputError, match="not both"):
        xai.search("q")
    config.set("web.xai.excluded_domains", [])
    config.set("web.xai.allowed_domains", [f"d{i}.com" for i in range(6)])
    with pytest.raises(InvalidInputError, match="at most 5"):
        xai.search("q")


def test_no_results_is_an_empty_success(xai, emu: Emulator) -> None:
    emu.fail("xai", "empty")
    out = xai.search("q")
    assert out["success"] is True and out["data"]["web"] == []


def test_error_inside_http_200_is_a_failure(xai, monkeypatch: pytest.MonkeyPatch) -> None:
    import httpx

    from hermes_nb.net.http_client import set_transport

    set_transport(
        httpx.MockTransport(lambda req: httpx.Response(200, json={"error": "internal: tool failed"}))
    )
    with pytest.raises(ProviderUnavailableError, match="tool failed"):
        xai.search("q")


def test_missing_and_bad_key(xai, emu: Emulator) -> None:
    config.set_key("XAI_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="XAI_API_KEY") as info:
        xai.search("q")
    assert emu.BAD_KEY not in str(info.value)
    config.set_key("XAI_API_KEY", None)
    assert not xai.is_available()
    with pytest.raises(ProviderNotConfiguredError, match="XAI_API_KEY"):
        xai.search("q")


def test_429_5xx_malformed_timeout(xai, emu: Emulator) -> None:
    emu.fail("xai", "429", retry_after=4)
    with pytest.raises(RateLimitedError) as info:
        xai.search("q")
    assert info.value.retry_after == 4.0
    emu.fail("xai", "503")
    with pytest.raises(ProviderUnavailableError):
        xai.search("q")
    emu.fail("xai", "malformed_json")
    with pytest.raises(ParseError):
        xai.search("q")
    config.set("web.timeout", 0.3)
    emu.fail("xai", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        xai.search("q")


def test_auto_mode_searches_with_xai_when_only_it_is_keyed(xai) -> None:
    import hermes_nb as hn

    res = hn.search("fusion energy", limit=2)
    assert res.provider == "xai" and all(hit.model_generated for hit in res)
