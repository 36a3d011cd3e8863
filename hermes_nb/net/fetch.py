"""Guarded fetching of user-supplied URLs: SSRF checks per hop, pinned DNS, size cap, type and charset.

Every hop is validated by ``hermes_nb.net.url_guard`` and the connection goes to the address that was
checked (the URL host is rewritten to that IP; ``Host`` and TLS SNI keep the name), so a DNS answer
that changes between check and connect cannot reach a private address. Redirects are followed by
hand (at most ``MAX_REDIRECTS``) under one deadline for the whole chain. Bodies are streamed and
cut at ``max_bytes`` decoded bytes (``truncated=True``, not an error). Only GET is supported.
"""

from __future__ import annotations

import asyncio
import threading
import time
import zlib
from collections.abc import AsyncIterator, Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urljoin

import httpx

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb.errors import ContentFetchError, TimeoutError_
from hermes_nb.net._headers import user_agent
from hermes_nb.net._lanes import tls_context
from hermes_nb.net._sniff import detect_charset, detect_content_type
from hermes_nb.net._transports import as_async_transport, as_sync_transport
from hermes_nb.net.url_guard import GuardedURL, Resolver, check_url

__all__ = [
    "MAX_REDIRECTS",
    "DEFAULT_ACCEPT",
    "DEFAULT_MAX_BYTES",
    "FetchedContent",
    "fetch",
    "afetch",
    "set_transport",
    "set_clock",
]

MAX_REDIRECTS = 5
DEFAULT_MAX_BYTES = 10 * 1024 * 1024
DEFAULT_ACCEPT = "text/html,text/plain;q=0.9,*/*;q=0.1"
_REDIRECTS = frozenset({301, 302, 303, 307, 308})
_CROSS_ORIGIN_DROP = ("authorization", "cookie", "proxy-authorization")

_lock = threading.Lock()
_transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None
_clock: Callable[[], float] = time.monotonic


@dataclass
class FetchedContent:
    """One fetched document (after redirects)."""

    url: str
    final_url: str
    status: int
    headers: dict[str, str]
    content: bytes
    content_type: str
    charset: str | None
    truncated: bool
    redirects: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The body decoded with the detected charset (UTF-8 with replacement when unknown)."""
        charset = self.charset or "utf-8"
        has_bom = self.content.startswith(b"\xef\xbb\xbf")
        if has_bom and charset.replace("_", "-").lower() in ("utf-8", "utf8"):
            charset = "utf-8-sig"
        try:
            return self.content.decode(charset, errors="replace")
        except LookupError:
            return self.content.decode("utf-8", errors="replace")

    def __repr__(self) -> str:
        cut = ", truncated" if self.truncated else ""
        return (f"FetchedContent({self.final_url!r}, status={self.status}, {self.content_type!r}, "
                f"{len(self.content)} bytes{cut})")


def set_transport(transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None) -> None:
    """Send every fetch through ``transport`` (tests); None restores real connections.

    The transport sees the pinned request: ``request.url.host`` is the validated IP address and
    the ``Host`` header carries the original name.
    """
    global _transport
    with _lock:
        _transport = transport


def set_clock(clock: Callable[[], float] | None) -> None:
    """Use ``clock`` for deadlines (tests); None restores ``time.monotonic``."""
    global _clock
    _clock = clock or time.monotonic


@on_reset
def _reset() -> None:
    set_transport(None)
    set_clock(None)


class _Plan:
    """Settings and state of one fetch call, shared by the sync and async paths."""

    def __init__(self, url: str, max_bytes: int, timeout: float | None, deadline: float | None,
                 headers: dict[str, str] | None, accept: str | None, resolver: Resolver | None,
                 allow_networks: Iterable[str], transport: Any) -> None:
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        self.url = url
        self.max_bytes = max_bytes
        self.timeout = float(timeout if timeout is not None else config.get("web.timeout", 20.0))
        span = float(deadline if deadline is not None else config.get("web.deadline", 60.0))
        self.start = _clock()
        self.end = self.start + span
        self.headers = {"User-Agent": user_agent(), "Accept": accept or DEFAULT_ACCEPT}
        self.headers.update(headers or {})
        self.resolver = resolver
        self.allow_networks = tuple(allow_networks)
        self.transport = transport if transport is not None else _transport
        self.redirects: list[str] = []
        self.origin: tuple[str, str, int] | None = None

    def guard(self, url: str) -> GuardedURL:
        return check_url(url, resolver=self.resolver, allow_networks=self.allow_networks)

    def remaining(self) -> float:
        left = self.end - _clock()
        if left <= 0:
            raise TimeoutError_(
                f"fetching {_short(self.url)} did not finish within its deadline "
                f"({self.end - self.start:.1f}s); raise web.deadline or pass deadline="
            )
        return left

    def request_args(self, guarded: GuardedURL, address: str) -> dict[str, Any]:
        if self.origin is not None and guarded.origin != self.origin:
            for name in list(self.headers):
                if name.lower() in _CROSS_ORIGIN_DROP:
                    del self.headers[name]
        self.origin = guarded.origin
        default_port = guarded.port == (443 if guarded.scheme == "https" else 80)
        shown = f"[{guarded.host}]" if ":" in guarded.host else guarded.host
        headers = dict(self.headers)
        headers["Host"] = shown if default_port else f"{shown}:{guarded.port}"
        extensions: dict[str, Any] = {}
        if guarded.scheme == "https" and guarded.host != address:
            extensions["sni_hostname"] = guarded.host
        timeout = min(self.timeout, self.remaining())
        pinned = str(httpx.URL(guarded.url).copy_with(host=address))
        return {"url": pinned, "headers": headers, "extensions": extensions, "timeout": timeout}

    def next_hop(self, guarded: GuardedURL, status: int, headers: httpx.Headers) -> str:
        location = headers.get("location")
        if not location:
            raise ContentFetchError(f"HTTP {status} redirect without a Location header from "
                                    f"{_short(guarded.url)}", status=status)
        if len(self.redirects) >= MAX_REDIRECTS:
            raise ContentFetchError(f"too many redirects (more than {MAX_REDIRECTS}) starting at "
                                    f"{_short(self.url)}", status=status)
        target = urljoin(guarded.url, location.strip())
        self.redirects.append(target)
        return target

    def result(self, guarded: GuardedURL, resp: httpx.Response, body: bytes,
               truncated: bool) -> FetchedContent:
        if not 200 <= resp.status_code < 300:
            raise ContentFetchError(
                f"HTTP {resp.status_code} {resp.reason_phrase} for {_short(guarded.url)}",
                status=resp.status_code,
            )
        headers = {k.lower(): ", ".join(resp.headers.get_list(k)) for k in resp.headers}
        header_type = headers.get("content-type", "")
        ctype = detect_content_type(guarded.url, header_type, body)
        return FetchedContent(
            url=self.url, final_url=guarded.url, status=resp.status_code, headers=headers,
            content=body, content_type=ctype, charset=detect_charset(header_type, body, ctype),
            truncated=truncated, redirects=list(self.redirects),
        )


def _short(url: str) -> str:
    return url.split("?", 1)[0][:200]


def _connect_failed(guarded: GuardedURL, exc: Exception) -> ContentFetchError:
    return ContentFetchError(f"could not connect to {guarded.host}:{guarded.port} for {_short(guarded.url)} "
                             f"({type(exc).__name__})")


def _timeout(guarded: GuardedURL, exc: Exception) -> TimeoutError_:
    return TimeoutError_(f"fetching {_short(guarded.url)} timed out ({type(exc).__name__}); "
                         "raise web.timeout or try again later")


def _inflater(encoding: str) -> Callable[[bytes], Iterator[bytes]] | None:
    """A bounded gzip/deflate decoder: never more than 64 KiB out per step (gzip bombs)."""
    if encoding not in ("gzip", "x-gzip", "deflate"):
        return None
    state: dict[str, Any] = {"d": zlib.decompressobj(31 if "gzip" in encoding else 15), "first": True}

    def feed(data: bytes) -> Iterator[bytes]:
        while data:
            try:
                out = state["d"].decompress(data, 65536)
            except zlib.error:
                if encoding == "deflate" and state["first"]:  # raw deflate without zlib header
                    state["d"], state["first"] = zlib.decompressobj(-15), False
                    continue
                raise ContentFetchError(f"the {encoding} response body is corrupt") from None
            state["first"] = False
            if out:
                yield out
            d = state["d"]
            data = d.unconsumed_tail
            if d.eof and d.unused_data:  # concatenated gzip members
                data, state["d"] = d.unused_data, zlib.decompressobj(31 if "gzip" in encoding else 15)

    return feed


def _collect(chunks: Iterable[bytes], plan: _Plan, body: bytearray) -> bool:
    """Append up to the cap; True when the body was cut."""
    for chunk in chunks:
        room = plan.max_bytes - len(body)
        if len(chunk) > room:
            body += chunk[:room]
            return True
        body += chunk
        plan.remaining()  # a slow drip must not outlive the deadline
    return False


def _fetch_chain_sync(plan: _Plan) -> FetchedContent:
    transport = as_sync_transport(plan.transport)
    current = plan.url
    while True:
        guarded = plan.guard(current)
        with httpx.Client(transport=transport, follow_redirects=False, trust_env=False,
                          verify=tls_context()) as client:
            resp = None
            for i, address in enumerate(guarded.addresses):
                args = plan.request_args(guarded, address)
                try:
                    resp = client.send(client.build_request("GET", args["url"], headers=args["headers"],
                                                            extensions=args["extensions"],
                                                            timeout=args["timeout"]), stream=True)
                    break
                except httpx.ConnectError as exc:
                    if i == len(guarded.addresses) - 1:
                        raise _connect_failed(guarded, exc) from None
                except httpx.TimeoutException as exc:
                    raise _timeout(guarded, exc) from None
                except httpx.HTTPError as exc:
                    raise _connect_failed(guarded, exc) from None
            assert resp is not None
            try:
                if resp.status_code in _REDIRECTS:
                    current = plan.next_hop(guarded, resp.status_code, resp.headers)
                    continue
                body = bytearray()
                feed = _inflater(resp.headers.get("content-encoding", "identity").strip().lower())
                if resp.is_stream_consumed:  # a transport that hands back an already read body
                    truncated = _collect(resp.iter_bytes(), plan, body)
                elif feed is not None:
                    truncated = _collect((c for raw in resp.iter_raw() for c in feed(raw)), plan, body)
                elif resp.headers.get("content-encoding", "identity").strip().lower() == "identity":
                    truncated = _collect(resp.iter_raw(), plan, body)
                else:
                    truncated = _collect(resp.iter_bytes(), plan, body)
            except httpx.TimeoutException as exc:
                raise _timeout(guarded, exc) from None
            except httpx.HTTPError as exc:
                raise ContentFetchError(f"reading {_short(guarded.url)} failed ({type(exc).__name__})") \
                    from None
            finally:
                resp.close()
            return plan.result(guarded, resp, bytes(body), truncated)


async def _acollect(chunks: AsyncIterator[bytes], plan: _Plan, body: bytearray,
                    feed: Callable[[bytes], Iterator[bytes]] | None) -> bool:
    async for raw in chunks:
        if _collect(feed(raw) if feed else (raw,), plan, body):
            return True
    return False


async def _fetch_chain_async(plan: _Plan) -> FetchedContent:
    transport = as_async_transport(plan.transport)
    current = plan.url
    while True:
        guarded = await asyncio.to_thread(plan.guard, current)
        async with httpx.AsyncClient(transport=transport, follow_redirects=False, trust_env=False,
                                     verify=tls_context()) as client:
            resp = None
            for i, address in enumerate(guarded.addresses):
                args = plan.request_args(guarded, address)
                try:
                    resp = await client.send(client.build_request("GET", args["url"], headers=args["headers"],
                                                                  extensions=args["extensions"],
                                                                  timeout=args["timeout"]), stream=True)
                    break
                except httpx.ConnectError as exc:
                    if i == len(guarded.addresses) - 1:
                        raise _connect_failed(guarded, exc) from None
                except httpx.TimeoutException as exc:
                    raise _timeout(guarded, exc) from None
                except httpx.HTTPError as exc:
                    raise _connect_failed(guarded, exc) from None
            assert resp is not None
            try:
                if resp.status_code in _REDIRECTS:
                    current = plan.next_hop(guarded, resp.status_code, resp.headers)
                    continue
                body = bytearray()
                encoding = resp.headers.get("content-encoding", "identity").strip().lower()
                feed = _inflater(encoding)
                if resp.is_stream_consumed:
                    truncated = await _acollect(resp.aiter_bytes(), plan, body, None)
                elif feed is not None or encoding == "identity":
                    truncated = await _acollect(resp.aiter_raw(), plan, body, feed)
                else:
                    truncated = await _acollect(resp.aiter_bytes(), plan, body, None)
            except httpx.TimeoutException as exc:
                raise _timeout(guarded, exc) from None
            except httpx.HTTPError as exc:
                raise ContentFetchError(f"reading {_short(guarded.url)} failed ({type(exc).__name__})") \
                    from None
            finally:
                await resp.aclose()
            return plan.result(guarded, resp, bytes(body), truncated)


def fetch(url: str, *, max_bytes: int = DEFAULT_MAX_BYTES, timeout: float | None = None,
          deadline: float | None = None, headers: dict[str, str] | None = None, accept: str | None = None,
          resolver: Resolver | None = None, allow_networks: Iterable[str] = (),
          transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None) -> FetchedContent:
    """GET a user-supplied URL through the SSRF guard; see the module docstring.

    Raises ``InvalidInputError`` (bad URL), ``ContentBlockedError`` (private address on any hop),
    ``ContentFetchError`` (DNS failure, connection failure, non-2xx final status, redirect without
    Location, more than 5 redirects) and ``TimeoutError_`` (``timeout`` per request, default
    ``web.timeout``; ``deadline`` for the whole chain, default ``web.deadline``).
    """
    plan = _Plan(url, max_bytes, timeout, deadline, headers, accept, resolver, allow_networks, transport)
    return _fetch_chain_sync(plan)


async def afetch(url: str, *, max_bytes: int = DEFAULT_MAX_BYTES, timeout: float | None = None,
                 deadline: float | None = None, headers: dict[str, str] | None = None,
                 accept: str | None = None, resolver: Resolver | None = None,
                 allow_networks: Iterable[str] = (),
                 transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None) -> FetchedContent:
    """Async twin of ``fetch`` (DNS resolution runs in a worker thread)."""
    plan = _Plan(url, max_bytes, timeout, deadline, headers, accept, resolver, allow_networks, transport)
    return await _fetch_chain_async(plan)
