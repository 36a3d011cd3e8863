"""Serving on this machine only: a ``HOST:PORT`` that must be a loopback address.

Servers hermes_nb starts (``hermes-nb mcp --http``) can spend the user's provider keys and budget,
so they never listen on an address other machines reach.
"""

from __future__ import annotations

import ipaddress

from hermes_nb.errors import InvalidInputError

__all__ = ["is_loopback", "parse_loopback_bind"]

_LOOPBACK_NAMES = {"localhost"}


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback IP literals (127.0.0.0/8, ::1); names are not resolved."""
    if host.lower() in _LOOPBACK_NAMES:
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def parse_loopback_bind(bind: str, *, option: str = "--http") -> tuple[str, int]:
    """``"127.0.0.1:8765"`` → ``("127.0.0.1", 8765)``; only loopback hosts; port 0 picks a free one."""
    text = str(bind or "").strip()
    host, sep, port_text = text.rpartition(":")
    host = host.strip("[]")
    if not sep or not host or not port_text.isdigit() or int(port_text) > 65535:
        raise InvalidInputError(
            f"{option} takes HOST:PORT on loopback, such as 127.0.0.1:8765 (0 picks a free port), "
            f"got {bind!r}"
        )
    if not is_loopback(host):
        raise InvalidInputError(
            f"{option} binds loopback only (127.0.0.1, ::1 or localhost), not {host!r}: the server spends "
            "your provider keys and budget; reach it from elsewhere through an SSH tunnel"
        )
    return host, int(port_text)
