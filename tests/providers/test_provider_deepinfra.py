"""DeepInfra images against the emulator: OpenAI-shaped request, b64 and URL answers, errors, selection."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hermes_nb import config, images
from hermes_nb.errors import (
    InvalidInputError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
)
from hermes_nb.plugins.registry import image_providers


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, ["deepinfra"]):
        config.set("image_gen.provider", "deepinfra")
        yield emulator


def test_request_shape_and_answer(emu: Any) -> None:
    result = images.imagine("a fjord at dawn", aspect_ratio="landscape")
    (sent,) = emu.requests_for("deepinfra")
    assert sent.method == "POST" and sent.path == "/deepinfra/v1/openai/images/generations"
    assert sent.headers["authorization"] == "Bearer emu-deepinfra-key"
    assert sent.json == {
        "model": "black-forest-labs/FLUX-1-schnell",
        "prompt": "a fjord at dawn",
        "size": "1536x1024",
        "n": 1,
    }
    assert result.provider == "deepinfra" and result.size == (1536, 1024)
    assert result.path.name.startswith("deepinfra")


def test_model_from_environment_and_size(emu: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DEEPINFRA_IMAGE_MODEL", "stabilityai/sdxl-turbo")
    result = images.imagine("a cat", aspect_ratio="square", size="512x512")
    (sent,) = emu.requests_for("deepinfra")
    assert sent.json["model"] == "stabilityai/sdxl-turbo" and sent.json["size"] == "512x512"
    assert result.size == (512, 512) and result.model == "stabilityai/sdxl-turbo"


def test_url_answer_is_downloaded(emu: Any) -> None:
    emu.deepinfra_answer = "url"
    result = images.imagine("a dune", aspect_ratio="portrait")
    assert result.size == (1024, 1536) and len(emu.requests_for("files")) == 1


def test_errors(emu: Any) -> None:
    emu.fail("deepinfra", "auth")
    with pytest.raises(ProviderAuthError, match="DEEPINFRA_API_KEY"):
        images.imagine("x", no_cache=True)
    emu.fail("deepinfra", "402")
    with pytest.raises(ProviderError, match="out of credits.*deepinfra.com/dash/billing"):
        images.imagine("x", no_cache=True)
    with pytest.raises(InvalidInputError, match="Model is not available"):
        images.imagine("x", model="no-owner-model", no_cache=True)
    emu.fail("deepinfra", "empty")
    with pytest.raises(ProviderError, match="without data"):
        images.imagine("x", no_cache=True)
    with pytest.raises(InvalidInputError, match="creative control 'creativity'"):
        images.imagine("x", creativity="raw", no_cache=True)
    assert len(emu.requests_for("deepinfra")) == 4  # the refused option sent nothing


def test_a_key_alone_never_selects_deepinfra(emu: Any) -> None:
    config.unset("image_gen.provider")
    only = [p for p in image_providers.list() if p.name != "deepinfra"]
    for provider in only:
        for key in ([provider.key_env] if isinstance(provider.key_env, str) else list(provider.key_env)):
            if key:
                config.set_key(key, None)
    with pytest.raises(ProviderNotConfiguredError, match="deepinfra: set up, but chosen only by name"):
        images.imagine("x", no_cache=True)
    assert images.imagine("x", backend="deepinfra", no_cache=True).provider == "deepinfra"
