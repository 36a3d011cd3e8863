"""KeyedHttpProvider and the web helpers: a keyed provider written as declarations (mock transport)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import (
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderNotConfiguredError,
    RateLimitedError,
)
from hermes_nb.net.http_client import set_transport
from hermes_nb.provider_api import (
    KeyedHttpProvider,
    WebSearchProvider,
    error_detail,
    extract_each,
    failed_page,
    search_envelope,
    web_hits,
)


class Acme(KeyedHttpProvider):
    name = "acme"
    display_name = "Acme Search"
    vendor = "Acme"
    key_env = "ACME_API_KEY"
    key_header = "X-Acme-Key"
    docs_url = "https://acme.example/keys"
    default_base_url = "https://api.acme.example/"
    base_url_env = "ACME_BASE_URL"
    max_limit = 10
    price_note = "paid"
    tagline = "A made-up index."

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        self.require_key()
        count = self.clamp(limit)
        body = self.get_json("/v1/search", params={"q": query, "n": count})
        return search_envelope(web_hits(body.get("items"), count, url="link", description="snippet"), count)


class Server:
    """A mock vendor: records requests, answers a canned response per path or a result list."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.answers: dict[str, httpx.Response] = {}

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.answers.get(request.url.path) or httpx.Response(200, json={"items": [
            {"link": "https://a.example/", "title": "A", "snippet": "first"},
            {"link": "https://a.example/", "title": "A again"},  # a repeated URL is dropped
            {"title": "no link"},
            "not an object",
            {"link": "https://b.example/"},
        ]})


@pytest.fixture
def server() -> Iterator[Server]:
    vendor = Server()
    set_transport(httpx.MockTransport(vendor))
    config.set("web.max_retries", 0)
    yield vendor
    set_transport(None)


def test_missing_key_is_the_standard_message() -> None:
    with pytest.raises(ProviderNotConfiguredError) as info:
        Acme().search("q")
    assert str(info.value) == (
        "Acme Search needs an API key: set ACME_API_KEY (https://acme.example/keys) "
        "or call hn.config.set_key('ACME_API_KEY', ...)"
    )
    assert info.value.provider == "acme" and not Acme().is_available()
    with pytest.raises(ProviderNotConfiguredError, match="needs an API key to crawl: .*; no keyless crawl"):
        Acme().require_key(purpose="to crawl", note="; no keyless crawl")


def test_request_key_header_base_url_and_hits(server: Server) -> None:
    config.set_key("ACME_API_KEY", "k-123")
    out = Acme().search("tea", limit=50)
    (request,) = server.requests
    assert str(request.url) == "https://api.acme.example/v1/search?q=tea&n=10"  # clamped to max_limit
    assert request.headers["x-acme-key"] == "k-123" and "authorization" not in request.headers
    assert out == {"success": True, "data": {"effective_limit": 10, "web": [
        {"title": "A", "url": "https://a.example/", "description": "first", "position": 1},
        {"title": "https://b.example/", "url": "https://b.example/", "description": "", "position": 2},
    ]}}
    config.set("web.acme.base_url", "http://127.0.0.1:9/mirror/")
    Acme().search("tea")
    assert str(server.requests[-1].url).startswith("http://127.0.0.1:9/mirror/v1/search")


def test_base_url_from_the_vendor_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ACME_BASE_URL", "http://127.0.0.1:8/x/")
    assert Acme().base_url() == "http://127.0.0.1:8/x"
    config.set("web.acme.base_url", "http://127.0.0.1:7")
    assert Acme().base_url() == "http://127.0.0.1:7"  # the setting wins


def test_bearer_is_the_default_key_header() -> None:
    class Bearer(Acme):
        key_header = "Authorization"

    config.set_key("ACME_API_KEY", "k-9")
    assert Bearer().key_headers() == {"Authorization": "Bearer k-9"}
    config.set_key("ACME_API_KEY", None)
    assert Bearer().key_headers() == {}


@pytest.mark.parametrize(
    ("status", "body", "error", "fragment"),
    [
        (401, {"error": {"message": "bad key"}}, ProviderAuthError,
         "Acme rejected the API key (bad key); check ACME_API_KEY"),
        (402, {"message": "no credit"}, RateLimitedError, "Acme credits used up (no credit)"),
        (422, {"detail": "q is empty"}, InvalidInputError, "Acme refused the request: q is empty"),
        (400, None, InvalidInputError, "Acme refused the request: bad request"),
    ],
)
def test_standard_error_map(server: Server, status: int, body: Any, error: type, fragment: str) -> None:
    config.set_key("ACME_API_KEY", "secret-key-value")
    content = json.dumps(body).encode() if body is not None else b"<html>"
    server.answers["/v1/search"] = httpx.Response(status, content=content)
    with pytest.raises(error) as info:
        Acme().search("q")
    assert fragment in str(info.value) and info.value.status == status and info.value.provider == "acme"
    assert "secret-key-value" not in str(info.value)
    if status == 402:
        assert info.value.retryable is False


def test_not_an_object_is_a_parse_error(server: Server) -> None:
    config.set_key("ACME_API_KEY", "k")
    server.answers["/v1/search"] = httpx.Response(200, json=[1, 2])
    with pytest.raises(ParseError, match="Acme /v1/search answered with JSON that is not an object"):
        Acme().search("q")


def test_default_setup_schema_from_the_attributes() -> None:
    assert Acme().get_setup_schema() == {
        "name": "Acme Search", "badge": "paid", "tag": "A made-up index.",
        "env_vars": [{"key": "ACME_API_KEY", "prompt": "Acme Search API key", "url": "https://acme.example/keys"}],
    }

    class Keyless(WebSearchProvider):
        name = "free"
        tier = "keyless"
        install_hint = "pip install free"

        def is_available(self) -> bool:
            return True

    assert Keyless().get_setup_schema() == {
        "name": "free", "badge": "keyless", "tag": "", "env_vars": [], "install": "pip install free",
    }


def test_hermes_style_properties_still_work() -> None:
    class Hermes(WebSearchProvider):
        @property
        def name(self) -> str:  # type: ignore[override]  # Hermes plugins write properties
            return "hermes-style"

        def is_available(self) -> bool:
            return True

    provider = Hermes()
    assert provider.name == "hermes-style" and provider.display_name == "hermes-style"
    assert provider.aliases == () and provider.max_limit is None and provider.keyless_capabilities is None


def test_web_hits_field_maps_skip_and_extra() -> None:
    items = [
        {"u": "https://x.example/", "t": "", "d1": "", "d2": "second choice", "date": "2024"},
        {"u": "https://ad.example/", "ad": True},
        {"u": "https://y.example/", "t": "Y"},
    ]
    hits = web_hits(items, 5, url="u", title="t", description=("d1", "d2"), extra={"published": "date"},
                    skip=lambda i: bool(i.get("ad")))
    assert hits == [
        {"title": "https://x.example/", "url": "https://x.example/", "description": "second choice",
         "position": 1, "published": "2024"},
        {"title": "Y", "url": "https://y.example/", "description": "", "position": 2},
    ]
    assert [h["url"] for h in web_hits(items, 1, url="u")] == ["https://x.example/"]  # capped at count
    assert web_hits(None, 3) == [] and web_hits({"not": "a list"}, 3) == []


def test_search_envelope_leaves_out_empty_extras() -> None:
    empty = search_envelope([], 3, answer="", warnings=[])
    assert empty == {"success": True, "data": {"web": [], "effective_limit": 3}}
    assert search_envelope([], answer="yes")["data"] == {"web": [], "answer": "yes"}


def test_error_detail_reads_nested_fields() -> None:
    request = httpx.Request("GET", "https://x.example/")
    resp = httpx.Response(400, json={"error": {"message": "nested"}, "message": "flat"}, request=request)
    assert error_detail(resp, "error.message", "message") == "nested"
    assert error_detail(resp, "detail", "message") == "flat"
    assert error_detail(httpx.Response(500, content=b"oops", request=request), "message") == ""


def test_extract_each_first_failure_fails_the_call_later_ones_are_rows() -> None:
    from hermes_nb.errors import ContentFetchError, ProviderUnavailableError

    def read(url: str) -> dict[str, Any]:
        if "gone" in url:
            raise ContentFetchError("gone")
        if "down" in url:
            raise ProviderUnavailableError("down")
        return {"url": url, "content": "ok"}

    with pytest.raises(ProviderUnavailableError):
        extract_each(["https://down.example/", "https://a.example/"], read)
    rows = extract_each(["https://gone.example/", "https://a.example/", "https://down.example/"], read)
    assert rows[0] == failed_page("https://gone.example/", "gone", "CONTENT_FETCH_FAILED")
    assert rows[1]["content"] == "ok" and rows[2]["error_code"] == "PROVIDER_UNAVAILABLE"
