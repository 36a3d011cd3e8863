"""xAI Grok Imagine provider: request shape, base64, edits, bad key as HTTP 400 (mock transport)."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from PIL import Image

from hermes_nb import config, images
from hermes_nb.errors import (
    ContentPolicyError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    RateLimitedError,
)
from hermes_nb.net.http_client import set_transport
from hermes_nb.plugins.image_provider import images_cache_dir
from hermes_nb.plugins.registry import image_providers


def jpeg_b64(size: tuple[int, int] = (1280, 720), prefix: str = "") -> str:
    out = io.BytesIO()
    Image.new("RGB", size, (9, 9, 9)).save(out, format="JPEG")
    return prefix + base64.b64encode(out.getvalue()).decode()


class Api:
    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.reply: Callable[[httpx.Request], httpx.Response] = lambda r: httpx.Response(
            200,
            json={
                "created": 1,
                "data": [
                    {
                        "b64_json": jpeg_b64(prefix="data:image/jpeg;base64,"),
                        "url": None,
                        "mime_type": "image/jpeg",
                        "revised_prompt": "a calm lake, dawn",
                    }
                ],
                "usage": {"cost_in_usd_ticks": 200000000},
            },
        )

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.reply(request)


@pytest.fixture
def api() -> Iterator[Api]:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    assert image_providers.get("xai") is not None
    config.set("image_gen.provider", "xai")
    config.set_key("XAI_API_KEY", "xai-test-key-0123456789")
    config.set("image_gen.xai.base_url", "https://xai.test/v1")
    handler = Api()
    set_transport(httpx.MockTransport(handler))
    yield handler
    set_transport(None)


def body(api: Api, i: int = -1) -> dict[str, Any]:
    return json.loads(api.requests[i].content)


def test_generation_request_and_result(api: Api) -> None:
    result = images.imagine("a calm lake", aspect_ratio="portrait")
    request = api.requests[0]
    assert str(request.url) == "https://xai.test/v1/images/generations"
    assert request.headers["authorization"] == "Bearer xai-test-key-0123456789"
    assert body(api) == {
        "model": "grok-imagine-image",
        "prompt": "a calm lake",
        "n": 1,
        "response_format": "b64_json",
        "aspect_ratio": "9:16",
    }
    assert result.format == "JPEG" and result.path.suffix == ".jpg" and result.size == (1280, 720)
    assert result.revised_prompt == "a calm lake, dawn"
    assert result.cost == {"usd": 0.02, "estimated": False}  # 2e8 ticks * 1e-10 USD


@pytest.mark.parametrize(("aspect", "ratio"), [("landscape", "16:9"), ("square", "1:1")])
def test_aspect_ratios(api: Api, aspect: str, ratio: str) -> None:
    images.imagine("x", aspect_ratio=aspect)
    assert body(api)["aspect_ratio"] == ratio


def test_quality_model_resolution_and_env_precedence(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    config.set("image_gen.xai.resolution", "2k")
    images.imagine("x", model="grok-imagine-image-quality")
    assert body(api)["model"] == "grok-imagine-image-quality" and body(api)["resolution"] == "2k"
    monkeypatch.setenv("XAI_IMAGE_MODEL", "grok-imagine-image-quality")
    assert images.imagine("x").model == "grok-imagine-image-quality"


def test_base_url_from_env(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    config.unset("image_gen.xai.base_url")
    monkeypatch.setenv("XAI_BASE_URL", "https://proxy.test/xai/v1")
    images.imagine("x")
    assert str(api.requests[0].url) == "https://proxy.test/xai/v1/images/generations"


@pytest.mark.parametrize("model", ["grok-2-image", "grok-imagine-image-pro"])
def test_retired_models(api: Api, model: str) -> None:
    with pytest.raises(InvalidInputError, match=f"retired {model}"):
        images.imagine("x", model=model)
    assert api.requests == []


def test_edit_sends_data_uris(api: Api, tmp_path: Any) -> None:
    ref = tmp_path / "r.png"
    Image.new("RGB", (16, 16)).save(ref)
    images.imagine("make it red", reference_images=[str(ref)])
    assert str(api.requests[0].url).endswith("/images/edits")
    assert body(api)["image"]["url"].startswith("data:image/png;base64,")
    images.imagine("make it red", reference_images=[str(ref), str(ref)])
    assert len(body(api)["images"]) == 2
    with pytest.raises(InvalidInputError, match="at most 3"):
        images.imagine("x", reference_images=[str(ref)] * 4)


@pytest.mark.parametrize(
    ("reply", "exc", "match"),
    [
        (
            lambda r: httpx.Response(
                400,
                json={
                    "code": "Client specified an invalid argument",
                    "error": "Incorrect API key provided: xa***89",
                },
            ),
            ProviderAuthError,
            "XAI_API_KEY",
        ),
        (
            lambda r: httpx.Response(
                400,
                json={
                    "code": "Client specified an invalid argument",
                    "error": "Generated image rejected by content moderation.",
                },
            ),
            ContentPolicyError,
            "moderation",
        ),
        (
            lambda r: httpx.Response(400, json={"code": "x", "error": "Argument not supported: size"}),
            InvalidInputError,
            "Argument not supported",
        ),
        (lambda r: httpx.Response(429, json={"error": "slow down"}), RateLimitedError, "slow down"),
        (lambda r: httpx.Response(200, text="<html>"), ParseError, "invalid JSON"),
        (lambda r: httpx.Response(200, json={"data": [{}]}), ProviderError, "no image"),
    ],
    ids=["bad-key-400", "moderation", "bad-arg", "429", "bad-json", "no-image"],
)
def test_errors(api: Api, reply: Any, exc: type, match: str) -> None:
    api.reply = reply
    with pytest.raises(exc, match=match):
        images.imagine("x")
    # repeated only on a rate-limit 429 (the default two retries), where xAI did no work
    assert len(api.requests) == (3 if exc is RateLimitedError else 1)
    assert not any(images_cache_dir().iterdir())


def test_metadata() -> None:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("xai")
    assert provider is not None and not provider.is_available()
    assert provider.default_model() == "grok-imagine-image"
    assert {m["id"] for m in provider.list_models()} == {"grok-imagine-image", "grok-imagine-image-quality"}
    assert provider.capabilities()["max_source_images"] == 3


# ----------------------------------------------------------------------------- against the emulator


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.plugins.loader import load_plugins
    from hermes_nb.testing import Emulator, use_emulator

    load_plugins()
    with Emulator(seed=0) as emulator, use_emulator(emulator):
        config.set("image_gen.provider", "xai")
        yield emulator


@pytest.mark.parametrize("data_uri", [True, False])
def test_emulator_generation(emu: Any, data_uri: bool) -> None:
    emu.xai_b64_data_uri = data_uri
    result = images.imagine("a calm lake", aspect_ratio="landscape")
    (request,) = emu.requests_for("xai")
    assert request.json["response_format"] == "b64_json" and request.json["aspect_ratio"] == "16:9"
    assert result.format == "JPEG" and result.width > result.height
    assert result.cost is not None and result.cost["estimated"] is False


@pytest.mark.parametrize(
    ("setup", "exc"),
    [
        (lambda emu: config.set_key("XAI_API_KEY", emu.BAD_KEY), ProviderAuthError),
        (lambda emu: emu.fail("xai", "429", times=None), RateLimitedError),
        (lambda emu: emu.fail("xai", "malformed_json"), ParseError),
    ],
    ids=["bad-key", "429", "malformed-json"],
)
def test_emulator_errors(emu: Any, setup: Any, exc: type) -> None:
    setup(emu)
    with pytest.raises(exc):
        images.imagine("a cat")
    assert not any(images_cache_dir().iterdir())


def test_emulator_one_rate_limit_is_retried(emu: Any) -> None:
    emu.fail("xai", "429", times=1)
    result = images.imagine("a cat")
    assert len(emu.requests_for("xai")) == 2 and result.path.exists()


def test_emulator_moderation(emu: Any) -> None:
    with pytest.raises(ContentPolicyError):
        images.imagine(f"a {emu.MODERATION_WORD} thing")
