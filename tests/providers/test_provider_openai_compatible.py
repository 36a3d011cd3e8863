"""The config-only OpenAI-compatible image provider against the emulator: request shape, answers, errors."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hermes_nb import config, images
from hermes_nb.catalog import providers
from hermes_nb.errors import (
    InvalidInputError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
)

BASE = "image_gen.openai_compatible.base_url"


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, ["openai-compatible"]):
        config.set("image_gen.provider", "openai-compatible")
        config.set("image_gen.openai_compatible.model", "flux-local")
        yield emulator


def test_request_shape_and_b64_answer(emu: Any) -> None:
    result = images.imagine("a lighthouse", aspect_ratio="portrait", quality="high")
    (sent,) = emu.requests_for("openai-compatible")
    assert sent.method == "POST" and sent.path == "/openai-compatible/v1/images/generations"
    assert sent.json == {
        "model": "flux-local",
        "prompt": "a lighthouse",
        "n": 1,
        "size": "1024x1536",
        "quality": "high",
    }
    assert sent.headers["authorization"] == "Bearer emu-openai-compatible-key"
    assert result.provider == "openai-compatible" and result.model == "flux-local"
    assert result.size == (1024, 1536)
    assert result.envelope["base_url"] == config.get(BASE)


def test_no_key_is_fine_for_a_local_server(emu: Any) -> None:
    config.set_key("OPENAI_COMPATIBLE_IMAGE_API_KEY", None)
    images.imagine("a boat", aspect_ratio="square")
    (sent,) = emu.requests_for("openai-compatible")
    assert "authorization" not in sent.headers


def test_url_answer_is_downloaded(emu: Any) -> None:
    emu.openai_compatible_answer = "url"
    result = images.imagine("a kite", aspect_ratio="landscape")
    assert result.size == (1536, 1024) and result.path.is_file()
    assert len(emu.requests_for("files")) == 1


def test_server_sent_events_answer(emu: Any) -> None:
    emu.openai_compatible_answer = "sse"
    result = images.imagine("a comet", aspect_ratio="square")
    assert result.size == (1024, 1024)


def test_errors(emu: Any) -> None:
    config.set_key("OPENAI_COMPATIBLE_IMAGE_API_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError, match="OPENAI_COMPATIBLE_IMAGE_API_KEY"):
        images.imagine("x", no_cache=True)
    config.set_key("OPENAI_COMPATIBLE_IMAGE_API_KEY", "emu-openai-compatible-key")
    emu.fail("openai-compatible", "400")
    with pytest.raises(InvalidInputError, match="refused the request"):
        images.imagine("y", no_cache=True)
    emu.fail("openai-compatible", "empty")
    with pytest.raises(ProviderError, match="without data"):
        images.imagine("z", no_cache=True)


def test_unconfigured_base_url_says_what_to_set() -> None:
    config.set("image_gen.provider", "openai-compatible")
    rows = {row.name: row for row in providers("image_gen")}
    row = rows["openai-compatible"]
    assert not row.available
    assert "image_gen.openai_compatible.base_url" in row.why_not
    with pytest.raises(ProviderNotConfiguredError, match="image_gen.openai_compatible.base_url"):
        images.imagine("x", backend="openai-compatible", no_cache=True)


def test_hermes_environment_variables_win(emu: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_COMPATIBLE_IMAGE_BASE_URL", config.get(BASE) + "/")
    monkeypatch.setenv("OPENAI_COMPATIBLE_IMAGE_MODEL", "sdxl-turbo")
    config.set(BASE, "http://127.0.0.1:9/unused")
    result = images.imagine("a barn", aspect_ratio="square")
    (sent,) = emu.requests_for("openai-compatible")
    assert sent.json["model"] == "sdxl-turbo" and result.model == "sdxl-turbo"
