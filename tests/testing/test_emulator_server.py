"""Emulator server: loopback binding, request log, faults, latency, determinism, use_emulator, serve."""

from __future__ import annotations

import threading
import time

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import InvalidInputError
from hermes_nb.testing import Emulator, serve, use_emulator

BRAVE = "/res/v1/web/search"


@pytest.fixture
def emu():
    with Emulator(seed=0) as server:
        yield server


@pytest.fixture(scope="module")
def client():
    with httpx.Client(timeout=5) as c:
        yield c


def _brave(client, emu, q="python", token="emu-brave-key", **params):
    return client.get(
        emu.base_url("brave") + BRAVE, params={"q": q, **params}, headers={"X-Subscription-Token": token}
    )


def _tavily(client, emu, query="python"):
    return client.post(
        emu.base_url("tavily") + "/search",
        json={"query": query},
        headers={"Authorization": "Bearer emu-tavily-key"},
    )


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.com"])
def test_refuses_non_loopback_hosts(host):
    with pytest.raises(InvalidInputError, match="loopback"):
        Emulator(host=host)


def test_binds_loopback_random_port_and_close_stops_serving(client):
    a, b = Emulator(), Emulator()
    try:
        assert a.url.startswith("http://127.0.0.1:") and a.port != b.port
        assert a._httpd.server_address[0] == "127.0.0.1"
    finally:
        b.close()
    a.close()
    a.close()  # idempotent
    with pytest.raises(httpx.ConnectError):
        client.get(a.page_url("/site/"))


def test_base_urls_follow_the_contract(emu):
    assert emu.base_url("brave") == emu.url + "/brave"
    assert emu.base_url("openai") == emu.url + "/openai/v1"
    assert emu.base_url("xai") == emu.url + "/xai/v1"
    assert emu.base_url("fal") == emu.url + "/fal"
    assert emu.page_url("/docs/a.html") == emu.url + "/site/docs/a.html"
    assert emu.page_url("/site/x") == emu.url + "/site/x"
    with pytest.raises(InvalidInputError):
        emu.base_url("nope")


def test_keep_alive_and_content_length(emu, client):
    first = _brave(client, emu)
    second = client.get(emu.page_url("/site/"))
    assert first.headers["content-length"] == str(len(first.content))
    assert second.headers["content-length"] == str(len(second.content))
    assert first.http_version == "HTTP/1.1"


def test_request_log_records_what_was_sent(emu, client):
    _brave(client, emu, q="cats", count=3)
    client.post(emu.base_url("tavily") + "/search", json={"query": "dogs"}, headers={"X-Custom": "Yes"})
    client.get(emu.page_url("/site/"))
    log = emu.requests
    assert [r.provider for r in log] == ["brave", "tavily", "site"]
    brave = log[0]
    assert (brave.method, brave.path) == ("GET", "/brave/res/v1/web/search")
    assert brave.query == {"q": ["cats"], "count": ["3"]} and brave.param("q") == "cats"
    assert brave.headers["x-subscription-token"] == "emu-brave-key" and brave.json is None
    assert log[1].json == {"query": "dogs"} and log[1].headers["x-custom"] == "Yes"
    assert log[1].body == b'{"query":"dogs"}'
    assert [r.path for r in emu.requests_for("tavily")] == ["/tavily/search"]
    assert (emu.request_count(), emu.request_count("brave"), emu.request_count("serper")) == (3, 1, 0)
    emu.reset_log()
    assert emu.requests == [] and emu.request_count() == emu.request_count("brave") == 0


def test_request_log_is_thread_safe(emu):
    def worker():
        with httpx.Client() as c:
            for _ in range(5):
                c.get(emu.page_url("/robots.txt"))

    threads = [threading.Thread(target=worker) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(emu.requests) == 30 == emu.request_count() == emu.request_count("site")


def test_status_faults_use_vendor_bodies_and_count_down(emu, client):
    emu.fail("tavily", "429", times=2, retry_after=7)
    for _ in range(2):
        r = _tavily(client, emu)
        assert r.status_code == 429 and r.headers["retry-after"] == "7"
        assert "error" in r.json()["detail"]
    assert _tavily(client, emu).status_code == 200
    emu.fail("brave", "429", retry_after=3)
    r = _brave(client, emu)
    assert r.status_code == 429 and "retry-after" not in r.headers  # Brave sends no Retry-After
    assert r.headers["x-ratelimit-reset"].startswith("3,")
    assert r.json()["error"]["code"] == "RATE_LIMITED"
    for status in ("500", "502", "503"):
        emu.fail("brave", status)
        r = _brave(client, emu)
        assert r.status_code == int(status) and r.json()["type"] == "ErrorResponse"
    emu.fail("tavily", "432")
    assert _tavily(client, emu).status_code == 432


def test_fault_until_cleared_and_path_prefix_target(emu, client):
    emu.fail("/tavily/search", "503", times=None, headers={"X-Emu": "1"})
    for _ in range(3):
        r = _tavily(client, emu)
        assert r.status_code == 503 and r.headers["x-emu"] == "1"
    assert (
        client.post(
            emu.base_url("tavily") + "/extract",
            json={"urls": "https://a.example/"},
            headers={"Authorization": "Bearer k"},
        ).status_code
        == 200
    )
    emu.clear_faults()
    assert _tavily(client, emu).status_code == 200


@pytest.mark.parametrize("kind", ["timeout", "hang"])
def test_timeout_fault_hangs_then_closes(emu, client, kind):
    emu.fail("brave", kind, seconds=0.3)
    start = time.monotonic()
    with pytest.raises(httpx.RemoteProtocolError):
        _brave(client, emu)
    assert time.monotonic() - start >= 0.29
    emu.fail("brave", kind, seconds=5)
    with pytest.raises(httpx.ReadTimeout):
        client.get(emu.base_url("brave") + BRAVE, params={"q": "x"}, timeout=0.2)


def test_close_wakes_hanging_requests(client):
    emu = Emulator()
    emu.fail("site", "timeout", seconds=30)
    errors = []

    def call():
        try:
            httpx.get(emu.page_url("/site/"), timeout=10)
        except httpx.HTTPError as exc:
            errors.append(exc)

    t = threading.Thread(target=call)
    t.start()
    time.sleep(0.1)
    start = time.monotonic()
    emu.close()
    t.join(5)
    assert time.monotonic() - start < 3 and errors


def test_reset_fault(emu, client):
    emu.fail("tavily", "reset")
    with pytest.raises((httpx.ReadError, httpx.RemoteProtocolError)):
        _tavily(client, emu)
    assert _tavily(client, emu).status_code == 200


def test_malformed_json_fault(emu, client):
    emu.fail("tavily", "malformed_json")
    r = _tavily(client, emu)
    assert r.status_code == 200 and r.headers["content-type"] == "application/json"
    with pytest.raises(ValueError):
        r.json()


def test_slow_body_fault(emu, client):
    emu.fail("tavily", "slow_body", seconds=0.4)
    start = time.monotonic()
    r = _tavily(client, emu)
    assert r.status_code == 200 and r.json()["results"]
    assert time.monotonic() - start >= 0.35


def test_auth_and_empty_faults(emu, client):
    emu.fail("brave", "auth")
    assert _brave(client, emu).json()["error"]["code"] == "SUBSCRIPTION_TOKEN_INVALID"
    emu.fail("tavily", "empty")
    assert _tavily(client, emu).json()["results"] == []
    assert _tavily(client, emu).json()["results"]


def test_fail_rejects_unknown_kinds_and_targets(emu):
    with pytest.raises(InvalidInputError):
        emu.fail("brave", "explode")
    with pytest.raises(InvalidInputError):
        emu.fail("bing", "500")
    with pytest.raises(InvalidInputError):
        emu.fail("brave", "500", times=0)


def test_latency_is_added_per_request(emu, client):
    emu.latency = 0.2
    start = time.monotonic()
    _brave(client, emu)
    assert time.monotonic() - start >= 0.19


def test_results_are_deterministic_per_seed_and_query(client):
    with Emulator(seed=1) as a, Emulator(seed=1) as b, Emulator(seed=2) as c:
        one, two, other = (_brave(client, e, q="llamas").json()["web"]["results"] for e in (a, b, c))
        assert one == two and one != other
        assert _brave(client, a, q="alpacas").json()["web"]["results"] != one


def test_unknown_path_is_404(emu, client):
    assert client.get(emu.url + "/nothing/here").status_code == 404


def test_use_emulator_sets_and_restores(emu):
    config.set("web.brave.base_url", "http://proxy.example")
    config.set_key("TAVILY_API_KEY", "real-session-key")
    with use_emulator(emu) as applied:
        assert config.get("web.brave.base_url") == emu.base_url("brave")
        assert config.get("web.searxng.base_url") == emu.base_url("searxng")
        assert config.get("web.jina.base_url") == emu.base_url("jina")
        assert config.get("image_gen.openai.base_url") == emu.base_url("openai")
        assert config.get("image_gen.fal.base_url") == emu.base_url("fal")
        assert config.get("security.allow_private_urls") is False  # the guard stays on
        assert config.get("security.private_origins") == [emu.url]  # only the emulator is let through
        assert config.resolve_key("BRAVE_SEARCH_API_KEY") == "emu-brave-key"
        assert config.resolve_key("TAVILY_API_KEY") == "emu-tavily-key"
        assert config.resolve_key("FAL_KEY") == "emu-fal-key"
        assert callable(applied)
    assert config.get("web.brave.base_url") == "http://proxy.example"
    assert config.effective("web.searxng.base_url").source == "default"
    assert config.get("security.allow_private_urls") is False
    assert config.get("security.private_origins") == []
    assert config.resolve_key("BRAVE_SEARCH_API_KEY") is None
    assert config.resolve_key("TAVILY_API_KEY") == "real-session-key"


def test_use_emulator_as_function_with_provider_subset(emu):
    undo = use_emulator(emu, providers=["xai"])
    assert config.get("image_gen.xai.base_url") == emu.base_url("xai")
    assert config.get("web.brave.base_url") is None
    assert config.resolve_key("XAI_API_KEY") == "emu-xai-key"
    undo()
    undo()
    assert config.get("image_gen.xai.base_url") is None and config.resolve_key("XAI_API_KEY") is None
    with pytest.raises(InvalidInputError):
        use_emulator(emu, providers=["bing"])


def test_serve_prints_config_lines_and_stops(capsys):
    stop = threading.Event()
    thread = threading.Thread(target=serve, kwargs={"stop": stop})
    thread.start()
    deadline = time.monotonic() + 5
    while "Pages for extract" not in capsys.readouterr().out and time.monotonic() < deadline:
        time.sleep(0.05)
    stop.set()
    thread.join(5)
    assert not thread.is_alive()
    with pytest.raises(InvalidInputError):
        serve(host="0.0.0.0")


def test_serve_output(capsys):
    stop = threading.Event()
    stop.set()
    serve(stop=stop)
    out = capsys.readouterr().out
    assert "use_emulator('http://127.0.0.1:" in out
    assert "set_key" not in out and "emu-fal-key" not in out


def test_use_emulator_by_url_points_the_session_at_a_running_emulator():
    from hermes_nb import config
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator() as emu:
        with use_emulator(emu.url):
            assert config.get("web.brave.base_url") == emu.base_url("brave")
            assert config.resolve_key("BRAVE_SEARCH_API_KEY") == "emu-brave-key"
            assert config.get("security.private_origins") == [emu.url]
        assert config.get("web.brave.base_url") is None


@pytest.mark.parametrize(
    "url", ["https://127.0.0.1:8877", "http://example.org:8877", "http://127.0.0.1", "8877"]
)
def test_use_emulator_refuses_urls_that_are_not_a_loopback_emulator(url):
    from hermes_nb.testing import use_emulator

    with pytest.raises(InvalidInputError, match="loopback URL that `hermes-nb emulate` prints"):
        use_emulator(url)


def test_use_emulator_names_the_command_when_nothing_listens():
    import socket

    from hermes_nb.testing import use_emulator

    with socket.socket() as probe:  # a port that was free a moment ago and has no listener
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(InvalidInputError, match=f"hermes-nb emulate --port {port}"):
        use_emulator(f"http://127.0.0.1:{port}")
