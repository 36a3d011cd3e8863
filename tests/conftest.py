"""Shared fixtures: every test runs with a temporary HERMES_HOME, no key env vars, fresh state."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

_KEYISH = re.compile(r"(API_KEY|_TOKEN|_SECRET|_KEY$|SEARXNG_URL|_BASE_URL|_API_URL|^HERMES_)")


@pytest.fixture(autouse=True)
def hermetic(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Temp ``HERMES_HOME``/``HOME``, credential env vars stripped, all hermes_nb state reset."""
    for name in list(os.environ):
        if _KEYISH.search(name):
            monkeypatch.delenv(name, raising=False)
    home = tmp_path / "hermes_home"
    home.mkdir()
    monkeypatch.setenv("HERMES_HOME", str(home))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.chdir(tmp_path)
    from hermes_nb import _state

    _state.reset_all()
    yield home
    _state.reset_all()


_LOOPBACK_NAMES = {"localhost", "localhost.localdomain", "ip6-localhost", ""}


def _loopback(host: object) -> bool:
    import ipaddress

    if not isinstance(host, str) or host.lower() in _LOOPBACK_NAMES:
        return isinstance(host, str)
    try:
        return ipaddress.ip_address(host.split("%", 1)[0]).is_loopback
    except ValueError:
        return False


@pytest.fixture(autouse=True)
def no_internet(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test touches the internet: connections and name lookups beyond loopback fail at once.

    A provider whose default endpoint is a real host (a keyless MCP server, say) must be pointed at
    the emulator; if a test forgets, this fails it here instead of reaching the vendor.
    """
    import socket

    real_connect, real_connect_ex, real_getaddrinfo = (
        socket.socket.connect, socket.socket.connect_ex, socket.getaddrinfo,
    )

    def _check(sock: socket.socket, address: object) -> None:
        inet = sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple)
        if inet and not _loopback(address[0]):  # type: ignore[index]
            raise OSError(f"tests may not reach the internet (connect to {address[0]!r})")  # type: ignore[index]

    def connect(sock: socket.socket, address: object) -> None:
        _check(sock, address)
        real_connect(sock, address)  # type: ignore[arg-type]

    def connect_ex(sock: socket.socket, address: object) -> int:
        _check(sock, address)
        return real_connect_ex(sock, address)  # type: ignore[arg-type]

    def getaddrinfo(host: object, *args: object, **kwargs: object) -> object:
        if host is not None and not _loopback(host if isinstance(host, str) else str(host)):
            raise socket.gaierror(socket.EAI_NONAME, f"tests may not resolve {host!r} (no internet in tests)")
        return real_getaddrinfo(host, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(socket.socket, "connect", connect)
    monkeypatch.setattr(socket.socket, "connect_ex", connect_ex)
    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
