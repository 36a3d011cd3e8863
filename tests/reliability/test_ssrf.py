"""Hostile URLs through the SDK: zero requests reach a private listener, each URL refused with a reason."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import hermes_nb as hn
from hermes_nb.errors import ContentBlockedError, HermesError
from hermes_nb.net import url_guard
from hermes_nb.plugins.image_download import fetch_image_bytes
from hermes_nb.plugins.loader import load_plugins


class Listener:
    """A private TCP listener on 127.0.0.1 that counts every connection it accepts."""

    def __init__(self) -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(64)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.accepted += 1
            conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(5)
        self.sock.close()


def hostile_urls(port: int) -> list[str]:
    """Every spelling of 'this machine or the private network' we know, each aimed at the listener's port."""
    hosts = [
        "127.0.0.1", "127.1", "127.0.1", "0x7f000001", "0x7f.0x0.0x0.0x1", "2130706433", "017700000001",
        "0177.0.0.1", "0177.0.0.01", "127.000.000.001", "0.0.0.0", "0", "localhost", "LOCALHOST",
        "localhost.",
        "api.localhost", "[::1]", "[0:0:0:0:0:0:0:1]", "[::ffff:127.0.0.1]", "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:127.0.0.1]", "[::127.0.0.1]", "[64:ff9b::127.0.0.1]", "[2002:7f00:1::]",
        "[::]", "10.0.0.1", "10.255.255.254", "172.16.0.1", "172.31.255.1", "192.168.0.1", "192.168.1.254",
        "169.254.169.254", "169.254.170.2", "100.64.0.1", "[fd00::1]", "[fe80::1]", "[fc00::1]",
        "metadata.google.internal", "rebind.test", "mixed.test", "ｌｏｃａｌｈｏｓｔ", "127。0。0。1",
    ]
    return [f"http://{host}:{port}/secret" for host in hosts]


_DNS = {
    "rebind.test": ["127.0.0.1"],  # a public-looking name whose answer is this machine
    "mixed.test": ["93.184.216.34", "127.0.0.1"],  # one good answer does not excuse a bad one
    "metadata.google.internal": ["169.254.169.254"],
}


@pytest.fixture
def listener(hermetic: Path) -> Iterator[Listener]:
    server = Listener()

    def resolve(host: str, port: int) -> list[str]:
        if host in _DNS:
            return _DNS[host]
        return url_guard.default_resolver(host, port)

    url_guard.set_resolver(resolve)
    load_plugins()
    hn.config.set("security.allow_private_urls", False)
    hn.config.set("web.max_retries", 0)
    yield server
    url_guard.set_resolver(None)
    server.close()


def test_at_least_40_hostile_urls(listener: Listener) -> None:
    assert len(hostile_urls(listener.port)) >= 40


def test_extract_refuses_every_hostile_url_and_nothing_reaches_the_listener(listener: Listener) -> None:
    urls = hostile_urls(listener.port)
    result = hn.extract(urls, backend="direct", no_cache=True)
    assert [p.url for p in result] == urls
    for page in result:
        assert page.error and page.error_code in ("CONTENT_BLOCKED", "INVALID_INPUT"), page
        assert page.content == ""
    blocked = [p for p in result if p.error_code == "CONTENT_BLOCKED"]
    assert len(blocked) >= 35 and all("security.allow_private_urls" in p.error for p in blocked)
    assert listener.accepted == 0


def test_crawl_and_image_downloads_refuse_them_too(listener: Listener) -> None:
    for url in hostile_urls(listener.port):
        with pytest.raises(HermesError):
            hn.crawl(url, depth=0, limit=1, backend="direct", no_cache=True)
        with pytest.raises(HermesError):
            fetch_image_bytes(url, timeout=5)
    assert listener.accepted == 0


def test_the_listener_is_reachable_when_private_urls_are_allowed(listener: Listener) -> None:
    # The control: the same listener does count a connection once the guard is turned off on purpose.
    hn.config.set("security.allow_private_urls", True)
    with pytest.raises(HermesError):
        fetch_image_bytes(f"http://127.0.0.1:{listener.port}/secret", timeout=5)
    assert listener.accepted >= 1
    with pytest.raises(ContentBlockedError):
        hn.config.set("security.allow_private_urls", False)
        fetch_image_bytes(f"http://[::ffff:127.0.0.1]:{listener.port}/", timeout=5)
