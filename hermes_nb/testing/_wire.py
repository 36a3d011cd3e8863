"""Wire types shared by the emulator's server and its vendor APIs: requests, responses, calls."""

from __future__ import annotations

import json as _json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from hermes_nb.testing._server import Emulator


@dataclass(frozen=True)
class RecordedRequest:
    """One request the emulator received, as the client sent it (header names lower-cased)."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    body: bytes
    json: Any
    provider: str
    at: float = 0.0  # when it arrived (the emulator's clock)

    def param(self, name: str, default: str | None = None) -> str | None:
        """The first value of query parameter ``name``."""
        values = self.query.get(name)
        return values[0] if values else default


@dataclass
class Response:
    """What a route answers; the server always sets ``Content-Length``."""

    status: int = 200
    body: bytes = b""
    content_type: str = "application/json"
    headers: dict[str, str] = field(default_factory=dict)

    @classmethod
    def json(cls, data: Any, status: int = 200, headers: dict[str, str] | None = None) -> Response:
        return cls(status, _json.dumps(data).encode("utf-8"), "application/json", dict(headers or {}))

    @classmethod
    def text(
        cls,
        text: str,
        status: int = 200,
        content_type: str = "text/plain; charset=utf-8",
        headers: dict[str, str] | None = None,
    ) -> Response:
        return cls(status, text.encode("utf-8"), content_type, dict(headers or {}))


@dataclass
class Call:
    """One request routed to a vendor API, with the fault flags that change its answer."""

    emu: Emulator
    request: RecordedRequest
    subpath: str  # the path after the provider prefix, e.g. "/res/v1/web/search"
    auth_fail: bool = False  # the "auth" fault: answer as if the key were bad
    empty: bool = False  # the "empty" fault: a successful answer with no results

    @property
    def json_body(self) -> dict[str, Any]:
        body = self.request.json
        return body if isinstance(body, dict) else {}

    def header(self, name: str) -> str | None:
        return self.request.headers.get(name.lower())

    def bearer(self) -> str | None:
        """The token of an ``Authorization: Bearer`` header, else None."""
        auth = self.header("authorization") or ""
        scheme, _, token = auth.partition(" ")
        return token.strip() or None if scheme.lower() == "bearer" else None

    def rejects_bearer(self) -> bool:
        """True when the vendor would answer 401: an auth fault, no Bearer token, or the bad key."""
        return self.rejects_token("bearer")

    def rejects_token(self, scheme: str) -> bool:
        """Like ``rejects_bearer`` for an ``Authorization: <scheme> <token>`` header (fal: ``Key``)."""
        given, _, token = (self.header("authorization") or "").partition(" ")
        key = token.strip() if given.lower() == scheme.lower() else ""
        return self.auth_fail or not key or key == self.emu.BAD_KEY


class Api(Protocol):
    """A vendor API served under ``/<name>``."""

    name: str

    def handle(self, call: Call) -> Response: ...

    def error(self, call: Call, status: int, retry_after: float | None) -> Response:
        """The vendor's own error answer for ``status`` (used by status faults)."""
        ...


def retry_after_header(retry_after: float | None) -> dict[str, str]:
    """A fault's ``retry_after`` as a ``Retry-After`` header in whole seconds; ``{}`` when it has none."""
    return {"Retry-After": str(int(retry_after))} if retry_after is not None else {}


def mask_key(key: str) -> str:
    """Shorten a key the way vendors echo it in auth errors (first 3 and last 2 characters)."""
    if len(key) <= 6:
        return "*" * len(key)
    return key[:3] + "*" * (len(key) - 5) + key[-2:]
