"""The emulator's HTTP server: loopback binding, routing, latency, fault injection, request log."""

from __future__ import annotations

import collections
import copy
import hashlib
import json
import random
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

from hermes_nb.errors import InvalidInputError
from hermes_nb.testing import _files, _pages
from hermes_nb.testing._registry import PREFIXES, FakePlugin, Route, discover_fakes
from hermes_nb.testing._wire import Api, Call, RecordedRequest, Response

__all__ = ["Emulator", "Fault", "FAULT_KINDS", "PROVIDER_PREFIXES"]

#: provider name -> path prefix of its base URL on the emulator, from the plugins' ``fake.py`` files
#: (read live: an enabled user plugin's fake appears here).
PROVIDER_PREFIXES = PREFIXES
#: what the emulator serves itself, beside the plugins' fakes: the test website and its files
_OWN_ROUTES = (Route("site", "/site", _pages.SiteApi()), Route("site", "/robots.txt", _pages.SiteApi()),
               Route("files", "/files", _files.FilesApi()))
FAULT_KINDS = ("timeout", "hang", "reset", "malformed_json", "slow_body", "auth", "empty")
_LOOPBACK = {"127.0.0.1", "localhost"}


@dataclass
class Fault:
    """A programmed failure: ``kind`` for requests matching ``target``, ``remaining`` more times."""

    target: str
    kind: str
    remaining: int | None
    opts: dict[str, Any] = field(default_factory=dict)
    draws: random.Random = field(default_factory=lambda: random.Random(0), repr=False)

    def matches(self, path: str, provider: str) -> bool:
        if self.target.startswith("/"):
            return path.startswith(self.target)
        return self.target == provider

    def fires(self) -> bool:
        """With ``fraction=`` only that share of the matching requests fail (seeded: repeatable)."""
        share = self.opts.get("fraction")
        return share is None or self.draws.random() < float(share)


class Emulator:
    """A real HTTP server on 127.0.0.1 speaking the bundled providers' APIs (see the package docs)."""

    BAD_KEY = "bad-key"
    MODERATION_WORD = "forbidden"

    def __init__(self, seed: int = 0, *, host: str = "127.0.0.1", port: int = 0) -> None:
        if host not in _LOOPBACK:
            raise InvalidInputError(
                f"the emulator listens on loopback only; use host='127.0.0.1' (got {host!r})"
            )
        self.seed = seed
        self.latency = 0.0
        self.file_ttl_s = 60.0
        self.file_max_downloads: int | None = 1
        self.allow_legacy_models = False
        self.results_link_to_site = False
        self.clock: Callable[[], float] = time.monotonic
        self._lock = threading.Lock()
        self._log: list[RecordedRequest] = []
        self._counts: collections.Counter[str] = collections.Counter()  # requests per provider
        self._faults: list[Fault] = []
        self._closing = threading.Event()
        self.state: dict[str, Any] = {}  # per-API state (fal jobs, served files), guarded by state_lock
        self.state_lock = threading.Lock()
        self.fakes: list[FakePlugin] = discover_fakes()
        for fake in self.fakes:  # the knobs each fake offers (``emu.fal_polls_to_complete = 0``, ...)
            for name, default in fake.options.items():
                if name in vars(self):
                    raise InvalidInputError(f"{fake.path}: option {name!r} is taken; choose another name")
                setattr(self, name, copy.deepcopy(default))
        routes = [route for fake in self.fakes for route in fake.routes]
        # longest prefix first; of two routes on one prefix, the one limited to some paths first
        self._routes = sorted(
            [*routes, *_OWN_ROUTES], key=lambda r: (len(r.prefix), bool(r.paths)), reverse=True
        )
        self._apis: dict[str, Api] = {}
        for route in self._routes:
            self._apis.setdefault(route.name, route.api)
        self._addresses = {name: prefix for fake in self.fakes for name, prefix in fake.addresses.items()}
        self._httpd = _Server(("127.0.0.1", port), _Handler)
        self._httpd.emulator = self
        self.port: int = self._httpd.server_address[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"hermes-nb-emulator-{self.port}",
            daemon=True,
        )
        self._thread.start()

    # -- lifecycle -------------------------------------------------------------------------
    def close(self) -> None:
        """Stop serving, wake every hanging request, and join the server thread."""
        if self._closing.is_set():
            return
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> Emulator:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Emulator(url={self.url!r}, seed={self.seed})"

    # -- addresses -------------------------------------------------------------------------
    def base_url(self, provider: str) -> str:
        """The value for ``web.<provider>.base_url`` / ``image_gen.<provider>.base_url``."""
        try:
            return self.url + self._addresses[provider]
        except KeyError:
            raise InvalidInputError(
                f"the emulator does not speak {provider!r}; choose one of {sorted(self._addresses)}"
            ) from None

    def page_url(self, path: str = "/site/") -> str:
        """Absolute URL of a page of the emulated website (``/site/...`` or ``/robots.txt``)."""
        if not path.startswith("/"):
            path = "/" + path
        if not (path.startswith("/site") or path == "/robots.txt" or path.startswith("/files/")):
            path = "/site" + path
        return self.url + path

    # -- request log -----------------------------------------------------------------------
    @property
    def requests(self) -> list[RecordedRequest]:
        """A snapshot of every request received so far, oldest first."""
        with self._lock:
            return list(self._log)

    def requests_for(self, provider: str) -> list[RecordedRequest]:
        return [r for r in self.requests if r.provider == provider]

    def request_count(self, provider: str | None = None) -> int:
        """How many requests were received (for ``provider`` only, when given), without copying the log."""
        with self._lock:
            return len(self._log) if provider is None else self._counts[provider]

    def reset_log(self) -> None:
        with self._lock:
            self._log.clear()
            self._counts.clear()

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._log.append(request)
            self._counts[request.provider] += 1

    # -- faults ----------------------------------------------------------------------------
    def fail(self, target: str, kind: str, times: int | None = 1, **opts: Any) -> Fault:
        """Make the next ``times`` requests to ``target`` (provider name or path prefix) fail.

        ``kind``: an HTTP status ("429", "500", "502", "503", "432", ...; the vendor's own error
        body, ``retry_after=`` seconds for 429s), "timeout"/"hang" (no answer for ``seconds``,
        then the connection closes), "reset" (TCP reset, no answer), "malformed_json",
        "slow_body" (the body dripped over ``seconds``), "auth" (the vendor's bad-key answer),
        "empty" (success without results). ``headers=`` adds response headers. ``times=None``
        keeps failing until ``clear_faults()``. ``fraction=0.3`` fails only that share of the
        matching requests (drawn from the emulator's seed), e.g. a 429 storm.
        """
        kind = str(kind)
        if not (kind.isdigit() and len(kind) == 3) and kind not in FAULT_KINDS:
            raise InvalidInputError(
                f"unknown fault kind {kind!r}; use an HTTP status like '503' or one of {FAULT_KINDS}"
            )
        if not target.startswith("/") and target not in self._apis and target not in ("site", "files"):
            raise InvalidInputError(
                f"unknown fault target {target!r}; use a provider name {sorted(self._apis)} or a path"
            )
        if times is not None and times < 1:
            raise InvalidInputError("times must be >= 1, or None for 'until cleared'")
        fault = Fault(target, kind, times, opts, random.Random(self.seed))
        with self._lock:
            self._faults.append(fault)
        return fault

    def clear_faults(self) -> None:
        with self._lock:
            self._faults.clear()

    def _take_fault(self, path: str, provider: str) -> Fault | None:
        with self._lock:
            for fault in self._faults:
                if fault.matches(path, provider) and fault.fires():
                    if fault.remaining is not None:
                        fault.remaining -= 1
                        if fault.remaining <= 0:
                            self._faults.remove(fault)
                    return fault
        return None

    # -- helpers for the APIs ---------------------------------------------------------------
    def rng(self, *parts: object) -> random.Random:
        """A random generator fixed by the emulator's seed and ``parts`` (deterministic answers)."""
        text = "|".join([str(self.seed), *map(str, parts)])
        return random.Random(int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big"))

    def wait(self, seconds: float) -> bool:
        """Sleep up to ``seconds``; returns True early when the emulator is closing."""
        return self._closing.wait(max(0.0, seconds))

    def api(self, name: str) -> Api | None:
        return self._apis.get(name)

    def route(self, path: str) -> tuple[Route | None, str]:
        """The route that answers ``path`` and the sub-path it sees (``(None, path)`` when none does)."""
        for candidate in self._routes:
            sub = candidate.serves(path)
            if sub is not None:
                return candidate, sub if candidate.name not in ("site", "files") else path
        return None, path


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False
    # socketserver's default backlog (5) drops connects from a 32-wide batch; clients then wait ~1 s to retry.
    request_queue_size = 128
    emulator: Emulator


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def setup(self) -> None:
        super().setup()
        # headers and body go out in separate writes; without NODELAY, Nagle plus delayed ACKs
        # add ~40 ms to every keep-alive request
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib signature
        """Silence the per-request stderr line; the request log is ``emu.requests``."""

    def do_GET(self) -> None:
        self._handle()

    do_POST = do_PUT = do_DELETE = do_PATCH = do_HEAD = do_GET  # noqa: N815 - stdlib naming

    def _read_body(self) -> bytes:
        if "chunked" in (self.headers.get("Transfer-Encoding") or "").lower():
            chunks: list[bytes] = []
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    self.rfile.readline()
                    return b"".join(chunks)
                chunks.append(self.rfile.read(size))
                self.rfile.readline()
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _handle(self) -> None:
        emu = self.server.emulator
        split = urlsplit(self.path)
        path = split.path or "/"
        body = self._read_body()
        route, subpath = emu.route(path)
        provider = route.name if route is not None else ""
        parsed: Any = None
        if body and "json" in (self.headers.get("Content-Type") or ""):
            try:
                parsed = json.loads(body)
            except ValueError:
                parsed = None
        request = RecordedRequest(
            method=self.command,
            path=path,
            query=parse_qs(split.query, keep_blank_values=True),
            headers={k.lower(): v for k, v in self.headers.items()},
            body=body,
            json=parsed,
            provider=provider,
            at=emu.clock(),
        )
        emu._record(request)
        if emu.latency > 0 and emu.wait(emu.latency):
            return self._drop()
        fault = emu._take_fault(path, provider)
        call = Call(emu, request, subpath)
        api = route.api if route is not None else None
        kind = fault.kind if fault else ""
        if kind in ("timeout", "hang"):
            emu.wait(float(fault.opts.get("seconds", 10.0)) if fault else 0.0)
            return self._drop()
        if kind == "reset":
            return self._reset()
        call.auth_fail = kind == "auth"
        call.empty = kind == "empty"
        try:
            if api is None:
                response = Response.json({"detail": "Not Found"}, 404)
            elif kind.isdigit():
                retry_after = fault.opts.get("retry_after") if fault else None
                response = api.error(call, int(kind), retry_after)
            else:
                response = api.handle(call)
        except Exception as exc:
            response = Response.json({"error": f"emulator error: {type(exc).__name__}: {exc}"}, 500)
        if fault:
            response.headers.update(fault.opts.get("headers") or {})
        if kind == "malformed_json":
            response = Response(
                200, response.body[: max(1, len(response.body) // 2)] + b'{"', "application/json"
            )
        seconds = float(fault.opts.get("seconds", 1.0)) if fault and kind == "slow_body" else 0.0
        self._send(response, drip_seconds=seconds)

    def _send(self, response: Response, drip_seconds: float = 0.0) -> None:
        self.send_response(response.status)
        headers = {"Content-Type": response.content_type, **response.headers}
        for name, value in headers.items():
            self.send_header(name, value)
        body = b"" if self.command == "HEAD" else response.body
        self.send_header("Content-Length", str(len(response.body)))
        self.end_headers()
        if not drip_seconds or not body:
            self.wfile.write(body)
            return
        pieces = 10
        step = max(1, -(-len(body) // pieces))
        emu = self.server.emulator
        for start in range(0, len(body), step):
            self.wfile.write(body[start : start + step])
            self.wfile.flush()
            if emu.wait(drip_seconds / pieces):
                break

    def _drop(self) -> None:
        """Close the connection without answering."""
        self.close_connection = True

    def _reset(self) -> None:
        """Abort the connection with a TCP RST (SO_LINGER 0), no answer."""
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass
