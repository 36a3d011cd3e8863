"""OpenSERP provider against the emulator: the three answer shapes, engines, every error class."""

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
from hermes_nb.testing import Emulator, fake_module, use_emulator

OPENSERP_FORMAT = fake_module("openserp").OPENSERP_FORMAT


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=6) as server:
        yield server


@pytest.fixture
def openserp(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    with emu.state_lock:
        emu.state[OPENSERP_FORMAT] = "v2"
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, providers=["openserp"]):
        yield web_providers.get("openserp")


def test_registered_self_hosted_and_needs_a_server() -> None:
    load_plugins()
    provider = web_providers.get("openserp")
    assert provider is not None and provider.tier == "self_hosted"  # type: ignore[attr-defined]
    assert not provider.is_available()
    with pytest.raises(ProviderNotConfiguredError, match="web.openserp.base_url"):
        provider.search("q")
    config.set("web.openserp.base_url", "not a url")
    assert not provider.is_available()
    config.set_key("OPENSERP_API_KEY", "hosted-key-123456")
    assert provider.is_available()


def test_v2_envelope_request_and_mapping(openserp, emu: Emulator) -> None:
    out = openserp.search("rust borrow checker", limit=4)
    hits = out["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3, 4] and out["data"]["effective_limit"] == 4
    assert all(h["url"].startswith("https://") and h["description"] for h in hits)
    (req,) = emu.requests_for("openserp")
    assert req.method == "GET" and req.path == "/openserp/google/search"
    assert req.query == {"text": ["rust borrow checker"], "limit": ["4"]}
    assert "authorization" not in req.headers and "x-api-key" not in req.headers


def test_v0_bare_array_gives_the_same_hits(openserp, emu: Emulator) -> None:
    v2 = openserp.search("same query", limit=3)["data"]["web"]
    with emu.state_lock:
        emu.state[OPENSERP_FORMAT] = "v0"
    v0 = openserp.search("same query", limit=3)["data"]["web"]
    assert [(h["url"], h["title"], h["description"]) for h in v0] == [
        (h["url"], h["title"], h["description"]) for h in v2
    ]


def test_engine_setting_and_bad_engine(openserp, emu: Emulator) -> None:
    config.set("web.openserp.engine", "Bing")
    openserp.search("q")
    assert emu.requests_for("openserp")[0].path == "/openserp/bing/search"
    config.set("web.openserp.engine", "altavista")
    with pytest.raises(InvalidInputError, match="altavista"):
        openserp.search("q")


def test_hosted_endpoint_with_key_reads_organic_results(openserp, emu: Emulator) -> None:
    config.unset("web.openserp.base_url")
    config.set_key("OPENSERP_API_KEY", "hosted-key-123456")
    sent: list[httpx.Request] = []

    def hosted(request: httpx.Request) -> httpx.Response:
        sent.append(request)
        organic = [{"title": "A", "link": "https://a.example/", "snippet": "first"}, {"title": "no link"}]
        return httpx.Response(200, json={"organic_results": organic})

    http_client.set_transport(httpx.MockTransport(hosted))
    try:
        out = openserp.search("hosted", limit=2)
    finally:
        http_client.set_transport(None)
    assert out["data"]["web"] == [
        {"title": "A", "url": "https://a.example/", "description": "first", "position": 1}
    ]
    (req,) = sent
    assert str(req.url).startswith("https://api.openserp.com/search?")
    assert req.url.params["q"] == "hosted" and req.url.params["num"] == "2"
    assert req.headers["authorization"] == "Bearer hosted-key-123456"
    assert req.headers["x-api-key"] == "hosted-key-123456"


def test_hosted_shape_through_the_emulator(openserp, emu: Emulator) -> None:
    config.set_key("OPENSERP_API_KEY", "emu-openserp-key")
    resp = httpx.get(emu.base_url("openserp") + "/search", params={"q": "x", "num": 2},
                     headers={"x-api-key": "emu-openserp-key"})
    assert [r["position"] for r in resp.json()["organic_results"]] == [1, 2]


def test_empty_answer_is_success(openserp, emu: Emulator) -> None:
    emu.fail("openserp", "empty")
    assert openserp.search("nothing")["data"]["web"] == []


def test_object_without_results_is_parse_error(openserp) -> None:
    http_client.set_transport(httpx.MockTransport(lambda r: httpx.Response(200, json={"meta": {}})))
    try:
        with pytest.raises(ParseError, match="neither"):
            openserp.search("q")
    finally:
        http_client.set_transport(None)


def test_bad_key_is_auth_failure(openserp, emu: Emulator) -> None:
    config.set_key("OPENSERP_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="OPENSERP_API_KEY"):
        openserp.search("q")


def test_blocked_is_unavailable_and_captcha_is_rate_limited(openserp, emu: Emulator) -> None:
    emu.fail("openserp", "403")
    with pytest.raises(ProviderUnavailableError, match="blocked"):
        openserp.search("q")
    emu.fail("openserp", "429", retry_after=3)
    with pytest.raises(RateLimitedError, match="captcha_detected"):
        openserp.search("q")


@pytest.mark.parametrize("status", ["502", "503", "504"])
def test_engine_failures_are_unavailable(openserp, emu: Emulator, status: str) -> None:
    emu.fail("openserp", status)
    with pytest.raises(ProviderUnavailableError):
        openserp.search("q")


def test_v0_plain_text_503_is_unavailable(openserp, emu: Emulator) -> None:
    with emu.state_lock:
        emu.state[OPENSERP_FORMAT] = "v0"
    emu.fail("openserp", "503")
    with pytest.raises(ProviderUnavailableError, match="captcha or engine failure"):
        openserp.search("q")


def test_empty_query_is_invalid_input(openserp) -> None:
    with pytest.raises(InvalidInputError, match="EMPTY_QUERY"):
        openserp.search(" ")


def test_timeout_and_malformed_json(openserp, emu: Emulator) -> None:
    config.set("web.timeout", 0.3)
    emu.fail("openserp", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        openserp.search("q")
    emu.fail("openserp", "malformed_json")
    with pytest.raises(ParseError):
        openserp.search("q")


def test_explicit_and_auto_selection(openserp, emu: Emulator) -> None:
    import hermes_nb as hn

    config.set("cache.mode", "off")
    assert hn.search("chosen", limit=2, backend="openserp").provider == "openserp"
    auto = hn.search("self-hosted beats keyless", limit=2)
    assert auto.provider == "openserp" and [a.provider for a in auto.attempts] == ["openserp"]
