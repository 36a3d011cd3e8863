"""OpenAI image provider: request shape, tiers, retired ids, edits, errors (mock transport)."""

from __future__ import annotations

import base64
import datetime as dt
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
    ProviderNotConfiguredError,
    ProviderUnavailableError,
    RateLimitedError,
)
from hermes_nb.net.http_client import set_transport
from hermes_nb.plugins.image_provider import images_cache_dir
from hermes_nb.plugins.registry import image_providers


def png_b64(size: tuple[int, int] = (1536, 1024)) -> str:
    out = io.BytesIO()
    Image.new("RGB", size, (1, 2, 3)).save(out, format="PNG", compress_level=1)
    return base64.b64encode(out.getvalue()).decode()


def load_provider() -> Any:
    """The provider module as the plugin loader imported it (bundled plugins use relative imports)."""
    import sys

    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("openai")
    assert provider is not None
    return sys.modules[type(provider).__module__]


class Api:
    """A scripted OpenAI Images endpoint: records requests, answers with ``reply(request)``."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.reply: Callable[[httpx.Request], httpx.Response] = self.ok

    def ok(self, request: httpx.Request) -> httpx.Response:
        return httpx.Response(
            200,
            json={
                "created": 1,
                "size": "1536x1024",
                "quality": "medium",
                "data": [{"b64_json": png_b64(), "revised_prompt": None}],
                "usage": {"input_tokens": 10, "output_tokens": 1568, "total_tokens": 1578},
            },
        )

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        return self.reply(request)


@pytest.fixture
def api() -> Iterator[Api]:
    load_provider()
    config.set("image_gen.provider", "openai")
    config.set_key("OPENAI_API_KEY", "sk-test-openai-0123456789")
    config.set("image_gen.openai.base_url", "https://openai.test/v1")
    handler = Api()
    set_transport(httpx.MockTransport(handler))
    yield handler
    set_transport(None)


def error(status: int, code: str, message: str, **headers: str) -> Callable[[httpx.Request], httpx.Response]:
    body = {"error": {"message": message, "type": "x", "param": None, "code": code}}
    return lambda request: httpx.Response(status, json=body, headers=headers)


def no_files() -> bool:
    return not any(images_cache_dir().iterdir())


def test_generation_request_shape_and_result(api: Api) -> None:
    result = images.imagine("a lighthouse at dusk", aspect_ratio="landscape")
    request = api.requests[0]
    assert request.method == "POST" and str(request.url) == "https://openai.test/v1/images/generations"
    assert request.headers["authorization"] == "Bearer sk-test-openai-0123456789"
    body = json.loads(request.content)
    assert body == {
        "model": "gpt-image-2",
        "prompt": "a lighthouse at dusk",
        "n": 1,
        "size": "1536x1024",
        "quality": "medium",
    }
    assert result.model == "gpt-image-2-medium" and result.size == (1536, 1024)
    assert result.cost == {"usd": 0.08, "estimated": True}
    assert result.envelope["usage"]["output_tokens"] == 1568
    assert "sk-test" not in repr(result) and "sk-test" not in json.dumps(result.envelope)


@pytest.mark.parametrize(("aspect", "size"), [("square", "1024x1024"), ("portrait", "1024x1536")])
def test_aspect_to_size(api: Api, aspect: str, size: str) -> None:
    images.imagine("x", aspect_ratio=aspect)
    assert json.loads(api.requests[0].content)["size"] == size


def test_tiers_and_model_precedence(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    images.imagine("x", model="gpt-image-2-high")
    assert json.loads(api.requests[-1].content)["quality"] == "high"
    config.set("image_gen.model", "gpt-image-2-low")
    images.imagine("x")
    assert json.loads(api.requests[-1].content)["quality"] == "low"
    monkeypatch.setenv("OPENAI_IMAGE_MODEL", "gpt-image-2-high")
    assert images.imagine("x").model == "gpt-image-2-high"
    images.imagine("x", quality="low")  # an explicit option beats the tier
    assert json.loads(api.requests[-1].content)["quality"] == "low"


@pytest.mark.parametrize("model", ["dall-e-3", "dall-e-2", "gpt-image-1"])
def test_retired_models_fail_before_any_request(api: Api, model: str) -> None:
    with pytest.raises(InvalidInputError, match=rf"retired {model}.*gpt-image-2-medium"):
        images.imagine("x", model=model)
    assert api.requests == [] and no_files()


def test_deprecated_model_still_served_until_its_date(api: Api, monkeypatch: pytest.MonkeyPatch) -> None:
    mod = load_provider()
    monkeypatch.setattr(mod, "_today", lambda: dt.date(2026, 11, 30))
    images.imagine("x", model="gpt-image-1.5")
    assert json.loads(api.requests[-1].content)["model"] == "gpt-image-1.5"
    monkeypatch.setattr(mod, "_today", lambda: dt.date(2026, 12, 1))
    with pytest.raises(InvalidInputError, match="retired gpt-image-1.5"):
        images.imagine("x", model="gpt-image-1.5", new=True)  # new: not the image stored a day earlier


def test_edit_with_reference_images(api: Api, tmp_path: Any) -> None:
    ref = tmp_path / "ref.png"
    Image.new("RGB", (32, 32)).save(ref)
    images.imagine("make it blue", reference_images=[str(ref), str(ref)])
    request = api.requests[0]
    assert str(request.url).endswith("/images/edits")
    assert request.headers["content-type"].startswith("multipart/form-data")
    assert request.content.count(b'name="image[]"') == 2
    assert b'name="model"\r\n\r\ngpt-image-2' in request.content


def test_reference_that_is_not_an_image(api: Api, tmp_path: Any) -> None:
    ref = tmp_path / "notes.txt"
    ref.write_text("hello")
    with pytest.raises(InvalidInputError, match="not a usable image"):
        images.imagine("x", reference_images=str(ref))
    assert api.requests == []


@pytest.mark.parametrize(
    ("reply", "exc", "match"),
    [
        (
            error(400, "moderation_blocked", "Your request was rejected by the safety system"),
            ContentPolicyError,
            "safety system",
        ),
        (
            error(401, "invalid_api_key", "Incorrect API key provided: sk-te***"),
            ProviderAuthError,
            "OPENAI_API_KEY",
        ),
        (
            error(
                429,
                "rate_limit_exceeded",
                "Rate limit exceeded for images per minute",
                **{"retry-after": "3"},
            ),
            RateLimitedError,
            "Rate limit",
        ),
        (error(429, "insufficient_quota", "You exceeded your current quota"), ProviderError, "quota"),
        (error(404, "model_not_found", "The model does not exist"), InvalidInputError, "does not exist"),
        (lambda r: httpx.Response(503, text="upstream down"), ProviderUnavailableError, "503|unavailable"),
        (lambda r: httpx.Response(200, text="{not json"), ParseError, "invalid JSON"),
        (lambda r: httpx.Response(200, json={"data": []}), ProviderError, "no image"),
        (lambda r: httpx.Response(200, json={"data": [{"b64_json": "@@@"}]}), ParseError, "base64"),
        (
            lambda r: httpx.Response(
                200, json={"data": [{"b64_json": base64.b64encode(b"GIF89a-nope").decode()}]}
            ),
            ParseError,
            "corrupt|not a PNG",
        ),
    ],
    ids=["moderation", "auth", "429", "quota", "404", "503", "bad-json", "no-image", "bad-b64", "not-image"],
)
def test_errors(api: Api, reply: Any, exc: type, match: str) -> None:
    api.reply = reply
    with pytest.raises(exc, match=match) as info:
        images.imagine("x")
    assert info.value.provider == "openai"
    # Generation POSTs are repeated only when the server did no work: a rate-limit 429 (the
    # default two retries), never a 5xx, a timeout or a quota error.
    assert len(api.requests) == (3 if exc is RateLimitedError else 1)
    assert no_files()
    assert "sk-test-openai" not in str(info.value)


def test_missing_key_names_the_variable(api: Api) -> None:
    config.set_key("OPENAI_API_KEY", None)
    config.set("image_gen.provider", "openai")
    with pytest.raises(ProviderNotConfiguredError, match="OPENAI_API_KEY"):
        images.imagine("x")
    assert api.requests == []


def test_seed_is_not_reported_when_ignored(api: Api) -> None:
    result = images.imagine("x", seed=3)
    assert result.notes and "takes no seed" in result.notes[0]
    assert result.seed is None and "seed" not in json.loads(api.requests[0].content)


def test_metadata() -> None:
    provider = load_provider().OpenAIImageProvider()
    assert [m["id"] for m in provider.list_models()] == [
        "gpt-image-2-low",
        "gpt-image-2-medium",
        "gpt-image-2-high",
    ]
    assert provider.default_model() == "gpt-image-2-medium" and not provider.is_available()
    assert provider.capabilities()["max_reference_images"] == 16
    assert provider.get_setup_schema()["env_vars"][0]["key"] == "OPENAI_API_KEY"


# ----------------------------------------------------------------------------- against the emulator


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    load_provider()
    with Emulator(seed=0) as emulator, use_emulator(emulator):
        config.set("image_gen.provider", "openai")
        yield emulator


def test_emulator_generation(emu: Any) -> None:
    result = images.imagine("a lighthouse", aspect_ratio="portrait", model="gpt-image-2-high")
    (request,) = emu.requests_for("openai")
    assert request.method == "POST" and request.path.endswith("/images/generations")
    assert request.json["size"] == "1024x1536" and request.json["quality"] == "high"
    assert result.size == (1024, 1536) and result.format == "PNG"


def test_emulator_edit(emu: Any, tmp_path: Any) -> None:
    ref = tmp_path / "ref.png"
    Image.new("RGB", (64, 64), (0, 0, 255)).save(ref)
    result = images.imagine("add a boat", aspect_ratio="square", reference_images=str(ref))
    assert emu.requests_for("openai")[0].path.endswith("/images/edits") and result.size == (1024, 1024)


@pytest.mark.parametrize(
    ("setup", "exc"),
    [
        (lambda emu: None, ContentPolicyError),  # the emulator's moderation word
        (lambda emu: config.set_key("OPENAI_API_KEY", emu.BAD_KEY), ProviderAuthError),
        (lambda emu: emu.fail("openai", "429", retry_after=0, times=None), RateLimitedError),
        (lambda emu: emu.fail("openai", "500"), ProviderUnavailableError),
        (lambda emu: emu.fail("openai", "malformed_json"), ParseError),
        (lambda emu: emu.fail("openai", "empty"), ProviderError),
    ],
    ids=["moderation", "bad-key", "429", "500", "malformed-json", "empty"],
)
def test_emulator_errors(emu: Any, setup: Any, exc: type) -> None:
    setup(emu)
    prompt = f"something {emu.MODERATION_WORD}" if exc is ContentPolicyError else "a cat"
    with pytest.raises(exc):
        images.imagine(prompt)
    sent = len(emu.requests_for("openai"))
    assert sent == (3 if exc is RateLimitedError else 1) and no_files()


def test_emulator_one_rate_limit_is_retried(emu: Any) -> None:
    emu.fail("openai", "429", retry_after=0, times=1)
    result = images.imagine("a cat")
    assert len(emu.requests_for("openai")) == 2 and result.path.exists()


def test_emulator_timeout(emu: Any) -> None:
    from hermes_nb.errors import TimeoutError_

    config.set("image_gen.timeout", 0.3)
    emu.fail("openai", "timeout")
    with pytest.raises(TimeoutError_):
        images.imagine("a cat")
    assert no_files()
