"""Point hermes_nb's configuration at an emulator (``use_emulator``) and serve one from the CLI."""

from __future__ import annotations

import socket
import threading
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from hermes_nb import config
from hermes_nb.errors import InvalidInputError
from hermes_nb.testing._registry import KEYS, FakePlugin, discover_fakes
from hermes_nb.testing._server import Emulator

__all__ = ["use_emulator", "serve", "KEY_NAMES"]

#: provider -> the secret it reads, from its manifest's ``requires_env`` (read live from the plugins'
#: fakes); ``use_emulator`` sets each to the valid "emu-<name>-key".
KEY_NAMES = KEYS


def _settings(fakes: list[FakePlugin]) -> dict[str, str]:
    """config key -> the emulator address name it points at, for ``fakes``."""
    return {key: name for fake in fakes for key, name in fake.settings.items()}


class _Running:
    """An emulator started elsewhere (``hermes-nb emulate``), known by its URL."""

    def __init__(self, url: str) -> None:
        parts = urlsplit(url.strip())
        if parts.scheme != "http" or parts.hostname not in ("127.0.0.1", "localhost") or not parts.port:
            raise InvalidInputError(
                f"use_emulator takes an Emulator or the loopback URL that `hermes-nb emulate` prints, "
                f"such as 'http://127.0.0.1:8877'; got {url!r}"
            )
        try:
            socket.create_connection((parts.hostname, parts.port), timeout=2).close()
        except OSError:
            raise InvalidInputError(
                f"no emulator answers at {url}; start one in a terminal with "
                f"`hermes-nb emulate --port {parts.port}`"
            ) from None
        self.url = f"http://{parts.hostname}:{parts.port}"

        self.fakes = discover_fakes()
        self._addresses = {name: prefix for fake in self.fakes for name, prefix in fake.addresses.items()}

    def base_url(self, provider: str) -> str:
        return self.url + self._addresses[provider]


def _origins(url: str) -> list[str]:
    """The emulator's own origin(s): ``localhost`` is also 127.0.0.1, the only address it listens on."""
    parts = urlsplit(url)
    return [url, f"http://127.0.0.1:{parts.port}"] if parts.hostname == "localhost" else [url]


class _Applied:
    """The configuration changes of one ``use_emulator`` call; call it (or exit it) to undo."""

    def __init__(self, emu: Emulator | _Running, fakes: list[FakePlugin]) -> None:
        self._saved_config: dict[str, tuple[bool, Any]] = {}
        self._saved_keys: dict[str, str | None] = {}
        self._undone = False
        settings: dict[str, Any] = {key: emu.base_url(name) for key, name in _settings(fakes).items()}
        listed = config.get("security.private_origins") or []
        listed = [o.strip() for o in listed.split(",")] if isinstance(listed, str) else list(listed)
        settings["security.private_origins"] = [*listed, *(o for o in _origins(emu.url) if o not in listed)]
        for key, value in settings.items():
            current = config.effective(key)
            self._saved_config[key] = (current.source == "runtime", current.value)
            config.set(key, value)
        for fake in fakes:
            for secret in fake.key_names:
                self._saved_keys.setdefault(secret, _session_key(secret))
                config.set_key(secret, f"emu-{fake.key_value_name}-key")

    def __call__(self) -> None:
        """Restore every value changed by ``use_emulator`` (idempotent)."""
        if self._undone:
            return
        self._undone = True
        for key, (was_runtime, value) in self._saved_config.items():
            if was_runtime:
                config.set(key, value)
            else:
                config.unset(key)
        for secret, previous in self._saved_keys.items():
            config.set_key(secret, previous)

    def __enter__(self) -> _Applied:
        return self

    def __exit__(self, *exc: object) -> None:
        self()


def _session_key(name: str) -> str | None:
    # config exposes no getter for session-only keys; read them to restore exactly what was there
    with config._lock:
        return config._session_keys.get(name)


def use_emulator(emu: Emulator | str, providers: Iterable[str] | None = None) -> _Applied:
    """Point every emulated provider (or only ``providers``) at ``emu``; returns an undo callable.

    ``emu`` is an ``Emulator`` of this process or the URL of one running elsewhere
    (``use_emulator("http://127.0.0.1:8877")`` after ``hermes-nb emulate --port 8877``).

    Sets ``web.<name>.base_url`` / ``image_gen.<name>.base_url``, valid fake keys
    (``BRAVE_SEARCH_API_KEY="emu-brave-key"``, ...) for this session, and adds the emulator's own
    origin (``http://127.0.0.1:<port>``) to ``security.private_origins`` so that extract, crawl and
    image downloads reach its loopback pages; every other private or loopback address stays refused
    by the URL guard (``security.allow_private_urls`` is not touched). Use as
    ``with use_emulator(emu): ...`` or ``undo = use_emulator(emu); undo()``.
    """
    target = _Running(emu) if isinstance(emu, str) else emu
    fakes = target.fakes
    if providers is not None:
        names = list(dict.fromkeys(providers))
        unknown = [n for n in names if not any(n in fake.names for fake in fakes)]
        if unknown:
            known = sorted({p for fake in fakes for p in fake.providers})
            raise InvalidInputError(f"the emulator does not speak {unknown}; choose from {known}")
        fakes = [fake for fake in fakes if fake.names & set(names)]
    return _Applied(target, fakes)


def serve(
    host: str = "127.0.0.1", port: int = 0, seed: int = 0, *, stop: threading.Event | None = None
) -> None:
    """Run an emulator for ``hermes-nb emulate``: print how to use it, block until Ctrl-C (or ``stop``)."""
    emu = Emulator(seed=seed, host=host, port=port)
    try:
        print(f"hermes_nb provider emulator on {emu.url} (loopback only; Ctrl-C stops it)")
        print("In a notebook:\n    from hermes_nb.testing import use_emulator")
        print(f"    use_emulator({emu.url!r})  # base URLs, fake keys, the emulator's own pages allowed")
        print(f"Pages for extract and crawl: {emu.page_url('/site/')}", flush=True)
        waiter = stop or threading.Event()
        try:
            while not waiter.wait(0.5):
                pass
        except KeyboardInterrupt:
            print("emulator stopped")
    finally:
        emu.close()
