"""MCP servers as tools: ``mcp.servers`` in ``config.yaml``, their allowed tools in ``hn.tools``.

    mcp:
      servers:
        files:                                  # the toolset name in hn.tools
          command: npx                          # stdio: a command the kernel starts …
          args: ["-y", "@modelcontextprotocol/server-filesystem", "/data"]
          env: {TOKEN: "${FILES_TOKEN}"}        # ${NAME}: a key from the environment or .env
          allow: [read_file, list_directory]    # tools not named here are refused (denied by default)
          timeout: 60                           # seconds per call (default mcp.timeout)
        wiki:
          url: http://127.0.0.1:9000/mcp        # … or a streamable-HTTP endpoint
          headers: {Authorization: "Bearer ${WIKI_TOKEN}"}
          allow: [search]

An allowed tool is registered as ``mcp_<server>_<tool>`` in the toolset ``<server>``, callable with
``hn.tools.call`` and by plugins with ``ctx.call_mcp(server, tool, args)``. Nothing starts until a tool
is called (or its schema is asked for). Servers live on one background event loop, are stopped when
the kernel exits, and every wait is bounded: a server that does not start in ``connect_timeout`` or
does not answer in ``timeout`` is a ``TIMEOUT`` error and is stopped (the next call starts it again);
one that exits is ``PROVIDER_UNAVAILABLE`` naming its log file. Built on the official ``mcp`` SDK
(``pip install 'hermes_nb[mcp]'``). ``hermes_nb.net.mcp`` is a different thing: one call to a vendor's
public endpoint, made by provider plugins through the shared HTTP client.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import importlib.util
import json
import logging
import os
import re
import shutil
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from hermes_nb import config
from hermes_nb._state import on_reset
from hermes_nb._version import __version__
from hermes_nb.errors import (
    HermesError,
    InvalidInputError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    TimeoutError_,
)
from hermes_nb.extras import require
from hermes_nb.plugins.tool_registry import ToolRegistry
from hermes_nb.redaction import is_secret_name, redact, register_secret

__all__ = [
    "OWNER_PREFIX",
    "ServerSpec",
    "server_specs",
    "registry_name",
    "call",
    "call_json",
    "list_server_tools",
    "sync_registry",
    "stop_all",
]

log = logging.getLogger(__name__)

OWNER_PREFIX = "mcp:"
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_STOP_GRACE_S = 6.0  # the SDK closes stdin, waits 2 s, then terminates (2 s) and kills the process tree
_LOG_TAIL_CHARS = 400
_SECRET_HEADERS = {"authorization", "cookie", "proxy-authorization"}

T = TypeVar("T")


@dataclass(frozen=True)
class ServerSpec:
    """One entry of ``mcp.servers``."""

    name: str
    command: str | None = None
    args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    cwd: str | None = None
    url: str | None = None
    headers: tuple[tuple[str, str], ...] = ()
    allow: tuple[str, ...] = ()
    timeout: float = 120.0
    connect_timeout: float = 60.0

    @property
    def transport(self) -> str:
        return "stdio" if self.command else "http"

    @property
    def log_path(self) -> Path:
        """Where a stdio server's stderr goes."""
        return config.get_hermes_home() / "logs" / f"mcp-{self.name}.log"


# -- configuration ---------------------------------------------------------------------------------
def _expand(value: Any, where: str, *, secret: bool = False) -> str:
    """``${NAME}`` replaced by the key ``NAME`` (environment or ``.env``); such values are secrets."""
    text = str(value)

    def resolve(match: re.Match[str]) -> str:
        found = config.resolve_key(match.group(1))
        if found is None:
            raise ProviderNotConfiguredError(
                f"{where} uses ${{{match.group(1)}}}, which is not set; set {match.group(1)} in the "
                "environment, in $HERMES_HOME/.env or with hn.config.set_key"
            )
        return found

    expanded = _VAR.sub(resolve, text)
    if secret or expanded != text:
        register_secret(expanded)
        parts = expanded.split()
        if len(parts) == 2 and parts[0].isalpha():
            register_secret(parts[1])  # "Bearer <token>": the token alone is masked too, not the word
    return expanded


def _positive(value: Any, default: float, where: str) -> float:
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
        raise InvalidInputError(f"{where} must be a positive number of seconds, got {value!r}")
    return float(value)


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, (str, int, float)) for v in value):
        raise InvalidInputError(f"{where} must be a list of strings, got {value!r}")
    return tuple(str(v) for v in value)


def _mapping(value: Any, where: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, dict):
        raise InvalidInputError(f"{where} must be a mapping of names to strings, got {value!r}")
    return tuple(
        (
            str(k),
            _expand(v, f"{where}.{k}", secret=is_secret_name(str(k)) or str(k).lower() in _SECRET_HEADERS),
        )
        for k, v in value.items()
    )


def _spec(name: str, raw: Any) -> ServerSpec:
    where = f"mcp.servers.{name}"
    if not _NAME.match(name):
        raise InvalidInputError(f"{where}: a server name is letters, digits, '_' and '-' only")
    if not isinstance(raw, dict):
        raise InvalidInputError(f"{where} must be a mapping with command (stdio) or url (HTTP), got {raw!r}")
    command, url = raw.get("command"), raw.get("url")
    if bool(command) == bool(url):
        raise InvalidInputError(f"{where} needs exactly one of command (a stdio server) or url (HTTP)")
    if url and not str(url).startswith(("http://", "https://")):
        raise InvalidInputError(f"{where}.url must be an http:// or https:// URL, got {url!r}")
    allow = _strings(raw.get("allow"), f"{where}.allow")
    return ServerSpec(
        name=name,
        command=str(command) if command else None,
        args=tuple(_expand(a, f"{where}.args") for a in _strings(raw.get("args"), f"{where}.args")),
        env=_mapping(raw.get("env"), f"{where}.env"),
        cwd=str(raw["cwd"]) if raw.get("cwd") else None,
        url=_expand(url, f"{where}.url") if url else None,
        headers=_mapping(raw.get("headers"), f"{where}.headers"),
        allow=tuple(dict.fromkeys(allow)),
        timeout=_positive(raw.get("timeout"), float(config.get("mcp.timeout", 120.0)), f"{where}.timeout"),
        connect_timeout=_positive(
            raw.get("connect_timeout"),
            float(config.get("mcp.connect_timeout", 60.0)),
            f"{where}.connect_timeout",
        ),
    )


def _raw_servers() -> dict[str, Any]:
    raw = config.get("mcp.servers") or {}
    if not isinstance(raw, dict):
        raise InvalidInputError(f"mcp.servers must be a mapping of server names to settings, got {raw!r}")
    return raw


def server_spec(name: str) -> ServerSpec:
    """The spec of server ``name`` (``InvalidInputError`` naming the fix when it is missing or wrong)."""
    raw = _raw_servers()
    if name not in raw:
        known = ", ".join(sorted(raw)) or "none"
        raise InvalidInputError(f"no MCP server {name!r} in mcp.servers of config.yaml (configured: {known})")
    return _spec(name, raw[name])


def server_specs() -> dict[str, ServerSpec]:
    """Every well-formed server of ``mcp.servers``; a broken entry is logged and left out."""
    out = {}
    for name, raw in _raw_servers().items():
        try:
            out[str(name)] = _spec(str(name), raw)
        except HermesError as exc:
            _warn_once(f"MCP server {name} left out: {exc.message}")
    return out


_warned: set[str] = set()


def _warn_once(message: str) -> None:
    """Registry lookups re-read the configuration often; say each problem once per process (or reset)."""
    if message not in _warned:
        _warned.add(message)
        log.warning("%s", message)


def registry_name(server: str, tool: str) -> str:
    """The ``hn.tools`` name of ``tool`` of ``server``: ``mcp_<server>_<tool>`` (Hermes's naming)."""
    return re.sub(r"[^A-Za-z0-9_]", "_", f"mcp_{server}_{tool}")


_FEATURE = "MCP servers (mcp.servers)"


# -- the background loop and the live connections -----------------------------------------------
def _sdk() -> Any:
    return require("mcp", _FEATURE)


def _tail(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8", errors="replace")[-_LOG_TAIL_CHARS:]
    except OSError:
        return ""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return redact(lines[-1].strip()) if lines else ""


class _Connection:
    """One running server: a task on the hub's loop that holds the SDK client open until stopped."""

    def __init__(self, spec: ServerSpec) -> None:
        self.spec = spec
        self.client: Any = None
        self.tools: list[Any] | None = None
        self._stop = asyncio.Event()
        self._task: asyncio.Task[None] | None = None

    @property
    def alive(self) -> bool:
        return self.client is not None and self._task is not None and not self._task.done()

    def _transport(self, errlog: Any) -> Any:
        mcp = _sdk()
        spec = self.spec
        if spec.command:
            stdio_client = require("mcp.client.stdio", _FEATURE).stdio_client
            params = mcp.StdioServerParameters(
                command=spec.command, args=list(spec.args), env=dict(spec.env) or None, cwd=spec.cwd
            )
            return stdio_client(params, errlog=errlog)
        httpx2 = require("httpx2", _FEATURE)
        streamable_http_client = require("mcp.client.streamable_http", _FEATURE).streamable_http_client

        timeout = httpx2.Timeout(spec.connect_timeout, read=spec.timeout + 5)
        http = httpx2.AsyncClient(headers=dict(spec.headers) or None, timeout=timeout)
        return streamable_http_client(str(spec.url), http_client=http)

    async def _run(self, ready: asyncio.Future[None]) -> None:
        mcp = _sdk()
        errlog = None
        try:
            if self.spec.command:
                self.spec.log_path.parent.mkdir(parents=True, exist_ok=True)
                errlog = open(self.spec.log_path, "a", encoding="utf-8")  # noqa: SIM115 - closed below
            info = mcp.Implementation(name="hermes_nb", version=__version__)
            async with mcp.Client(self._transport(errlog), client_info=info) as client:
                self.client = client
                if not ready.done():
                    ready.set_result(None)
                await self._stop.wait()
        except BaseException as exc:  # start failures go to the opener; later ones end the connection
            if not ready.done():
                ready.set_exception(
                    exc if isinstance(exc, Exception) else ProviderUnavailableError("stopped")
                )
            if not isinstance(exc, Exception):
                raise
            log.info("MCP server %s ended: %s", self.spec.name, redact(str(exc)))
        finally:
            self.client = None
            if errlog is not None:
                errlog.close()

    async def open(self) -> None:
        ready: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ready.add_done_callback(lambda f: f.cancelled() or f.exception())  # never "not retrieved"
        self._task = asyncio.create_task(self._run(ready), name=f"hermes_nb-mcp-{self.spec.name}")
        try:
            await asyncio.wait_for(asyncio.shield(ready), self.spec.connect_timeout)
        except asyncio.TimeoutError:
            await self.close()
            raise TimeoutError_(
                f"MCP server {self.spec.name} did not start within {self.spec.connect_timeout:g} s; "
                f"check it runs on its own{self._log_hint()} or raise "
                f"mcp.servers.{self.spec.name}.connect_timeout",
                provider=f"mcp:{self.spec.name}",
            ) from None
        except HermesError:
            await self.close()
            raise
        except Exception as exc:
            await self.close()
            raise ProviderUnavailableError(
                f"MCP server {self.spec.name} could not be started: {type(exc).__name__}: "
                f"{redact(_first_line(exc))}{self._log_hint()}",
                provider=f"mcp:{self.spec.name}",
            ) from None

    def _log_hint(self) -> str:
        if not self.spec.command:
            return ""
        last = _tail(self.spec.log_path)
        return f" (its stderr is in {self.spec.log_path}{'; last line: ' + last if last else ''})"

    async def close(self) -> None:
        self._stop.set()
        task = self._task
        if task is None or task.done():
            return
        if self.client is None:
            task.cancel()  # still starting: no session to end politely; the SDK still stops the process
        done, _ = await asyncio.wait({task}, timeout=_STOP_GRACE_S)  # never raises the task's exception
        if not done:
            task.cancel()
            await asyncio.wait({task}, timeout=_STOP_GRACE_S)
        if task.done() and not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" at exit

    async def list_tools(self) -> list[Any]:
        if self.tools is None:
            result = await asyncio.wait_for(self.client.list_tools(), self.spec.timeout)
            self.tools = list(result.tools)
        return self.tools

    async def call(self, tool: str, args: dict[str, Any]) -> Any:
        timeout = self.spec.timeout
        return await asyncio.wait_for(
            self.client.call_tool(tool, args, read_timeout_seconds=timeout), timeout + 1.0
        )


def _first_line(exc: BaseException) -> str:
    inner = getattr(exc, "exceptions", None)  # an exception group: its first member says it
    if isinstance(inner, tuple) and inner:
        return _first_line(inner[0])
    text = str(exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__


class _Hub:
    """One daemon thread running an event loop for every server of this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._connections: dict[str, _Connection] = {}
        self._starting: dict[str, asyncio.Lock] = {}

    def _ensure_loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._loop is None or self._thread is None or not self._thread.is_alive():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="hermes_nb-mcp", daemon=True)
                thread.start()
                self._loop, self._thread = loop, thread
            return self._loop

    def run(self, coro: Coroutine[Any, Any, T], timeout: float) -> T:
        """Run ``coro`` on the hub's loop and wait at most ``timeout`` seconds (then it is cancelled)."""
        future = asyncio.run_coroutine_threadsafe(coro, self._ensure_loop())
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            future.cancel()
            raise

    async def connection(self, spec: ServerSpec) -> _Connection:
        lock = self._starting.setdefault(spec.name, asyncio.Lock())
        async with lock:
            current = self._connections.get(spec.name)
            if current is not None and current.alive and current.spec == spec:
                return current
            if current is not None:
                self._connections.pop(spec.name, None)
                await current.close()  # config changed or the server died: start it afresh
            fresh = _Connection(spec)
            await fresh.open()
            self._connections[spec.name] = fresh
            return fresh

    async def drop(self, name: str) -> None:
        current = self._connections.pop(name, None)
        if current is not None:
            await current.close()

    async def close_all(self) -> None:
        names = list(self._connections)
        await asyncio.gather(*(self.drop(n) for n in names), return_exceptions=True)

    def shutdown(self) -> None:
        """Stop every server and the loop (atexit, reset); bounded by a few seconds."""
        with self._lock:
            loop, thread = self._loop, self._thread
            self._loop = self._thread = None
        if loop is None or thread is None or not thread.is_alive():
            return
        if self._connections:
            future = asyncio.run_coroutine_threadsafe(self.close_all(), loop)
            with contextlib.suppress(Exception):
                future.result(_STOP_GRACE_S + 3.0)
        self._connections.clear()
        self._starting.clear()
        loop.call_soon_threadsafe(loop.stop)
        thread.join(2.0)
        if not thread.is_alive():
            loop.close()


_hub = _Hub()
atexit.register(_hub.shutdown)


@on_reset
def stop_all() -> None:
    """Stop every running MCP server of this process (the kernel's exit does this too)."""
    _hub.shutdown()
    _warned.clear()


# -- calls -----------------------------------------------------------------------------------------
def _mapped(spec: ServerSpec, tool: str, exc: BaseException) -> HermesError:
    provider = f"mcp:{spec.name}"
    if isinstance(exc, HermesError):
        return exc
    code = getattr(exc, "code", None)
    if isinstance(exc, (asyncio.TimeoutError, concurrent.futures.TimeoutError)) or code == -32001:
        return TimeoutError_(
            f"MCP server {spec.name} did not answer {tool} within {spec.timeout:g} s and was stopped "
            f"(the next call starts it again); raise mcp.servers.{spec.name}.timeout if the tool is slow",
            provider=provider,
        )
    if code == -32602:
        return InvalidInputError(
            f"MCP server {spec.name} refused the arguments of {tool}: {exc}", provider=provider
        )
    hint = ""
    if spec.command:
        last = _tail(spec.log_path)
        hint = f"; its stderr is in {spec.log_path}{' (last line: ' + last + ')' if last else ''}"
    if code == -32000:
        return ProviderUnavailableError(
            f"MCP server {spec.name} closed the connection during {tool} (it exited or crashed){hint}",
            provider=provider,
        )
    return ProviderUnavailableError(
        f"MCP server {spec.name} failed on {tool}: {type(exc).__name__}: {redact(_first_line(exc))}{hint}",
        provider=provider,
    )


def _allowed(spec: ServerSpec, tool: str) -> None:
    if tool not in spec.allow:
        allowed = ", ".join(spec.allow) or "none"
        raise InvalidInputError(
            f"tool {tool!r} of MCP server {spec.name} is not allowed (allowed: {allowed}); add it to "
            f"mcp.servers.{spec.name}.allow in config.yaml — MCP tools are denied by default",
            provider=f"mcp:{spec.name}",
        )


def _check_startable(spec: ServerSpec) -> None:
    """Raise when ``spec`` cannot start: no mcp package, no command (imports nothing: listings call it)."""
    if importlib.util.find_spec("mcp") is None:
        _sdk()  # raises the install hint
    if spec.command and shutil.which(spec.command) is None and not os.path.isfile(spec.command):
        raise ProviderNotConfiguredError(
            f"MCP server {spec.name}: command {spec.command!r} is not found; install it or give its "
            f"full path in mcp.servers.{spec.name}.command",
            provider=f"mcp:{spec.name}",
        )


def _run_on_server(spec: ServerSpec, tool: str, work: Callable[[_Connection], Coroutine[Any, Any, T]]) -> T:
    _check_startable(spec)

    async def job() -> T:
        connection = await _hub.connection(spec)
        try:
            return await work(connection)
        except BaseException as exc:
            code = getattr(exc, "code", None)
            if isinstance(exc, (asyncio.TimeoutError, asyncio.CancelledError)) or code in (-32000, -32001):
                await _hub.drop(spec.name)  # hung or gone: stop it; the next call starts it again
            raise

    budget = spec.connect_timeout + spec.timeout + 3 * _STOP_GRACE_S + 5.0
    try:
        return _hub.run(job(), budget)
    except BaseException as exc:
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        raise _mapped(spec, tool, exc) from None


def call(server: str, tool: str, args: dict[str, Any] | None = None) -> Any:
    """Call ``tool`` of MCP server ``server`` (allowed tools only); the SDK's ``CallToolResult``.

    Raises ``InvalidInputError`` (unknown server, tool not allowed), ``TimeoutError_`` (no start or no
    answer in time), ``ProviderUnavailableError`` (the server exited), ``ProviderNotConfiguredError``
    (the ``mcp`` package or the command is missing). A tool's own failure is ``result.is_error``.
    """
    spec = server_spec(server)
    _allowed(spec, tool)
    if args is not None and not isinstance(args, dict):
        raise InvalidInputError(f"arguments of MCP tool {tool} must be a mapping, got {type(args).__name__}")
    return _run_on_server(spec, tool, lambda conn: conn.call(tool, dict(args or {})))


def list_server_tools(server: str) -> list[Any]:
    """The tools server ``server`` offers (all of them, allowed or not): the SDK's ``Tool`` objects."""
    spec = server_spec(server)
    return _run_on_server(spec, "tools/list", lambda conn: conn.list_tools())


def _text_of(result: Any) -> str:
    parts = []
    for block in getattr(result, "content", None) or []:
        kind = getattr(block, "type", "")
        if kind == "text":
            parts.append(str(block.text))
        elif kind in ("image", "audio"):
            parts.append(f"[{kind} {getattr(block, 'mime_type', '')}]")
        elif kind == "resource_link":
            parts.append(f"[resource {getattr(block, 'uri', '')}]")
    return "\n".join(p for p in parts if p)


def call_json(server: str, tool: str, args: dict[str, Any] | None = None) -> str:
    """``call`` as a Hermes tool result (a JSON string, never raising).

    Success: ``{"result": text}`` (plus ``"structured"`` when the tool sent structured content); a
    tool's failure: ``{"error": text}``; ours: ``{"error": message, "code": CODE}``.
    """
    try:
        result = call(server, tool, args)
    except HermesError as exc:
        return json.dumps({"error": exc.message, "code": exc.code}, ensure_ascii=False)
    text = _text_of(result)
    if getattr(result, "is_error", False):
        return json.dumps(
            {"error": f"MCP tool {tool} of {server} failed: {text or 'no message'}"}, ensure_ascii=False
        )
    payload: dict[str, Any] = {"result": text}
    structured = getattr(result, "structured_content", None)
    if isinstance(structured, dict):
        payload["structured"] = structured
    return json.dumps(payload, ensure_ascii=False, default=str)


# -- hn.tools ------------------------------------------------------------------------------------
def _available(spec: ServerSpec) -> Callable[[], bool]:
    def check() -> bool:
        try:
            _check_startable(spec)
        except HermesError:
            return False
        return True

    return check


def _schema_of(server: str, tool: str) -> Callable[[], dict[str, Any]]:
    def fetch() -> dict[str, Any]:
        for found in list_server_tools(server):
            if found.name == tool:
                schema = dict(found.input_schema or {})
                return {"description": found.description or tool, "parameters": schema}
        raise InvalidInputError(f"MCP server {server} offers no tool {tool!r} (named in its allow list)")

    return fetch


def _handler(server: str, tool: str) -> Callable[..., str]:
    def run(args: dict[str, Any], **_: Any) -> str:
        return call_json(server, tool, args)

    run.__name__ = registry_name(server, tool)
    return run


def sync_registry(target: ToolRegistry) -> None:
    """Make ``target``'s MCP entries match ``mcp.servers`` now (cheap when nothing changed)."""
    try:
        specs = server_specs()
    except HermesError as exc:
        _warn_once(f"mcp.servers ignored: {exc.message}")
        specs = {}
    wanted = {registry_name(s.name, tool): (s, tool) for s in specs.values() for tool in s.allow}
    present = target.names_owned_by(OWNER_PREFIX)
    for name, owner in present.items():
        if name not in wanted or owner != OWNER_PREFIX + wanted[name][0].name:
            target.deregister(name, owner=owner)
    for name, (spec, tool) in wanted.items():
        if name in present and present[name] == OWNER_PREFIX + spec.name:
            continue
        target.register(
            name,
            spec.name,
            {
                "name": name,
                "description": f"{tool} (MCP server {spec.name})",
                "parameters": {"type": "object", "properties": {}, "additionalProperties": True},
            },
            _handler(spec.name, tool),
            check_fn=_available(spec),
            description=f"{tool} (MCP server {spec.name})",
            emoji="🔌",
            owner=OWNER_PREFIX + spec.name,
            dynamic_schema_overrides=_schema_of(spec.name, tool),
        )
