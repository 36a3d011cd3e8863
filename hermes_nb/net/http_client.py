"""Shared HTTP client for provider APIs: pooling, timeouts, one deadline, retries, limits, redaction.

Retry policy (``retry=True``, the default):

* connect errors and connect/pool timeouts are retried for every method (the request never left);
* HTTP 408, 429 and 5xx (except 501 and 505) are retried for every method: a POST that must never
  run twice (image generation) passes ``retry=RETRY_UNSENT`` (only connect failures and 429, where
  the server did no work) or ``retry=False``;
* read timeouts, dropped connections and protocol errors are retried only for idempotent methods,
  because a POST may already have started work on the server.

Delays use exponential backoff with full jitter, or the server's ``retry-after-ms`` / ``Retry-After``
(seconds or HTTP date; on a 429 without them, the reset of an ``x-ratelimit-remaining: 0`` window)
capped at ``RETRY_AFTER_CAP``; no retry is attempted when the delay would
pass the call's deadline. Every request of a shared client (``get_client``) also takes a start slot
from its provider's adaptive rate limiter (``hermes_nb.net.rate_limits``), which a 429 slows down
for every caller in the process; a request the limiter would hold past the call's deadline fails
with ``PROVIDER_RATE_LIMITED``. Provider endpoints are trusted: this client applies no SSRF guard
(``hermes_nb.net.fetch`` does, for user-supplied URLs).
"""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
import weakref
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

import httpx

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import HermesError, ParseError, error_for_status
from hermes_nb.net._headers import body_excerpt, register_request_secrets, user_agent
from hermes_nb.net._lanes import ApiClient, AsyncApiClient, Lanes, network_transport
from hermes_nb.net._limits import Slots, TokenBucket
from hermes_nb.net._retry import (
    BACKOFF_BASE,
    BACKOFF_CAP,
    RETRY_AFTER_CAP,
    RETRY_UNSENT,
    Call,
    parse_retry_after,
    safe_url,
)
from hermes_nb.net._transports import as_async_transport, as_sync_transport, decoded_headers
from hermes_nb.net.rate_limits import AdaptiveLimit, limit_for

__all__ = [
    "DEFAULT_MAX_RESPONSE_BYTES",
    "RETRY_AFTER_CAP",
    "RETRY_UNSENT",
    "BACKOFF_BASE",
    "BACKOFF_CAP",
    "HttpClient",
    "get_client",
    "set_transport",
    "get_transport",
    "user_agent",
    "parse_retry_after",
]

log = logging.getLogger("hermes_nb.http")

DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024
#: Async clients keep as many idle connections as may be in flight (httpx keeps 20: a batch of 32
#: reconnected). Sync requests use lanes (``_lanes``).
POOL_LIMITS = httpx.Limits(max_connections=100, max_keepalive_connections=100, keepalive_expiry=30.0)
ErrorMap = Callable[[httpx.Response], "HermesError | None"]

_lock = threading.Lock()
_clients: dict[str, HttpClient] = {}
_transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None
_generation = 0


def _read_into(resp: httpx.Response, body: bytes) -> httpx.Response:
    """``resp`` as read: ``body`` (decoded, within the cap) becomes its ``content``.

    This is what ``httpx.Response.read()`` itself does once the stream is consumed; building a
    second ``Response`` instead cost 6 % of a batch's CPU.
    """
    resp._content = body
    if "content-encoding" in resp.headers:  # the headers must describe the decoded body
        resp.headers = httpx.Headers(decoded_headers(resp))
    return resp


class _TooLargeError(Exception):
    pass


class HttpClient:
    """One per provider name: pooled httpx clients plus the retry, limit and redaction policy."""

    def __init__(
        self,
        provider: str,
        *,
        timeout: float | None = None,
        deadline: float | None = None,
        max_retries: int | None = None,
        rate_limit_per_s: float | None = None,
        max_concurrency: int | None = None,
        max_response_bytes: int = DEFAULT_MAX_RESPONSE_BYTES,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
        clock: Callable[[], float] | None = None,
        sleep: Callable[[float], None] | None = None,
        asleep: Callable[[float], Awaitable[None]] | None = None,
        wall_clock: Callable[[], float] | None = None,
        rng: random.Random | None = None,
        adaptive: AdaptiveLimit | None = None,
    ) -> None:
        self.provider = provider
        #: The provider's adaptive rate limiter (``get_client`` passes the process's shared one).
        self._adaptive = adaptive
        self.timeout = timeout
        self.deadline = deadline
        self.max_retries = max_retries
        self.max_response_bytes = max_response_bytes
        self._transport = transport
        self._clock = clock or time.monotonic
        self._sleep = sleep or time.sleep
        if asleep is not None:
            self._asleep = asleep
        elif sleep is not None:
            self._asleep = self._fake_asleep
        else:
            self._asleep = asyncio.sleep
        self._wall = wall_clock or time.time
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self._bucket: TokenBucket | None = None
        self._slots: Slots | None = None
        self.configure(rate_limit_per_s=rate_limit_per_s, max_concurrency=max_concurrency)
        self._lanes = Lanes(self._new_lane)
        self._aclients: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, tuple[int, httpx.AsyncClient]]
        self._aclients = weakref.WeakKeyDictionary()

    async def _fake_asleep(self, seconds: float) -> None:
        self._sleep(seconds)
        await asyncio.sleep(0)

    def configure(self, *, timeout: float | None = None, max_retries: int | None = None,
                  rate_limit_per_s: float | None = None, max_concurrency: int | None = None) -> None:
        """Change this provider's limits (``None`` leaves a setting as it is)."""
        if timeout is not None:
            self.timeout = timeout
        if max_retries is not None:
            self.max_retries = max_retries
        if rate_limit_per_s is not None:
            self._bucket = TokenBucket(rate_limit_per_s, self._clock) if rate_limit_per_s > 0 else None
        if max_concurrency is not None:
            self._slots = Slots(max_concurrency) if max_concurrency > 0 else None

    @property
    def rate_limit_per_s(self) -> float | None:
        return self._bucket.rate if self._bucket else None

    @property
    def max_concurrency(self) -> int | None:
        return self._slots.size if self._slots else None

    def __repr__(self) -> str:
        return (f"HttpClient(provider={self.provider!r}, timeout={self.timeout!r}, "
                f"max_retries={self.max_retries!r}, rate_limit_per_s={self.rate_limit_per_s!r}, "
                f"max_concurrency={self.max_concurrency!r})")

    @staticmethod
    def _setting(given: Any, own: Any, key: str, default: float) -> float:
        for value in (given, own):
            if value is not None:
                return float(value)
        return float(config.get(key, default))

    def _status_error(self, resp: httpx.Response, method: str, error_map: ErrorMap | None,
                      retry_after: float | None) -> HermesError:
        if error_map is not None:
            mapped = error_map(resp)
            if mapped is not None:
                if mapped.provider is None:
                    mapped.provider = self.provider
                if mapped.status is None:
                    mapped.status = resp.status_code
                return mapped
        status = resp.status_code
        hint = {401: "check the API key", 403: "check the API key and plan",
                429: "rate limited; try again later"}
        where = f"{method} {safe_url(resp.request.url)}"
        message = f"{self.provider}: HTTP {status} {resp.reason_phrase} from {where}"
        excerpt = body_excerpt(resp)
        if excerpt:
            message += f": {excerpt}"
        if status in hint:
            message += f" ({hint[status]})"
        elif status >= 500:
            message += " (the service failed; try again later or use another provider)"
        return error_for_status(status, message, provider=self.provider, retry_after=retry_after)

    # -- httpx clients -------------------------------------------------------------------------
    def _current_transport(self) -> Any:
        return self._transport if self._transport is not None else _transport

    def _new_lane(self) -> httpx.Client:
        return ApiClient(transport=as_sync_transport(self._current_transport()) or network_transport(),
                         headers={"User-Agent": user_agent()}, follow_redirects=True, max_redirects=5)

    def _async_client(self) -> httpx.AsyncClient:
        loop = asyncio.get_running_loop()
        with self._lock:
            held = self._aclients.get(loop)
            if held is None or held[0] != _generation:
                client = AsyncApiClient(
                    transport=as_async_transport(self._current_transport()),
                    headers={"User-Agent": user_agent()},
                    follow_redirects=True,
                    max_redirects=5,
                    limits=POOL_LIMITS,
                )
                held = (_generation, client)
                self._aclients[loop] = held
            return held[1]

    def close(self) -> None:
        """Close pooled connections (async pools are dropped; their loops close them)."""
        self._lanes.close()
        with self._lock:
            self._aclients = weakref.WeakKeyDictionary()

    # -- sending -----------------------------------------------------------------------------
    def _cap(self, max_bytes: int | None) -> int:
        return self.max_response_bytes if max_bytes is None else max_bytes

    def _too_large(self, call: Call, cap: int) -> ParseError:
        return ParseError(
            f"{self.provider}: response from {safe_url(call.url)} is larger than {cap} bytes "
            "(pass max_bytes= to allow more)", provider=self.provider
        )

    def request(self, method: str, url: str, *, params: Any = None, json: Any = None, data: Any = None,
                files: Any = None, headers: dict[str, str] | None = None, timeout: float | None = None,
                deadline: float | None = None, error_map: ErrorMap | None = None, retry: bool | str = True,
                max_bytes: int | None = None) -> httpx.Response:
        """Send with retries; return a 2xx/3xx response (body read) or raise the typed error.

        ``timeout`` bounds each attempt (default ``web.timeout``); ``deadline`` is the seconds the
        whole call may take, waits and retries included (default: ``web.deadline``, but never less
        than ``timeout``). ``max_bytes`` caps the decoded body (default ``max_response_bytes``).
        """
        register_request_secrets(params, headers, json if isinstance(json, Mapping) else None, data)
        call = Call(self, method, url, timeout, deadline, retry, error_map)
        cap = self._cap(max_bytes)
        with self._lanes.lane(_generation) as client:
            return self._send(client, call, url, cap, params=params, json=json, data=data, files=files,
                              headers=headers)

    def _send(self, client: httpx.Client, call: Call, url: str, cap: int, **parts: Any) -> httpx.Response:
        while True:
            per_attempt = call.attempt_timeout()
            wait = call.rate_wait()
            if wait:
                self._sleep(wait)
            slots = self._slots
            if slots is not None and not slots.acquire(call.remaining()):
                raise call.deadline_error(f"waited for a free slot (max_concurrency={slots.size})")
            try:
                req = client.build_request(call.method, url, timeout=per_attempt, **parts)
                try:
                    resp = client.send(req, stream=True)
                    try:
                        body = bytearray()
                        for chunk in resp.iter_bytes():
                            body += chunk
                            if len(body) > cap:
                                raise _TooLargeError
                    finally:
                        resp.close()
                except httpx.HTTPError as exc:
                    delay = call.on_exception(exc, per_attempt)
                except _TooLargeError:
                    raise self._too_large(call, cap) from None
                else:
                    resp = _read_into(resp, bytes(body))
                    next_delay = call.on_response(resp)
                    if next_delay is None:
                        return resp
                    delay = next_delay
            finally:
                if slots is not None:
                    slots.release()
            self._sleep(delay)

    async def arequest(self, method: str, url: str, *, params: Any = None, json: Any = None,
                       data: Any = None, files: Any = None, headers: dict[str, str] | None = None,
                       timeout: float | None = None, deadline: float | None = None,
                       error_map: ErrorMap | None = None, retry: bool | str = True,
                       max_bytes: int | None = None) -> httpx.Response:
        """Async twin of ``request`` (same retries, limits and errors)."""
        register_request_secrets(params, headers, json if isinstance(json, Mapping) else None, data)
        call = Call(self, method, url, timeout, deadline, retry, error_map)
        cap = self._cap(max_bytes)
        client = self._async_client()
        while True:
            per_attempt = call.attempt_timeout()
            wait = call.rate_wait()
            if wait:
                await self._asleep(wait)
            slots = self._slots
            if slots is not None and not await slots.aacquire(call.remaining()):
                raise call.deadline_error(f"waited for a free slot (max_concurrency={slots.size})")
            try:
                req = client.build_request(call.method, url, params=params, json=json, data=data,
                                           files=files, headers=headers, timeout=per_attempt)
                try:
                    resp = await client.send(req, stream=True)
                    try:
                        body = bytearray()
                        async for chunk in resp.aiter_bytes():
                            body += chunk
                            if len(body) > cap:
                                raise _TooLargeError
                    finally:
                        await resp.aclose()
                except httpx.HTTPError as exc:
                    delay = call.on_exception(exc, per_attempt)
                except _TooLargeError:
                    raise self._too_large(call, cap) from None
                else:
                    resp = _read_into(resp, bytes(body))
                    next_delay = call.on_response(resp)
                    if next_delay is None:
                        return resp
                    delay = next_delay
            finally:
                if slots is not None:
                    slots.release()
            await self._asleep(delay)

    # -- JSON helpers --------------------------------------------------------------------------
    def _json(self, resp: httpx.Response) -> Any:
        try:
            return resp.json()
        except (ValueError, UnicodeDecodeError) as exc:
            raise ParseError(
                f"{self.provider}: invalid JSON in the HTTP {resp.status_code} response from "
                f"{safe_url(resp.request.url)} ({type(exc).__name__}): {body_excerpt(resp, 120)}",
                provider=self.provider, status=resp.status_code,
            ) from None

    def get_json(self, url: str, **kw: Any) -> Any:
        """GET ``url`` and parse JSON (invalid JSON raises ``ParseError``)."""
        return self._json(self.request("GET", url, **kw))

    def post_json(self, url: str, json: Any = None, **kw: Any) -> Any:
        """POST ``json`` to ``url`` and parse the JSON answer."""
        return self._json(self.request("POST", url, json=json, **kw))

    async def aget_json(self, url: str, **kw: Any) -> Any:
        return self._json(await self.arequest("GET", url, **kw))

    async def apost_json(self, url: str, json: Any = None, **kw: Any) -> Any:
        return self._json(await self.arequest("POST", url, json=json, **kw))


def get_client(provider: str, *, timeout: float | None = None, max_retries: int | None = None,
               rate_limit_per_s: float | None = None, max_concurrency: int | None = None) -> HttpClient:
    """The shared client of ``provider`` (created once; given limits update the shared one)."""
    with _lock:
        client = _clients.get(provider)
        if client is None:
            client = _clients[provider] = HttpClient(provider, adaptive=limit_for(provider))
    client.configure(timeout=timeout, max_retries=max_retries, rate_limit_per_s=rate_limit_per_s,
                     max_concurrency=max_concurrency)
    return client


def set_transport(transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None) -> None:
    """Route every client through ``transport`` (tests: an ``httpx.MockTransport``); None restores."""
    global _transport, _generation
    with _lock:
        _transport = transport
        _generation += 1


def get_transport() -> httpx.BaseTransport | httpx.AsyncBaseTransport | None:
    """The transport set by ``set_transport`` (None: real network)."""
    return _transport


@on_reset
def _reset() -> None:
    global _transport, _generation
    with _lock:
        clients = list(_clients.values())
        _clients.clear()
        _transport = None
        _generation += 1
    for client in clients:
        client.close()
