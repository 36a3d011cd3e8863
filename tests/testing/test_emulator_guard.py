"""While the emulator is in use, the URL guard lets exactly its origin through, no other loopback server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import hermes_nb as hn
from hermes_nb import config
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.testing import Emulator, use_emulator


class _Secret(BaseHTTPRequestHandler):
    """A private service on loopback (JupyterLab's API, say): answers anyone with a secret page."""

    hits = 0

    def do_GET(self) -> None:
        type(self).hits += 1
        body = b"<html><body><h1>Private</h1><p>internal secret page</p></body></html>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
        pass


@pytest.fixture
def other_server(hermetic: Path) -> Iterator[str]:
    _Secret.hits = 0
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Secret)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    load_plugins()
    config.set("web.max_retries", 0)
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()
    thread.join(5)


def test_a_second_loopback_server_is_refused_while_the_emulator_pages_are_fetched(other_server: str) -> None:
    with Emulator(seed=0) as emu, use_emulator(emu):
        assert config.get("security.allow_private_urls") is False
        own = emu.page_url("/site/articles/hello-world.html")
        pages = hn.extract([own, other_server + "/api"], backend="direct", no_cache=True)
        by_url = {page.url: page for page in pages}
        assert not by_url[own].error and by_url[own].content.strip()
        refused = by_url[other_server + "/api"]
        assert refused.error_code == "CONTENT_BLOCKED", refused
        assert "not a public address" in refused.error and refused.content == ""
        # another port on the same host is another origin
        with pytest.raises(hn.HermesError) as info:
            hn.crawl(other_server + "/", depth=0, limit=1, backend="direct", no_cache=True)
        assert info.value.code == "CONTENT_BLOCKED"
    assert _Secret.hits == 0


def test_after_use_emulator_its_origin_is_refused_again(other_server: str) -> None:
    with Emulator(seed=0) as emu:
        with use_emulator(emu):
            assert emu.url in config.get("security.private_origins")
        page = hn.extract([emu.page_url("/site/")], backend="direct", no_cache=True)[0]
        assert page.error_code == "CONTENT_BLOCKED"
    assert config.get("security.private_origins") == []


def test_the_control_the_second_server_answers_when_private_urls_are_allowed(other_server: str) -> None:
    config.set("security.allow_private_urls", True)
    page = hn.extract([other_server + "/api"], backend="direct", no_cache=True)[0]
    assert not page.error and "internal secret page" in page.content
    assert _Secret.hits >= 1
