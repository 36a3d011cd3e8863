"""Gemini image provider against the emulator: generateContent, inlineData, retired Imagen, safety."""

from __future__ import annotations

import base64
import io
from collections.abc import Iterator
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
    RateLimitedError,
)
from hermes_nb.plugins.image_provider import images_cache_dir
from hermes_nb.plugins.registry import image_providers


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.plugins.loader import load_plugins
    from hermes_nb.testing import Emulator, use_emulator

    load_plugins()
    with Emulator(seed=0) as emulator, use_emulator(emulator, ["google"]):
        config.set("image_gen.provider", "google")
        yield emulator


def test_generate_content_request_and_result(emu: Any) -> None:
    result = images.imagine("a paper crane", aspect_ratio="landscape")
    (request,) = emu.requests_for("google")
    assert request.method == "POST"
    assert request.path == "/google/v1beta/models/gemini-3.1-flash-image:generateContent"
    assert request.headers["x-goog-api-key"] == "emu-google-key" and "key" not in request.query
    assert request.json == {
        "contents": [{"role": "user", "parts": [{"text": "a paper crane"}]}],
        "generationConfig": {"responseModalities": ["IMAGE"], "imageConfig": {"aspectRatio": "16:9"}},
    }
    assert result.size == (1376, 768) and result.format == "PNG" and result.seed is None
    usage = result.envelope["usage"]
    assert usage["candidatesTokenCount"] == 1120
    # 1120 image tokens at $60/M plus the prompt tokens at $0.50/M, from the list price
    assert result.cost == {
        "usd": round(1120 * 60 / 1e6 + usage["promptTokenCount"] * 0.5 / 1e6, 6),
        "estimated": True,
    }


@pytest.mark.parametrize(("aspect", "size"), [("square", (1024, 1024)), ("portrait", (768, 1376))])
def test_aspect_ratios(emu: Any, aspect: str, size: tuple[int, int]) -> None:
    result = images.imagine("x", aspect_ratio=aspect)
    assert result.size == size


def test_image_size_and_vendor_ratio(emu: Any) -> None:
    result = images.imagine("x", image_size="2k", google_aspect_ratio="4:3")
    image_config = emu.requests_for("google")[0].json["generationConfig"]["imageConfig"]
    assert image_config == {"aspectRatio": "4:3", "imageSize": "2K"} and result.size == (2400, 1792)
    with pytest.raises(InvalidInputError, match="image_size"):
        images.imagine("x", image_size="8K")
    with pytest.raises(InvalidInputError, match="aspect ratio"):
        images.imagine("x", google_aspect_ratio="7:1")


def test_other_models_and_the_models_prefix(emu: Any) -> None:
    images.imagine("x", model="models/gemini-3-pro-image-preview")
    assert emu.requests_for("google")[0].path.endswith("/models/gemini-3-pro-image-preview:generateContent")


def test_reference_images_are_inline_data(emu: Any, tmp_path: Any) -> None:
    ref = tmp_path / "ref.png"
    Image.new("RGB", (24, 24), (0, 90, 200)).save(ref)
    result = images.imagine("make it red", reference_images=[str(ref)])
    parts = emu.requests_for("google")[0].json["contents"][0]["parts"]
    assert parts[0] == {"text": "make it red"} and parts[1]["inlineData"]["mimeType"] == "image/png"
    assert Image.open(io.BytesIO(base64.b64decode(parts[1]["inlineData"]["data"]))).size == (24, 24)
    assert result.envelope["modality"] == "image"


@pytest.mark.parametrize(
    ("model", "successor"),
    [
        ("imagen-4.0-generate-001", "gemini-3.1-flash-image"),
        ("imagen-4.0-ultra-generate-001", "gemini-3-pro-image-preview"),
        ("imagen-3.0-fast-generate-001", "gemini-3.1-flash-image"),
        ("gemini-2.5-flash-image", "gemini-3.1-flash-image"),
    ],
)
def test_retired_models_name_the_successor_before_any_request(emu: Any, model: str, successor: str) -> None:
    with pytest.raises(InvalidInputError, match=f"{model} is retired.*use {successor} instead"):
        images.imagine("x", model=model)
    assert emu.requests_for("google") == []


def test_emulator_serves_imagen_only_as_legacy(emu: Any) -> None:
    url = emu.base_url("google") + "/models/imagen-4.0-generate-001:predict"
    body = {"instances": [{"prompt": "x"}], "parameters": {"aspectRatio": "16:9", "sampleImageSize": "1K"}}
    headers = {"x-goog-api-key": "k"}
    gone = httpx.post(url, json=body, headers=headers)
    assert gone.status_code == 404 and gone.json()["error"]["status"] == "NOT_FOUND"
    emu.allow_legacy_models = True
    served = httpx.post(url, json=body, headers=headers).json()
    assert Image.open(io.BytesIO(base64.b64decode(served["predictions"][0]["bytesBase64Encoded"]))).size == (
        1376,
        768,
    )


def test_unknown_model_404(emu: Any) -> None:
    with pytest.raises(InvalidInputError, match="does not serve this model"):
        images.imagine("x", model="gemini-9-image")


def test_image_safety_finish_is_content_policy(emu: Any) -> None:
    with pytest.raises(ContentPolicyError, match="IMAGE_SAFETY"):
        images.imagine(f"a {emu.MODERATION_WORD} thing")
    assert not any(images_cache_dir().iterdir())


@pytest.mark.parametrize(
    ("setup", "exc", "match"),
    [
        (lambda emu: config.set_key("GEMINI_API_KEY", emu.BAD_KEY), ProviderAuthError, "GEMINI_API_KEY"),
        (lambda emu: emu.fail("google", "429", times=None, retry_after=0), RateLimitedError, "quota"),
        (lambda emu: emu.fail("google", "malformed_json"), ParseError, "invalid JSON"),
        (lambda emu: emu.fail("google", "empty"), ProviderError, "no image .finish reason NO_IMAGE"),
        (lambda emu: emu.fail("google", "503"), ProviderError, "overloaded"),
    ],
    ids=["bad-key", "429", "malformed-json", "no-image", "503"],
)
def test_errors(emu: Any, setup: Any, exc: type, match: str) -> None:
    setup(emu)
    with pytest.raises(exc, match=match):
        images.imagine("a cat")
    assert not any(images_cache_dir().iterdir())


def test_google_api_key_is_accepted(emu: Any) -> None:
    config.set_key("GEMINI_API_KEY", None)
    config.set_key("GOOGLE_API_KEY", "emu-google-other")
    images.imagine("x")
    assert emu.requests_for("google")[0].headers["x-goog-api-key"] == "emu-google-other"


@pytest.mark.parametrize(
    ("answer", "match"),
    [
        ({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"}}, "blocked the prompt .PROHIBITED_CONTENT"),
        ({"candidates": [{"finishReason": "SAFETY", "content": {"parts": []}}]}, "finish reason SAFETY"),
        ({"candidates": [{"finishReason": "IMAGE_PROHIBITED_CONTENT", "finishMessage": "no"}]}, ": no"),
    ],
)
def test_blocked_answers(answer: dict[str, Any], match: str) -> None:
    from hermes_nb.net.http_client import set_transport
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    config.set_key("GEMINI_API_KEY", "g-test")
    config.set("image_gen.provider", "google")
    set_transport(httpx.MockTransport(lambda request: httpx.Response(200, json=answer)))
    try:
        with pytest.raises(ContentPolicyError, match=match):
            images.imagine("x")
    finally:
        set_transport(None)


def test_text_only_answer_says_what_the_model_said() -> None:
    from hermes_nb.net.http_client import set_transport
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    answer = {
        "candidates": [{"finishReason": "STOP", "content": {"parts": [{"text": "I can't draw that."}]}}]
    }
    config.set_key("GEMINI_API_KEY", "g-test")
    config.set("image_gen.provider", "google")
    set_transport(httpx.MockTransport(lambda request: httpx.Response(200, json=answer)))
    try:
        with pytest.raises(ProviderError, match="the model said: I can't draw that"):
            images.imagine("x")
    finally:
        set_transport(None)


def test_metadata_and_missing_key() -> None:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("google")
    assert provider is not None and provider.default_model() == "gemini-3.1-flash-image"
    assert provider.capabilities()["seed"] is False
    assert not any(m["id"].startswith("imagen") for m in provider.list_models())
    flash = next(m for m in provider.list_models() if m["id"] == "gemini-3.1-flash-image")
    assert flash["price"].startswith("~$0.067/image")
    config.set("image_gen.provider", "google")
    with pytest.raises(ProviderNotConfiguredError, match="GEMINI_API_KEY or GOOGLE_API_KEY"):
        images.imagine("x")


def test_emulator_wire_format(emu: Any) -> None:
    """The emulated API itself: ?key= auth, the google.rpc error envelope, TEXT and IMAGE parts."""
    url = emu.base_url("google") + "/models/gemini-3.1-flash-image:generateContent"
    body = {
        "contents": [{"parts": [{"text": "x"}]}],
        "generationConfig": {"responseModalities": ["TEXT", "IMAGE"]},
    }
    answer = httpx.post(url, params={"key": "k"}, json=body).json()
    parts = answer["candidates"][0]["content"]["parts"]
    assert "text" in parts[0] and parts[1]["inlineData"]["mimeType"] == "image/png"
    assert (
        answer["candidates"][0]["finishReason"] == "STOP" and answer["usageMetadata"]["totalTokenCount"] > 0
    )
    bad = httpx.post(url, headers={"x-goog-api-key": emu.BAD_KEY}, json=body).json()["error"]
    assert bad["code"] == 400 and bad["status"] == "INVALID_ARGUMENT"
    assert bad["details"][0]["reason"] == "API_KEY_INVALID"
    retired = httpx.post(
        url.replace("gemini-3.1-flash-image", "gemini-2.5-flash-image"), params={"key": "k"}, json=body
    )
    assert retired.status_code == 404 and retired.json()["error"]["status"] == "NOT_FOUND"


@pytest.mark.parametrize(
    ("status", "body", "exc", "match"),
    [
        (
            400,
            {"error": {"code": 400, "message": "bad field", "status": "INVALID_ARGUMENT"}},
            InvalidInputError,
            "bad field",
        ),
        (
            400,
            {
                "error": {
                    "code": 400,
                    "message": "User location is not supported for the API use.",
                    "status": "FAILED_PRECONDITION",
                }
            },
            ProviderError,
            "cannot serve this request",
        ),
        (
            403,
            {"error": {"code": 403, "message": "denied", "status": "PERMISSION_DENIED"}},
            ProviderAuthError,
            "denied",
        ),
    ],
)
def test_error_envelope_mapping(status: int, body: dict[str, Any], exc: type, match: str) -> None:
    from hermes_nb.net.http_client import set_transport
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    config.set_key("GEMINI_API_KEY", "g-test")
    config.set("image_gen.provider", "google")
    set_transport(httpx.MockTransport(lambda request: httpx.Response(status, json=body)))
    try:
        with pytest.raises(exc, match=match):
            images.imagine("x")
    finally:
        set_transport(None)
