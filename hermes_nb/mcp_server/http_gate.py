"""``hermes-nb mcp --http 127.0.0.1:PORT``: streamable HTTP on loopback, a bearer token on every request.

The token is made fresh for each start (``secrets.token_urlsafe``), printed once with the URL, and
then masked like any other secret. A request without ``Authorization: Bearer <token>`` gets 401
before it reaches the MCP layer. Only loopback addresses bind: the server can spend the user's
provider keys and budget, so it must not be reachable from the network.
"""

from __future__ import annotations

import hmac
import json
import secrets
import socket
import sys
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any, TextIO

from hermes_nb.errors import InvalidInputError
from hermes_nb.extras import require
from hermes_nb.net.loopback import parse_loopback_bind
from hermes_nb.redaction import register_secret

__all__ = ["MCP_PATH", "BearerGate", "parse_bind", "serve_http"]

MCP_PATH = "/mcp"

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def parse_bind(bind: str) -> tuple[str, int]:
    """``"127.0.0.1:8765"`` → ``("127.0.0.1", 8765)``; only loopback hosts; port 0 picks a free one."""
    return parse_loopback_bind(bind, option="--http")


class BearerGate:
    """ASGI middleware: every HTTP request must carry ``Authorization: Bearer <token>``."""

    def __init__(self, app: App, token: str) -> None:
        self.app = app
        self._expected = f"Bearer {token}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope.get("type") == "http":
            given = dict(scope.get("headers") or []).get(b"authorization", b"")
            if not hmac.compare_digest(given, self._expected):
                await _refuse(send)
                return
        await self.app(scope, receive, send)


async def _refuse(send: Send) -> None:
    body = json.dumps(
        {
            "error": "unauthorized",
            "error_description": "send the bearer token that `hermes-nb mcp --http` printed when it started "
            "(Authorization: Bearer <token>)",
        }
    ).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"www-authenticate", b'Bearer realm="hermes-nb"'),
    ]
    await send({"type": "http.response.start", "status": 401, "headers": headers})
    await send({"type": "http.response.body", "body": body})


def _bound_socket(host: str, port: int) -> socket.socket:
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((host, port))
    except OSError as exc:
        sock.close()
        raise InvalidInputError(
            f"cannot listen on {host}:{port} ({exc.strerror}); choose another port"
        ) from None
    sock.listen(128)
    sock.set_inheritable(True)
    return sock


def serve_http(bind: str, *, token: str | None = None, out: TextIO | None = None) -> None:
    """Serve streamable HTTP on ``bind`` until interrupted; prints the URL and the token once to ``out``."""
    uvicorn = require("uvicorn", "hermes-nb mcp --http")

    from hermes_nb.mcp_server.app import build_server

    host, port = parse_bind(bind)
    token = token or secrets.token_urlsafe(32)
    sock = _bound_socket(host, port)
    actual = sock.getsockname()[1]
    shown_host = f"[{host}]" if ":" in host else host
    app = BearerGate(build_server().streamable_http_app(streamable_http_path=MCP_PATH, host=host), token)
    stream = out or sys.stdout
    stream.write(
        f"hermes-nb MCP server on http://{shown_host}:{actual}{MCP_PATH} (loopback only; Ctrl-C stops it)\n"
    )
    stream.write(f"bearer token (shown once): {token}\n")
    stream.flush()
    register_secret(token)  # from here on, no log line or error shows it
    config = uvicorn.Config(app, log_level="warning", lifespan="on")
    server = uvicorn.Server(config)
    try:
        server.run(sockets=[sock])
    finally:
        sock.close()
