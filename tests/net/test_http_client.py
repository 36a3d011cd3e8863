"""Shared provider HTTP client: fake-clock retries and backoff, errors, limits, redaction, async."""

from __future__ import annotations

import asyncio
import email.utils
import gzip
import json
import logging
import random
import threading
import time

import httpx
import pytest

from hermes_nb import config
from hermes_nb.errors import (
    InvalidInputError,
    NetworkError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
)
from hermes_nb.net import http_client
from hermes_nb.net.http_client import HttpClient, get_client, parse_retry_after, set_transport


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def scripted(*responses: httpx.Response | Exception, clock: FakeClock | None = None, cost: float = 0.0):
    """A handler answering with ``responses`` in order (the last one repeats); records requests."""
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if clock is not None:
            clock.now += cost
        item = responses[min(len(seen) - 1, len(responses) - 1)]
        if isinstance(item, Exception):
            raise item
        return item

    return handler, seen


def make(handler, clock: FakeClock | None = None, **kw) -> HttpClient:
    clock = clock or FakeClock()
    return HttpClient("brave", transport=httpx.MockTransport(handler), clock=clock, sleep=clock.sleep,
                      rng=random.Random(7), **kw)


def ok(payload: object = None, **kw) -> httpx.Response:
    return httpx.Response(200, json={"ok": True} if payload is None else payload, **kw)


# -- basics -------------------------------------------------------------------------------------


def test_get_json_sends_user_agent_params_and_parses() -> None:
    handler, seen = scripted(ok({"hits": [1, 2]}))
    client = make(handler)
    assert client.get_json("https://api.test/search", params={"q": "x y"}) == {"hits": [1, 2]}
    ua = seen[0].headers["user-agent"]
    assert ua.startswith("hermes_nb/") and "(+https://github.com/hermes-nb/hermes_nb)" in ua
    assert seen[0].url.params["q"] == "x y"


def test_post_json_sends_body() -> None:
    handler, seen = scripted(ok({"id": 1}))
    assert make(handler).post_json("https://api.test/x", json={"query": "q"}) == {"id": 1}
    assert seen[0].method == "POST" and json.loads(seen[0].content) == {"query": "q"}


def test_get_client_is_cached_per_provider_and_reset_by_reset_all() -> None:
    from hermes_nb import _state

    a = get_client("brave", max_concurrency=3)
    assert get_client("brave") is a and a.max_concurrency == 3
    assert get_client("tavily") is not a
    get_client("brave", rate_limit_per_s=5)
    assert a.rate_limit_per_s == 5 and a.max_concurrency == 3
    _state.reset_all()
    assert get_client("brave") is not a


def test_set_transport_routes_every_client_and_can_be_switched() -> None:
    handler1, seen1 = scripted(ok({"n": 1}))
    handler2, seen2 = scripted(ok({"n": 2}))
    client = get_client("searxng")
    set_transport(httpx.MockTransport(handler1))
    assert client.get_json("http://127.0.0.1:1/search") == {"n": 1}
    set_transport(httpx.MockTransport(handler2))
    assert client.get_json("http://127.0.0.1:1/search") == {"n": 2}
    assert len(seen1) == len(seen2) == 1


def test_async_mock_handler_works_for_sync_and_async_calls() -> None:
    async def handler(request: httpx.Request) -> httpx.Response:
        return ok({"path": request.url.path})

    set_transport(httpx.MockTransport(handler))
    client = get_client("tavily")
    assert client.get_json("https://api.test/a") == {"path": "/a"}
    assert asyncio.run(client.aget_json("https://api.test/b")) == {"path": "/b"}


def test_sync_only_transport_works_for_async_calls() -> None:
    class Plain(httpx.BaseTransport):
        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return httpx.Response(200, content=gzip.compress(b'{"z": 1}'),
                                  headers={"content-encoding": "gzip", "content-type": "application/json"})

    client = HttpClient("x", transport=Plain())
    assert asyncio.run(client.aget_json("https://api.test/")) == {"z": 1}
    assert client.get_json("https://api.test/") == {"z": 1}


def test_invalid_json_is_parse_error() -> None:
    handler, _ = scripted(httpx.Response(200, text="<html>oops</html>"))
    with pytest.raises(ParseError) as info:
        make(handler).get_json("https://api.test/")
    assert info.value.provider == "brave" and "invalid JSON" in str(info.value)


# -- status -> error class ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "cls", "attempts"),
    [
        (400, ProviderError, 1),
        (401, ProviderAuthError, 1),
        (403, ProviderAuthError, 1),
        (404, ProviderError, 1),
        (408, TimeoutError_, 3),
        (422, ProviderError, 1),
        (429, RateLimitedError, 3),
        (500, ProviderUnavailableError, 3),
        (501, ProviderUnavailableError, 1),
        (502, ProviderUnavailableError, 3),
        (503, ProviderUnavailableError, 3),
        (504, ProviderUnavailableError, 3),
        (505, ProviderUnavailableError, 1),
        (599, ProviderUnavailableError, 3),
    ],
)
def test_status_maps_to_error_class_after_retries(status: int, cls: type, attempts: int) -> None:
    handler, seen = scripted(httpx.Response(status, text="vendor says no"))
    with pytest.raises(cls) as info:
        make(handler, max_retries=2).get_json("https://api.test/v1")
    assert len(seen) == attempts
    err = info.value
    assert type(err) is cls and err.status == status and err.provider == "brave"
    assert f"HTTP {status}" in str(err) and "vendor says no" in str(err)


def test_error_map_handles_vendor_codes_and_can_decline() -> None:
    def brave_map(resp: httpx.Response):
        if resp.status_code == 422 and "SUBSCRIPTION_TOKEN_INVALID" in resp.text:
            return ProviderAuthError("brave: the subscription token is invalid; set BRAVE_SEARCH_API_KEY")
        return None

    handler, _ = scripted(httpx.Response(422, json={"error": {"code": "SUBSCRIPTION_TOKEN_INVALID"}}))
    with pytest.raises(ProviderAuthError) as info:
        make(handler).get_json("https://api.test/", error_map=brave_map)
    assert info.value.provider == "brave" and info.value.status == 422
    handler, _ = scripted(httpx.Response(422, json={"error": {"code": "VALIDATION"}}))
    with pytest.raises(ProviderError) as info2:
        make(handler).get_json("https://api.test/", error_map=brave_map)
    assert type(info2.value) is ProviderError


# -- retries and backoff on a fake clock ------------------------------------------------------------


def test_backoff_is_full_jitter_within_exponential_bounds() -> None:
    clock = FakeClock()
    handler, seen = scripted(httpx.Response(503), clock=clock)
    with pytest.raises(ProviderUnavailableError):
        make(handler, clock, max_retries=4).get_json("https://api.test/")
    assert len(seen) == 5
    assert len(clock.sleeps) == 4
    for n, delay in enumerate(clock.sleeps):
        assert 0.0 <= delay <= min(http_client.BACKOFF_CAP, http_client.BACKOFF_BASE * 2**n)
    assert len(set(clock.sleeps)) == 4  # jittered, not a fixed schedule


def test_success_after_retries_returns_response() -> None:
    clock = FakeClock()
    handler, seen = scripted(httpx.Response(502), httpx.ConnectError("refused"), ok(), clock=clock)
    assert make(handler, clock, max_retries=2).get_json("https://api.test/") == {"ok": True}
    assert len(seen) == 3 and len(clock.sleeps) == 2


def test_retry_after_seconds_is_honoured() -> None:
    clock = FakeClock()
    handler, _ = scripted(httpx.Response(429, headers={"Retry-After": "3"}), ok(), clock=clock)
    make(handler, clock).get_json("https://api.test/")
    assert clock.sleeps == [3.0]


def test_retry_after_ms_wins() -> None:
    clock = FakeClock()
    handler, _ = scripted(httpx.Response(429, headers={"retry-after-ms": "1500", "Retry-After": "9"}), ok(),
                          clock=clock)
    make(handler, clock).get_json("https://api.test/")
    assert clock.sleeps == [1.5]


def test_retry_after_http_date_is_honoured() -> None:
    clock = FakeClock()
    wall = 1_700_000_000.0
    date = email.utils.formatdate(wall + 7, usegmt=True)
    handler, _ = scripted(httpx.Response(503, headers={"Retry-After": date}), ok(), clock=clock)
    client = make(handler, clock, wall_clock=lambda: wall)
    client.get_json("https://api.test/")
    assert clock.sleeps == [pytest.approx(7.0)]


def test_retry_after_is_capped() -> None:
    clock = FakeClock()
    handler, _ = scripted(httpx.Response(429, headers={"Retry-After": "5000"}), ok(), clock=clock)
    make(handler, clock).get_json("https://api.test/", deadline=100)
    assert clock.sleeps == [http_client.RETRY_AFTER_CAP]


def test_deadline_stops_retries_when_wait_would_pass_it() -> None:
    clock = FakeClock()
    handler, seen = scripted(httpx.Response(429, headers={"Retry-After": "10"}), ok(), clock=clock)
    with pytest.raises(RateLimitedError) as info:
        make(handler, clock, max_retries=5).get_json("https://api.test/", deadline=5)
    assert len(seen) == 1 and clock.sleeps == []
    assert info.value.retry_after == 10.0


def test_deadline_covers_slow_attempts() -> None:
    clock = FakeClock()
    handler, seen = scripted(httpx.Response(503), clock=clock, cost=3.0)
    with pytest.raises(ProviderUnavailableError):
        make(handler, clock, max_retries=10).get_json("https://api.test/", deadline=5)
    assert len(seen) == 2  # the third attempt would start after the deadline
    assert clock.now - 1000.0 < 7.0


def test_long_timeout_without_deadline_gets_one_full_attempt() -> None:
    handler, seen = scripted(ok())
    make(handler).post_json("https://api.test/images", json={}, timeout=120, retry=False)
    assert seen[0].extensions["timeout"]["read"] == pytest.approx(120.0)  # not cut to web.deadline


def test_deadline_default_comes_from_config() -> None:
    config.set("web.deadline", 4)
    config.set("web.timeout", 2)
    clock = FakeClock()
    handler, seen = scripted(httpx.Response(429, headers={"Retry-After": "5"}), clock=clock)
    with pytest.raises(RateLimitedError):
        make(handler, clock).get_json("https://api.test/")
    assert len(seen) == 1


def test_max_retries_from_config_and_retry_false() -> None:
    config.set("web.max_retries", 1)
    handler, seen = scripted(httpx.Response(500))
    with pytest.raises(ProviderUnavailableError):
        make(handler).get_json("https://api.test/")
    assert len(seen) == 2
    handler, seen = scripted(httpx.Response(500))
    with pytest.raises(ProviderUnavailableError):
        make(handler).post_json("https://api.test/images", json={}, retry=False)
    assert len(seen) == 1


@pytest.mark.parametrize(
    ("exc", "method", "cls", "attempts"),
    [
        (httpx.ConnectError("refused"), "POST", NetworkError, 3),
        (httpx.ConnectTimeout("slow connect"), "POST", TimeoutError_, 3),
        (httpx.ReadTimeout("slow read"), "GET", TimeoutError_, 3),
        (httpx.ReadTimeout("slow read"), "POST", TimeoutError_, 1),
        (httpx.RemoteProtocolError("peer closed"), "GET", NetworkError, 3),
        (httpx.RemoteProtocolError("peer closed"), "POST", NetworkError, 1),
        (httpx.ReadError("reset"), "POST", NetworkError, 1),
        (httpx.UnsupportedProtocol("bad scheme"), "GET", InvalidInputError, 1),
    ],
)
def test_transport_errors_are_typed_and_retried_only_when_safe(exc, method, cls, attempts) -> None:
    handler, seen = scripted(exc)
    with pytest.raises(cls):
        make(handler, max_retries=2).request(method, "https://api.test/")
    assert len(seen) == attempts


def test_per_attempt_timeout_is_passed_and_bounded_by_deadline() -> None:
    handler, seen = scripted(ok())
    make(handler, timeout=7).get_json("https://api.test/", deadline=3)
    assert seen[0].extensions["timeout"]["read"] == pytest.approx(3.0)
    make(handler).get_json("https://api.test/", timeout=2)
    assert seen[1].extensions["timeout"]["connect"] == pytest.approx(2.0)


# -- secrets ------------------------------------------------------------------------------------


def test_secrets_never_appear_in_errors_logs_or_repr(caplog: pytest.LogCaptureFixture) -> None:
    header_key = "hdr-Secret-Value-0123456789"
    query_key = "qry9876543210SecretValue"
    body_key = "bodySecretValue5555"

    def echo(request: httpx.Request) -> httpx.Response:
        dump = f"url={request.url} headers={dict(request.headers)} body={request.content.decode()}"
        return httpx.Response(401 if request.method == "GET" else 503, text=dump)

    client = make(echo, max_retries=1)
    texts = []
    with caplog.at_level(logging.DEBUG, logger="hermes_nb"):
        with pytest.raises(ProviderAuthError) as info:
            client.get_json("https://api.test/s", params={"q": "cats", "key": query_key},
                            headers={"X-Subscription-Token": header_key})
        texts += [str(info.value), repr(info.value), json.dumps(info.value.to_dict())]
        with pytest.raises(ProviderUnavailableError) as info2:
            client.post_json("https://api.test/s?apikey=" + query_key, json={"api_key": body_key, "q": "x"},
                             headers={"Authorization": f"Bearer {header_key}"})
        texts += [str(info2.value), repr(info2.value)]
    texts += [r.getMessage() for r in caplog.records]
    texts.append(repr(client))
    assert any("retry" in t for t in texts)  # the retry was logged, and checked below
    for text in texts:
        for secret in (header_key, query_key, body_key):
            assert secret not in text


# -- limits -------------------------------------------------------------------------------------


def test_rate_limit_spaces_requests_on_fake_clock() -> None:
    clock = FakeClock()
    handler, seen = scripted(ok())
    client = make(handler, clock, rate_limit_per_s=4)
    for _ in range(5):
        client.get_json("https://api.test/")
    assert len(seen) == 5
    assert clock.sleeps == [pytest.approx(0.25)] * 4
    clock.now += 10  # idle time refills one token (burst 1), no more
    client.get_json("https://api.test/")
    client.get_json("https://api.test/")
    assert clock.sleeps[-1] == pytest.approx(0.25) and len(clock.sleeps) == 5


def test_rate_limit_wait_past_deadline_is_timeout() -> None:
    clock = FakeClock()
    handler, seen = scripted(ok())
    client = make(handler, clock, rate_limit_per_s=0.1)
    client.get_json("https://api.test/")
    with pytest.raises(TimeoutError_) as info:
        client.get_json("https://api.test/", deadline=5)
    assert "rate limit" in str(info.value) and len(seen) == 1


def test_max_concurrency_bounds_parallel_threads() -> None:
    state = {"now": 0, "max": 0}
    lock = threading.Lock()

    def slow(request: httpx.Request) -> httpx.Response:
        with lock:
            state["now"] += 1
            state["max"] = max(state["max"], state["now"])
        time.sleep(0.02)
        with lock:
            state["now"] -= 1
        return ok()

    client = HttpClient("p", transport=httpx.MockTransport(slow), max_concurrency=2)
    threads = [threading.Thread(target=client.get_json, args=("https://api.test/",)) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert state["max"] == 2


def test_max_concurrency_bounds_async_tasks_and_times_out() -> None:
    state = {"now": 0, "max": 0}

    async def slow(request: httpx.Request) -> httpx.Response:
        state["now"] += 1
        state["max"] = max(state["max"], state["now"])
        await asyncio.sleep(0.02)
        state["now"] -= 1
        return ok()

    client = HttpClient("p", transport=httpx.MockTransport(slow), max_concurrency=3)

    async def main() -> list:
        return await asyncio.gather(*(client.aget_json("https://api.test/") for _ in range(9)))

    assert len(asyncio.run(main())) == 9
    assert state["max"] == 3

    async def hog() -> None:
        one = HttpClient("q", transport=httpx.MockTransport(slow), max_concurrency=1)
        blocker = asyncio.create_task(one.aget_json("https://api.test/", deadline=5))
        await asyncio.sleep(0)
        with pytest.raises(TimeoutError_):
            await one.aget_json("https://api.test/", deadline=0.005)
        await blocker
        assert await one.aget_json("https://api.test/") == {"ok": True}  # the slot came back

    asyncio.run(hog())


# -- body cap -------------------------------------------------------------------------------------


def test_body_over_cap_is_parse_error_and_cap_is_a_parameter() -> None:
    handler, _ = scripted(httpx.Response(200, content=b"x" * 5000))
    client = make(handler, max_response_bytes=1000)
    with pytest.raises(ParseError) as info:
        client.request("GET", "https://api.test/")
    assert "max_bytes" in str(info.value)
    assert len(client.request("GET", "https://api.test/", max_bytes=10_000).content) == 5000


def test_gzip_body_is_counted_decoded() -> None:
    bomb = gzip.compress(b"0" * 200_000)
    handler, _ = scripted(httpx.Response(200, content=bomb, headers={"content-encoding": "gzip"}))
    with pytest.raises(ParseError):
        make(handler, max_response_bytes=50_000).request("GET", "https://api.test/")
    resp = make(handler).request("GET", "https://api.test/")
    assert resp.content == b"0" * 200_000 and "content-encoding" not in resp.headers


# -- async twins ----------------------------------------------------------------------------------


def test_async_retries_errors_and_json() -> None:
    clock = FakeClock()
    handler, seen = scripted(httpx.Response(429, headers={"Retry-After": "2"}), ok({"a": 1}), clock=clock)
    client = make(handler, clock)
    assert asyncio.run(client.aget_json("https://api.test/")) == {"a": 1}
    assert clock.sleeps == [2.0] and len(seen) == 2

    handler, seen = scripted(httpx.Response(401, text="bad key"))
    with pytest.raises(ProviderAuthError):
        asyncio.run(make(handler).apost_json("https://api.test/", json={"x": 1}))
    handler, _ = scripted(httpx.ReadTimeout("slow"))
    with pytest.raises(TimeoutError_):
        asyncio.run(make(handler).apost_json("https://api.test/", json={}))


def test_async_client_works_across_event_loops() -> None:
    handler, seen = scripted(ok())
    client = make(handler)
    for _ in range(3):
        assert asyncio.run(client.aget_json("https://api.test/")) == {"ok": True}
    assert len(seen) == 3


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"Retry-After": "12"}, 12.0),
        ({"Retry-After": " 0.5 "}, 0.5),
        ({"Retry-After": "-3"}, 0.0),
        ({"Retry-After": "soon"}, None),
        ({"Retry-After": "nan"}, None),
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "x", "Retry-After": "4"}, 4.0),
        ({}, None),
    ],
)
def test_parse_retry_after(headers: dict[str, str], expected: float | None) -> None:
    assert parse_retry_after(httpx.Headers(headers), now=0.0) == expected


def test_parse_retry_after_past_date_is_zero() -> None:
    past = email.utils.formatdate(1_000.0, usegmt=True)
    assert parse_retry_after(httpx.Headers({"Retry-After": past}), now=2_000.0) == 0.0


# -- retry=RETRY_UNSENT (generation POSTs) and vendor verdicts ---------------------------------


def _post_unsent(handler) -> httpx.Response:
    return make(handler).request("POST", "https://api.test/gen", retry=http_client.RETRY_UNSENT)


def test_retry_unsent_repeats_only_what_the_server_did_not_act_on() -> None:
    handler, seen = scripted(httpx.Response(429), ok())
    assert _post_unsent(handler).status_code == 200
    assert len(seen) == 2  # a 429 means no work was done: safe to send again

    handler, seen = scripted(httpx.ConnectError("refused"), ok())
    assert _post_unsent(handler).status_code == 200
    assert len(seen) == 2  # the request never left

    started = (httpx.Response(503), httpx.Response(408), httpx.ReadTimeout("slow"), httpx.ReadError("cut"))
    for failure in started:
        handler, seen = scripted(failure, ok())
        with pytest.raises((ProviderUnavailableError, TimeoutError_, NetworkError)):
            _post_unsent(handler)
        assert len(seen) == 1, failure  # the server may have started (and billed) the work


def test_a_vendor_error_that_will_not_pass_stops_retries() -> None:
    quota = httpx.Response(429, json={"error": {"code": "insufficient_quota"}})

    def vendor(resp: httpx.Response) -> ProviderError | None:
        if resp.json()["error"]["code"] == "insufficient_quota":
            return ProviderError("quota exhausted: add credit", retryable=False)
        return None

    handler, seen = scripted(quota, ok())
    with pytest.raises(ProviderError, match="add credit"):
        make(handler).request("GET", "https://api.test/x", error_map=vendor)
    assert len(seen) == 1


# -- lanes: one request per pooled client, no cookies kept ---------------------------------------


def test_a_cookie_one_answer_sets_is_not_sent_with_the_next_call() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"ok": True}, headers={"Set-Cookie": "session=abc; Path=/"})

    client = HttpClient("cookies", transport=httpx.MockTransport(handler))
    client.get_json("https://api.example.test/a")
    client.get_json("https://api.example.test/b")

    async def twice() -> None:
        await client.aget_json("https://api.example.test/c")
        await client.aget_json("https://api.example.test/d")

    asyncio.run(twice())
    assert [r.headers.get("cookie") for r in seen] == [None, None, None, None]


def test_concurrent_requests_each_get_a_lane_of_their_own_and_lanes_are_reused() -> None:
    inside = threading.Barrier(4, timeout=10)
    clients: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        inside.wait()  # all four requests are in flight at once
        return httpx.Response(200, json={})

    client = HttpClient("lanes", transport=httpx.MockTransport(handler))
    original = client._new_lane

    def counting() -> httpx.Client:
        made = original()
        clients.append(id(made))
        return made

    client._lanes._make = counting
    url = "https://api.example.test/"
    threads = [threading.Thread(target=client.get_json, args=(url,)) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(clients) == 4  # no request waited for another's client
    inside.reset()
    done = []
    threads = [threading.Thread(target=lambda: done.append(client.get_json("https://api.example.test/")))
               for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(10)
    assert len(done) == 4 and len(clients) == 4  # the second round reused the four lanes


def test_set_transport_retires_the_lanes_built_for_the_old_one() -> None:
    client = HttpClient("retire")
    set_transport(httpx.MockTransport(lambda request: httpx.Response(200, json={"n": 1})))
    assert client.get_json("https://api.example.test/") == {"n": 1}
    set_transport(httpx.MockTransport(lambda request: httpx.Response(200, json={"n": 2})))
    assert client.get_json("https://api.example.test/") == {"n": 2}


def test_lanes_beyond_the_free_limit_are_closed_when_given_back(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_nb.net import _lanes

    monkeypatch.setattr(_lanes, "MAX_FREE_LANES", 2)
    made: list[httpx.Client] = []

    def make() -> httpx.Client:
        made.append(httpx.Client(transport=httpx.MockTransport(lambda request: httpx.Response(200))))
        return made[-1]

    lanes = _lanes.Lanes(make)
    with lanes.lane(1), lanes.lane(1), lanes.lane(1):  # three requests at once: three lanes
        pass
    assert len(made) == 3 and [c.is_closed for c in made].count(True) == 1
    lanes.close()
    assert all(c.is_closed for c in made)
