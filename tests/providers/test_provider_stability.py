"""Stability AI provider against the emulator: multipart form, Accept-dependent bodies, moderation."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

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
from hermes_nb.testing._images import parse_multipart


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.plugins.loader import load_plugins
    from hermes_nb.testing import Emulator, use_emulator

    load_plugins()
    with Emulator(seed=0) as emulator, use_emulator(emulator, ["stability"]):
        config.set("image_gen.provider", "stability")
        yield emulator


def form(request: Any) -> dict[str, str]:
    fields, files = parse_multipart(request.headers["content-type"], request.body)
    assert files == []
    return fields


def test_core_request_is_multipart_with_image_accept(emu: Any) -> None:
    result = images.imagine("a lighthouse", aspect_ratio="landscape", seed=11, style_preset="photographic")
    (request,) = emu.requests_for("stability")
    assert request.method == "POST" and request.path == "/stability/v2beta/stable-image/generate/core"
    assert request.headers["authorization"] == "Bearer emu-stability-key"
    assert request.headers["accept"] == "image/*"
    assert request.headers["content-type"].startswith("multipart/form-data; boundary=")
    assert form(request) == {
        "prompt": "a lighthouse",
        "aspect_ratio": "16:9",
        "output_format": "png",
        "seed": "11",
        "style_preset": "photographic",
    }
    assert result.size == (1344, 768) and result.format == "PNG" and result.seed == 11
    assert result.cost == {"usd": 0.03, "credits": 3.0, "estimated": True}
    assert result.envelope["finish_reason"] == "SUCCESS"


def test_json_accept_returns_base64(emu: Any) -> None:
    result = images.imagine("a lighthouse", aspect_ratio="portrait", response_format="b64_json")
    (request,) = emu.requests_for("stability")
    assert request.headers["accept"] == "application/json"
    assert result.size == (768, 1344) and isinstance(result.seed, int)


@pytest.mark.parametrize(
    ("model", "endpoint", "field", "usd"),
    [
        ("sd3.5-large", "sd3", "sd3.5-large", 0.065),
        ("sd3.5-medium", "sd3", "sd3.5-medium", 0.035),
        ("stable-image-ultra", "ultra", None, 0.08),
    ],
)
def test_models_and_endpoints(emu: Any, model: str, endpoint: str, field: str | None, usd: float) -> None:
    result = images.imagine("x", aspect_ratio="square", model=model, negative_prompt="blurry")
    (request,) = emu.requests_for("stability")
    assert request.path.endswith(f"/generate/{endpoint}")
    fields = form(request)
    assert fields.get("model") == field and fields["negative_prompt"] == "blurry"
    assert (fields.get("mode") == "text-to-image") == (endpoint == "sd3")
    assert result.size == (1024, 1024) and result.cost is not None and result.cost["usd"] == usd


def test_vendor_aspect_ratio_override(emu: Any) -> None:
    result = images.imagine("x", stability_aspect_ratio="21:9")
    assert form(emu.requests_for("stability")[0])["aspect_ratio"] == "21:9" and result.size == (1536, 640)
    with pytest.raises(InvalidInputError, match="not one of"):
        images.imagine("x", stability_aspect_ratio="7:3")


def test_unknown_model_fails_before_any_request(emu: Any) -> None:
    with pytest.raises(InvalidInputError, match="unknown Stability model"):
        images.imagine("x", model="sdxl-1.0")
    assert emu.requests_for("stability") == []


def test_vendor_validation_error(emu: Any) -> None:
    with pytest.raises(InvalidInputError, match="output_format"):
        images.imagine("x", model="sd3.5-large", output_format="webp")  # sd3 takes png or jpeg only


def test_moderation_403_is_content_policy(emu: Any) -> None:
    with pytest.raises(ContentPolicyError, match="content moderation"):
        images.imagine(f"a {emu.MODERATION_WORD} thing")
    assert not any(images_cache_dir().iterdir())


@pytest.mark.parametrize(
    ("setup", "exc", "match"),
    [
        (
            lambda emu: config.set_key("STABILITY_API_KEY", emu.BAD_KEY),
            ProviderAuthError,
            "STABILITY_API_KEY",
        ),
        (lambda emu: emu.fail("stability", "429", times=None, retry_after=0), RateLimitedError, "rate limit"),
        (lambda emu: emu.fail("stability", "402"), ProviderError, "credits"),
        (lambda emu: emu.fail("stability", "413"), InvalidInputError, "refused"),
        (lambda emu: emu.fail("stability", "empty"), ParseError, "image"),
    ],
    ids=["bad-key", "429", "402", "413", "empty-body"],
)
def test_errors(emu: Any, setup: Any, exc: type, match: str) -> None:
    setup(emu)
    with pytest.raises(exc, match=match):
        images.imagine("a cat")
    assert not any(images_cache_dir().iterdir())


def test_one_rate_limit_is_retried(emu: Any) -> None:
    emu.fail("stability", "429", times=1, retry_after=0)
    assert images.imagine("a cat").path.exists() and len(emu.requests_for("stability")) == 2


def test_server_error_is_not_retried(emu: Any) -> None:
    emu.fail("stability", "500", times=None)
    with pytest.raises(ProviderError):
        images.imagine("a cat")
    assert len(emu.requests_for("stability")) == 1  # billed work is never sent twice


@pytest.mark.parametrize("as_json", [False, True])
def test_content_filtered_finish_is_content_policy(as_json: bool) -> None:
    from hermes_nb.net.http_client import set_transport
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()

    def handler(request: httpx.Request) -> httpx.Response:
        if as_json:
            blurred = base64.b64encode(b"not checked").decode()
            return httpx.Response(
                200, json={"image": blurred, "finish_reason": "CONTENT_FILTERED", "seed": 1}
            )
        return httpx.Response(
            200, content=b"x", headers={"content-type": "image/png", "finish-reason": "CONTENT_FILTERED"}
        )

    config.set_key("STABILITY_API_KEY", "sk-test")
    config.set("image_gen.provider", "stability")
    set_transport(httpx.MockTransport(handler))
    try:
        with pytest.raises(ContentPolicyError, match="CONTENT_FILTERED"):
            images.imagine("x", response_format="b64_json" if as_json else None)
    finally:
        set_transport(None)
    assert not any(images_cache_dir().iterdir())


def test_metadata_and_missing_key() -> None:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("stability")
    assert provider is not None and provider.default_model() == "stable-image-core"
    assert {"sd3.5-large", "stable-image-core", "stable-image-ultra"} <= {
        m["id"] for m in provider.list_models()
    }
    caps = provider.capabilities()
    assert caps["negative_prompt"] is True and caps["max_reference_images"] == 0
    config.set("image_gen.provider", "stability")
    with pytest.raises(ProviderNotConfiguredError, match="STABILITY_API_KEY"):
        images.imagine("x")


def test_emulator_wire_format(emu: Any) -> None:
    """The emulated API itself: multipart only, Accept picks bytes or JSON, the error envelope."""
    url = emu.base_url("stability") + "/v2beta/stable-image/generate/core"
    auth = {"authorization": "Bearer emu-stability-key"}
    files = {"prompt": (None, "a boat"), "aspect_ratio": (None, "1:1")}
    raw = httpx.post(url, files=files, headers={**auth, "accept": "image/*"})
    assert raw.headers["content-type"] == "image/png" and raw.headers["finish-reason"] == "SUCCESS"
    assert raw.headers["seed"].isdigit() and raw.content.startswith(b"\x89PNG")
    as_json = httpx.post(url, files=files, headers={**auth, "accept": "application/json"}).json()
    assert as_json["finish_reason"] == "SUCCESS" and base64.b64decode(as_json["image"]) == raw.content
    urlencoded = httpx.post(url, data={"prompt": "a boat"}, headers=auth)
    assert urlencoded.status_code == 400 and urlencoded.json()["name"] == "bad_request"
    assert set(urlencoded.json()) == {"id", "name", "errors"}
    other_accept = httpx.post(url, files=files, headers={**auth, "accept": "text/html"})
    assert other_accept.status_code == 400
