"""ddgs: keyless metasearch run in a child process that is killed at a hard wall-clock limit."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from hermes_nb.provider_api import (
    ParseError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
    TimeoutError_,
    WebSearchProvider,
    config,
)

_WORKER = Path(__file__).with_name("_worker.py")
_INSTALL_HINT = "pip install ddgs"


class DdgsProvider(WebSearchProvider):
    """Search through the ``ddgs`` package; a hang is killed, never left to block the kernel."""

    name = "ddgs"
    display_name = "DDGS (keyless)"
    tier = "keyless"
    price_note = "free"
    tagline = "No key; results from several public engines."
    install_hint = _INSTALL_HINT
    docs_url = "https://github.com/deedy5/ddgs"
    #: Seconds before the worker is killed (``web.ddgs.timeout`` overrides); Hermes uses 30 s.
    wall_clock_s = 30.0
    #: ddgs's own per-engine HTTP timeout.
    engine_timeout_s = 10


    def is_available(self) -> bool:
        return _installed()

    def is_keyless_available(self) -> bool:
        return _installed()

    def search(self, query: str, limit: int = 5) -> dict[str, Any]:
        if not _installed():
            raise ProviderNotConfiguredError(
                f"the ddgs provider needs the ddgs package: {_INSTALL_HINT}", provider=self.name
            )
        count = max(1, int(limit))
        wall = float(config.get("web.ddgs.timeout") or self.wall_clock_s)
        request = {"query": query, "max_results": count, "timeout": min(self.engine_timeout_s, wall)}
        reply = self._run_worker(request, wall)
        if not reply.get("ok"):
            return self._failure(reply, wall)
        hits = []
        for row in reply.get("results") or []:
            url = row.get("href") or row.get("url")
            if not url:
                continue
            hits.append(
                {
                    "title": str(row.get("title") or url),
                    "url": str(url),
                    "description": str(row.get("body") or ""),
                    "position": len(hits) + 1,
                }
            )
            if len(hits) == count:
                break
        return {"success": True, "data": {"web": hits}}

    def get_setup_schema(self) -> dict[str, Any]:
        return {**super().get_setup_schema(), "post_setup": "ddgs"}  # Hermes's picker installs it

    def _run_worker(self, request: dict[str, Any], wall: float) -> dict[str, Any]:
        proc = subprocess.Popen(
            [sys.executable, str(_WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # Ctrl-C in the kernel must not reach the child first
        )
        try:
            out, err = proc.communicate(json.dumps(request).encode(), timeout=wall)
        except subprocess.TimeoutExpired:
            proc.kill()
            try:
                proc.communicate(timeout=2)
            except subprocess.TimeoutExpired:
                pass
            raise TimeoutError_(
                f"ddgs did not answer within {wall:g} s and was stopped; try again, or raise "
                "web.ddgs.timeout (hn.config.set('web.ddgs.timeout', 60))",
                provider=self.name,
            ) from None
        except BaseException:
            proc.kill()
            proc.wait()
            raise
        try:
            reply = json.loads(out.decode("utf-8", "replace"))
        except ValueError:
            lines = err.decode("utf-8", "replace").strip().splitlines()
            why = lines[-1] if lines else f"exit code {proc.returncode}"
            raise ProviderUnavailableError(f"the ddgs worker failed: {why}", provider=self.name) from None
        if not isinstance(reply, dict):
            raise ParseError("the ddgs worker sent an unexpected reply", provider=self.name)
        return reply

    def _failure(self, reply: dict[str, Any], wall: float) -> dict[str, Any]:
        kind, message = reply.get("kind"), str(reply.get("message") or "")
        if kind == "empty":
            # A plain "No results found." can still hide a quiet refusal by the engines.
            return {
                "success": True,
                "data": {
                    "web": [],
                    "warning": "ddgs found no results; the engines may also be rate limiting this address "
                    f"({message or 'no detail'})",
                },
            }
        if kind == "ratelimit":
            raise RateLimitedError(
                f"ddgs was rate limited ({message}); wait or use another provider", provider=self.name
            )
        if kind == "timeout":
            raise TimeoutError_(f"ddgs timed out ({message})", provider=self.name)
        if kind == "engines_failed":
            # The message stays the same from run to run (ddgs reports whichever engine it tried
            # last); what each engine said is kept in details.
            raise ProviderUnavailableError(
                "ddgs could not reach any search engine (no network, or the engines refuse requests); "
                "check the network, or use another provider",
                provider=self.name, details={"engines": message},
            )
        if kind == "missing":
            raise ProviderNotConfiguredError(
                f"the ddgs package cannot be imported ({message}): {_INSTALL_HINT}", provider=self.name
            )
        raise ProviderUnavailableError(f"ddgs failed: {message}", provider=self.name)


def _installed() -> bool:
    try:
        return importlib.util.find_spec("ddgs") is not None
    except (ImportError, ValueError):
        return False
