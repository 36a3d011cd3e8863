"""Transport adapters: one transport (e.g. ``httpx.MockTransport``) serves sync and async clients."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any

import httpx

from hermes_nb._async import run_sync
from hermes_nb.errors import InvalidInputError

__all__ = ["as_sync_transport", "as_async_transport", "decoded_headers"]


class _AsyncFromSync(httpx.AsyncBaseTransport):
    """Runs a sync transport in a worker thread so the async client can use it too."""

    def __init__(self, inner: httpx.BaseTransport) -> None:
        self._inner = inner

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        def _call() -> httpx.Response:
            resp = self._inner.handle_request(request)
            try:
                body = resp.read()
            finally:
                resp.close()
            return httpx.Response(resp.status_code, headers=decoded_headers(resp), content=body,
                                  extensions=resp.extensions)

        return await asyncio.to_thread(_call)


def as_sync_transport(transport: Any) -> httpx.BaseTransport | None:
    if transport is None:
        return None
    handler = getattr(transport, "handler", None)
    if isinstance(transport, httpx.MockTransport) and inspect.iscoroutinefunction(handler):
        assert handler is not None
        return httpx.MockTransport(lambda request: run_sync(handler(request)))
    if isinstance(transport, httpx.BaseTransport):
        return transport
    raise InvalidInputError(
        "set_transport() needs an httpx.BaseTransport (or an httpx.MockTransport) for sync calls"
    )


def as_async_transport(transport: Any) -> httpx.AsyncBaseTransport | None:
    if transport is None or isinstance(transport, httpx.AsyncBaseTransport):
        return transport
    return _AsyncFromSync(transport)


def decoded_headers(resp: httpx.Response) -> list[tuple[str, str]]:
    """Headers for a body that is already decoded: encoding and length headers must go."""
    drop = ("content-encoding", "content-length", "transfer-encoding")
    return [(k, v) for k, v in resp.headers.multi_items() if k.lower() not in drop]
