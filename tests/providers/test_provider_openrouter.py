"""OpenRouter images against the emulator: request shape, mapping, model switching, every error class."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator

import pytest
from PIL import Image

from hermes_nb import config, images
from hermes_nb.errors import (
    ContentPolicyError,
    InvalidInputError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
)
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.testing import Emulator, fake_module, use_emulator

BROKE_KEY = fake_module("openrouter").BROKE_KEY


@pytest.fixture
def emu() -> Iterator[Emulator]:
    load_plugins()
    with Emulator(seed=0) as emulator, use_emulator(emulator, ["openrouter"]):
        config.set("image_gen.provider", "openrouter")
        yield emulator


def test_text_to_image_request_and_mapping(emu: Emulator) -> None:
    result = images.imagine("a lighthouse at dusk", aspect_ratio="portrait")
    (request,) = emu.requests_for("openrouter")
    assert request.method == "POST" and request.path == "/openrouter/api/v1/chat/completions"
    assert request.headers["authorization"] == "Bearer emu-openrouter-key"
    body = request.json
    assert body["model"] == "google/gemini-3-pro-image"
    assert body["modalities"] == ["image", "text"]
    assert body["image_config"] == {"aspect_ratio": "9:16"}
    assert body["messages"] == [
        {"role": "user", "content": [{"type": "text", "text": "a lighthouse at dusk"}]}
    ]
    assert (result.width, result.height) == (768, 1344) and result.path.is_file()
    assert result.provider == "openrouter" and result.model == "google/gemini-3-pro-image"
    assert result.cost == {"usd": 0.039, "estimated": False}  # reported by usage.cost


def test_model_switching_and_image_only_models(emu: Emulator) -> None:
    images.imagine("x", model="google/gemini-3.1-flash-image", aspect_ratio="square")
    config.set("image_gen.openrouter.model", "black-forest-labs/flux.2-pro")
    result = images.imagine("x")
    first, second = (r.json for r in emu.requests_for("openrouter"))
    assert first["model"] == "google/gemini-3.1-flash-image"
    assert second["model"] == "black-forest-labs/flux.2-pro" and second["modalities"] == ["image"]
    assert result.model == "black-forest-labs/flux.2-pro"


def test_reference_images_become_image_url_parts(emu: Emulator, tmp_path) -> None:
    ref = tmp_path / "ref.png"
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (9, 9, 9)).save(out, "PNG")
    ref.write_bytes(out.getvalue())
    images.imagine("make it blue", reference_images=[str(ref), str(ref)])
    content = emu.requests_for("openrouter")[0].json["messages"][0]["content"]
    assert [p["type"] for p in content] == ["text", "image_url", "image_url"]
    assert content[1]["image_url"]["url"].startswith("data:image/png;base64,")
    assert base64.b64decode(content[1]["image_url"]["url"].split(",", 1)[1]) == out.getvalue()
    with pytest.raises(InvalidInputError, match="at most 3"):
        images.imagine("x", reference_images=[str(ref)] * 4)


def test_text_only_model_is_a_clear_error(emu: Emulator) -> None:
    with pytest.raises(InvalidInputError, match="output modalities"):
        images.imagine("x", model="openai/gpt-4o-mini")


def test_no_image_in_answer(emu: Emulator) -> None:
    emu.fail("openrouter", "empty")
    with pytest.raises(ProviderError, match="returned no image.*it said"):
        images.imagine("x")


@pytest.mark.parametrize(
    ("setup", "error", "match"),
    [
        (lambda e: config.set_key("OPENROUTER_API_KEY", "bad-key"), ProviderAuthError, "OPENROUTER_API_KEY"),
        (lambda e: config.set_key("OPENROUTER_API_KEY", BROKE_KEY), ProviderError, "insufficient credits"),
        (lambda e: e.fail("openrouter", "429", retry_after=1, times=None), RateLimitedError, "rate limit"),
        (lambda e: e.fail("openrouter", "503", times=None), ProviderUnavailableError, "no provider"),
        (lambda e: e.fail("openrouter", "502", times=None), ProviderUnavailableError, "retry or switch"),
    ],
)
def test_error_classes(emu: Emulator, setup, error, match) -> None:
    config.set("web.max_retries", 0)  # the retry policy has its own tests; no waiting here
    setup(emu)
    with pytest.raises(error, match=match):
        images.imagine("x")


def test_moderation_and_output_safety_are_content_policy(emu: Emulator) -> None:
    with pytest.raises(ContentPolicyError, match="violence"):
        images.imagine("something forbidden")
    with pytest.raises(ContentPolicyError, match="IMAGE_SAFETY"):
        images.imagine("trip the safety filter")


def test_unknown_model_and_missing_key(emu: Emulator) -> None:
    with pytest.raises(InvalidInputError, match="not a valid model"):
        images.imagine("x", model="nobody/nothing")
    config.set_key("OPENROUTER_API_KEY", None)
    with pytest.raises(ProviderNotConfiguredError, match="OPENROUTER_API_KEY"):
        images.imagine("x")


def test_refuses_negative_prompt_and_size_before_any_request(emu: Emulator) -> None:
    for option in ({"negative_prompt": "blur"}, {"size": "1024x1024"}):
        with pytest.raises(InvalidInputError, match="'openrouter' does not support"):
            images.imagine("x", **option)
    assert emu.requests == []


def test_error_inside_a_200_answer(emu: Emulator) -> None:
    with pytest.raises(ProviderUnavailableError, match="Upstream error"):
        images.imagine("fail midstream")
