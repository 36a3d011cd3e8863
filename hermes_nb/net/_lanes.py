"""Lanes: a provider's sync requests spread over several small httpx clients, one request per lane.

One ``httpx.Client`` shared by 32 threads scales badly: its connection pool takes one lock per
request and per response, and on each it walks every pooled connection (asking the socket of each
idle one whether it was closed), so a 32-wide batch spent a fifth of its time there. A lane is a
client of its own with a few keep-alive connections that only one request uses at a time: a request
takes a free lane (a new one when none is free), keeps it for its retries and redirects, and gives
it back. Lanes share one TLS context (loading the CA bundle costs ~100 ms per client) and, in tests,
the transport given to ``set_transport``.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import httpx

__all__ = [
    "LANE_LIMITS", "MAX_FREE_LANES", "ApiClient", "AsyncApiClient", "Lanes", "network_transport",
    "tls_context",
]  # fmt: skip

#: A lane serves one request at a time; a few idle connections cover redirects to another host.
LANE_LIMITS = httpx.Limits(max_connections=4, max_keepalive_connections=4, keepalive_expiry=30.0)
#: Free lanes kept for later requests; a lane given back beyond this is closed (a 500-wide burst
#: does not leave 500 clients behind).
MAX_FREE_LANES = 64

_tls_lock = threading.Lock()
_tls: Any = None


def tls_context() -> Any:
    """httpx's default TLS context, built once for the process."""
    global _tls
    with _tls_lock:
        if _tls is None:
            _tls = httpx.create_ssl_context()
        return _tls


class _NoCookies(httpx.Cookies):
    def extract_cookies(self, response: httpx.Response) -> None:
        pass  # nothing a server sets is kept


class _KeepsNoCookies:
    """Provider API calls are stateless: a cookie one answer sets must not travel with a later call
    (perhaps made with another key). Reading every response's cookies into a jar also cost 3 % of a
    batch's time."""

    @property
    def cookies(self) -> httpx.Cookies:
        return _NoCookies()

    @cookies.setter
    def cookies(self, cookies: Any) -> None:
        if cookies:
            raise ValueError("provider API clients keep no cookies; send a Cookie header instead")


class ApiClient(_KeepsNoCookies, httpx.Client):
    """The sync client of one lane: an ``httpx.Client`` that keeps no cookies."""


class AsyncApiClient(_KeepsNoCookies, httpx.AsyncClient):
    """The async twin: an ``httpx.AsyncClient`` that keeps no cookies."""


def network_transport() -> httpx.HTTPTransport:
    """A lane's own connection pool to the real network."""
    return httpx.HTTPTransport(verify=tls_context(), limits=LANE_LIMITS)


class Lanes:
    """The lanes of one provider's client; ``make()`` builds a lane's ``httpx.Client``."""

    def __init__(self, make: Callable[[], httpx.Client]) -> None:
        self._make = make
        self._lock = threading.Lock()
        self._free: list[httpx.Client] = []
        self._key: object = object()  # what the free lanes were built for; another key, other lanes

    @contextmanager
    def lane(self, key: object) -> Iterator[httpx.Client]:
        """A client no other request uses until this block ends, built for ``key`` (a transport setting).

        A lane built for an older key, or in use during ``close``, is closed when it is given back.
        """
        stale: list[httpx.Client] = []
        with self._lock:
            if key != self._key:
                stale, self._free, self._key = self._free, [], key
            client = self._free.pop() if self._free else None
        for old in stale:
            old.close()
        if client is None:
            client = self._make()
        try:
            yield client
        finally:
            with self._lock:
                keep = key == self._key and len(self._free) < MAX_FREE_LANES
                if keep:
                    self._free.append(client)
            if not keep:
                client.close()

    def close(self) -> None:
        """Close the free lanes now and those in use when their requests give them back."""
        with self._lock:
            lanes, self._free, self._key = self._free, [], object()
        for client in lanes:
            client.close()
