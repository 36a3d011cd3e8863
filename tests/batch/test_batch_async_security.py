"""The asyncio batch engine keeps the guarantees: SSRF guard, redaction, retries, rate limits."""

from __future__ import annotations

import asyncio
import http.server
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.redaction import register_secret
from hermes_nb.testing import Emulator, use_emulator


@pytest.fixture
def private_listener() -> Iterator[tuple[str, list[str]]]:
    """A server on loopback (a private address for the guard) that records every request it gets."""
    seen: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            seen.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<html><body>internal</body></html>")

        def log_message(self, *args: Any) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", seen
    finally:
        server.shutdown()
        server.server_close()


def test_private_addresses_are_blocked_on_the_async_path(
    hermetic: Path, private_listener: tuple[str, list[str]]
) -> None:
    base, seen = private_listener
    urls = [f"{base}/admin", "http://169.254.169.254/latest/meta-data/", "http://10.0.0.1/", f"{base}/x"]

    async def run() -> Any:
        return await hn.aextract_many(urls, backend="direct", concurrency=4, no_cache=True)

    result = asyncio.run(run())
    codes = [page.error_code for r in result for page in r.pages] if not result.errors else []
    codes += [e.code for e in result.errors]
    assert codes == ["CONTENT_BLOCKED"] * 4 and seen == []  # the listener got nothing


class Leaky(WebSearchProvider):
    tier = "keyless"
    secret = "sk-live-abcdef0123456789"

    @property
    def name(self) -> str:
        return "leaky"

    def is_available(self) -> bool:
        return True

    async def search(self, query: str, limit: int = 5) -> Any:
        raise RuntimeError(f"upstream refused key {self.secret} for {query}")


def test_error_rows_of_the_async_path_are_redacted(hermetic: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import hermes_nb.plugins.loader  # noqa: F401 - imported first so its hook install cannot undo the patch

    monkeypatch.setattr(web_providers, "loader", None)
    web_providers.register(Leaky())
    register_secret(Leaky.secret)

    async def run() -> Any:
        return [pair async for pair in hn.asearch_many(["a", "b"], backend="leaky")]

    pairs = asyncio.run(run())
    assert len(pairs) == 2
    for _, row in pairs:
        assert Leaky.secret not in row.message and Leaky.secret not in repr(row)


def test_retries_and_the_rate_limit_hold_on_the_async_path(hermetic: Path) -> None:
    with Emulator(seed=5) as emu, use_emulator(emu, ["serper"]):
        config.set("web.search_backend", "serper")
        config.set("batch.serper.rps", 25)
        emu.fail("serper", "503", times=2)
        emu.fail("serper", "429", times=None, fraction=0.3, retry_after=0, headers={"retry-after-ms": "20"})
        queries = [f"async storm {i}" for i in range(14)]

        async def run() -> Any:
            return await hn.asearch_many(queries, concurrency=6, no_cache=True)

        result = asyncio.run(run())
        served = len(emu.requests_for("serper"))
    assert result.errors == [] and [r.query for r in result] == queries
    assert served > len(queries) and hn.batch.limits()["serper"].throttled > 0
