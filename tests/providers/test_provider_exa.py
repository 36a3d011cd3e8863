"""Exa provider against the emulator: search, contents (per-URL statuses), keyless MCP, every error class."""

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
    with Emulator(seed=7) as server:
        yield server


@pytest.fixture
def exa(emu: Emulator) -> Iterator[object]:
    emu.reset_log()
    emu.clear_faults()
    load_plugins()
    config.set("web.max_retries", 0)
    with use_emulator(emu, ["exa"]):
        config.set_key("EXA_API_KEY", "emu-exa-key")
        yield web_providers.get("exa")


def test_capabilities_availability_and_keyless(exa) -> None:
    assert exa.supports_search() and exa.supports_extract() and not exa.supports_crawl()
    assert exa.is_available() and exa.is_keyless_available()
    config.set_key("EXA_API_KEY", None)
    assert not exa.is_available() and exa.is_keyless_available()


def test_search_request_and_mapping(exa, emu: Emulator) -> None:
    out = exa.search("vector databases", limit=3)
    hits = out["data"]["web"]
    assert [h["position"] for h in hits] == [1, 2, 3]
    assert all(h["url"] and h["title"] and h["description"] for h in hits)
    (req,) = emu.requests_for("exa")
    assert req.method == "POST" and req.path == "/exa/search"
    assert req.headers["x-api-key"] == "emu-exa-key" and "authorization" not in req.headers
    assert req.json == {
        "query": "vector databases",
        "type": "auto",
        "numResults": 3,
        "contents": {"highlights": True},
    }


@pytest.mark.parametrize(
    ("kind", "contents", "sent"),
    [
        ("neural", "text", {"text": {"maxCharacters": 2000}}),
        ("keyword", "none", None),
        ("fast", "highlights", {"highlights": True}),
    ],
)
def test_search_type_and_contents_settings(exa, emu: Emulator, kind: str, contents: str, sent) -> None:
    config.set("web.exa.search_type", kind)
    config.set("web.exa.contents", contents)
    hits = exa.search("q", limit=2)["data"]["web"]
    (req,) = emu.requests_for("exa")
    assert req.json["type"] == kind and req.json.get("contents") == sent
    if contents == "text":
        assert hits[0]["description"].startswith("Q:")


def test_bad_setting_is_invalid_input(exa) -> None:
    with pytest.raises(InvalidInputError, match="web.exa.search_type must be one of auto, neural"):
        config.set("web.exa.search_type", "psychic")  # refused when set: the manifest's choices
    config.save({"web.exa.search_type": "psychic"})  # a hand-edited config.yaml still reaches the provider
    with pytest.raises(InvalidInputError, match="web.exa.search_type"):
        exa.search("q")


def test_contents_statuses_become_per_url_errors(exa, emu: Emulator) -> None:
    urls = ["https://docs.example.com/a", "https://gone.invalid/x", "https://blog.example.org/b"]
    pages = exa.extract(urls)
    assert [p["url"] for p in pages] == urls
    assert pages[0]["content"] and not pages[0].get("error")
    assert "CRAWL_NOT_FOUND" in pages[1]["error"] and pages[1]["error_code"] == "CONTENT_FETCH_FAILED"
    assert pages[2]["content"]
    (req,) = emu.requests_for("exa")
    assert req.path == "/exa/contents" and req.json == {"urls": urls, "text": True}


def test_keyless_search_and_extract_through_mcp(exa, emu: Emulator) -> None:
    config.set_key("EXA_API_KEY", None)
    hits = exa.search("open data", limit=4)["data"]["web"]
    assert len(hits) == 4 and all(h["url"].startswith("https://") and h["title"] for h in hits)
    init, note, call = emu.requests_for("exa")
    assert {r.path for r in (init, note, call)} == {"/exa/mcp"}
    assert init.json["method"] == "initialize" and note.json["method"] == "notifications/initialized"
    assert call.json["params"] == {
        "name": "web_search_exa",
        "arguments": {"query": "open data", "numResults": 4},
    }
    assert "x-api-key" not in call.headers and call.headers["mcp-session-id"]
    emu.reset_log()
    pages = exa.extract(["https://docs.example.com/a", "https://gone.invalid/"])
    assert pages[0]["content"].startswith("# ") and not pages[0].get("error")
    assert pages[1]["error"] and pages[1]["error_code"] == "CONTENT_FETCH_FAILED"


def test_keyless_rate_limit_is_rate_limited(exa, emu: Emulator) -> None:
    config.set_key("EXA_API_KEY", None)
    emu.fail("/exa/mcp", "429", retry_after=2)
    with pytest.raises(RateLimitedError) as info:
        exa.search("q")
    assert info.value.retry_after == 2.0


def test_bad_key_is_auth_error(exa, emu: Emulator) -> None:
    config.set_key("EXA_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="EXA_API_KEY") as info:
        exa.search("q")
    assert emu.BAD_KEY not in str(info.value)


def test_402_credits_not_retryable(exa, emu: Emulator) -> None:
    emu.fail("exa", "402")
    with pytest.raises(RateLimitedError) as info:
        exa.search("q")
    assert not info.value.retryable and "NO_MORE_CREDITS" in str(info.value)


def test_400_invalid_429_5xx_malformed_timeout(exa, emu: Emulator) -> None:
    emu.fail("exa", "400")
    with pytest.raises(InvalidInputError):
        exa.search("q")
    emu.fail("exa", "429", retry_after=1)
    with pytest.raises(RateLimitedError):
        exa.search("q")
    emu.fail("exa", "502")
    with pytest.raises(ProviderUnavailableError):
        exa.search("q")
    emu.fail("exa", "malformed_json")
    with pytest.raises(ParseError):
        exa.extract(["https://docs.example.com/"])
    config.set("web.timeout", 0.3)
    emu.fail("exa", "timeout", seconds=1.0)
    with pytest.raises(TimeoutError_):
        exa.search("q")


def test_auto_mode_wins_when_only_exa_is_keyed(exa) -> None:
    import hermes_nb as hn

    res = hn.search("solar panels", limit=2)
    assert res.provider == "exa" and len(res) == 2
