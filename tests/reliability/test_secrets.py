"""Secrets: distinctive dummy keys never appear in results, renderings, errors, logs, the store, image
metadata, exported cassettes or CLI output."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb.cli import main
from hermes_nb.errors import HermesError
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.testing import KEY_NAMES, Emulator, use_emulator

WEB = ["brave", "tavily", "serper"]
IMAGES = ["openai", "fal", "xai"]


@pytest.fixture(scope="module")
def emu() -> Iterator[Emulator]:
    with Emulator(seed=21) as server:
        yield server


def _dummy(name: str) -> str:
    return f"sk-HNBDUMMY{name.upper()}x9Q7zK2wL5"


def _everything(obj: Any) -> str:
    """Every text form of a result a user can see or save."""
    parts = [repr(obj), str(obj)]
    bundle = getattr(obj, "_repr_mimebundle_", None)
    if bundle is not None:
        data = bundle()
        parts.append(json.dumps(data[0] if isinstance(data, tuple) else data, default=str))
    return "\n".join(parts)


def _files_text(root: Path) -> str:
    out = []
    for path in sorted(root.rglob("*")):
        if path.is_file():
            out.append(path.read_bytes().decode("latin-1"))
    return "\n".join(out)


def test_no_dummy_key_anywhere(
    emu: Emulator, hermetic: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture,
    capsys: pytest.CaptureFixture[str],
) -> None:
    caplog.set_level(logging.DEBUG)
    load_plugins()
    hn.config.set("web.max_retries", 0)
    seen: list[str] = []
    with use_emulator(emu):
        # The emulator accepts only its own keys: every call with a dummy key is an auth error path.
        good = {KEY_NAMES[name]: hn.config.resolve_key(KEY_NAMES[name]) for name in WEB + IMAGES}
        for name in WEB:
            seen.append(_everything(hn.search("notebooks", backend=name)))
        for name in IMAGES:
            seen.append(_everything(hn.imagine(f"a lighthouse by {name}", backend=name)))
        article = emu.page_url("/site/articles/hello-world.html")
        seen.append(_everything(hn.extract([article], backend="direct")))
        hn.cache.export(tmp_path / "cassette.jsonl")
        for name in WEB + IMAGES:
            hn.config.set_key(KEY_NAMES[name], _dummy(name))
        for name in WEB:
            try:
                seen.append(_everything(hn.search("notebooks again", backend=name, no_cache=True)))
            except HermesError as exc:
                seen.append(f"{exc}\n{exc.message}\n{json.dumps(exc.to_dict(), default=str)}\n{exc!r}")
        for name in IMAGES:
            try:
                seen.append(_everything(hn.imagine("a new lighthouse", backend=name, no_cache=True)))
            except HermesError as exc:
                seen.append(f"{exc}\n{exc.message}\n{json.dumps(exc.to_dict(), default=str)}\n{exc!r}")
        for secret, value in good.items():
            hn.config.set_key(secret, value)
    for argv in (["config", "show"], ["doctor"], ["plugins", "list"]):
        main(argv)
    out, err = capsys.readouterr()
    seen += [out, err, caplog.text, _files_text(hermetic), _files_text(tmp_path)]
    haystack = "\n".join(seen)
    assert "lighthouse" in haystack and "notebooks" in haystack  # the search really covered real output
    for name in WEB + IMAGES:
        assert _dummy(name) not in haystack, f"the dummy key of {name} leaked"
        assert f"emu-{name}-key" not in haystack, f"the emulator key of {name} leaked"
