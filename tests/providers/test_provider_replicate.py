"""Replicate provider against the emulator: Prefer: wait, polling to a terminal state, download, RFC 7807."""

from __future__ import annotations

import base64
import io
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from fixtures.clocks import FakeClock, fake_provider_clock
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
    TimeoutError_,
)
from hermes_nb.plugins.image_provider import images_cache_dir
from hermes_nb.plugins.registry import image_providers
from hermes_nb.testing import fake_module

VERSIONS = fake_module("replicate").VERSIONS


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_provider_clock(monkeypatch, "replicate")


@pytest.fixture
def emu(clock: FakeClock) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, ["replicate"]):
        config.set("image_gen.provider", "replicate")
        yield emulator


def api_requests(emu: Any) -> list[Any]:
    return emu.requests_for("replicate")


def test_wait_returns_early_then_polls_to_success(emu: Any, clock: FakeClock) -> None:
    result = images.imagine("a red fox", aspect_ratio="landscape", seed=7, go_fast=True, not_an_input=1)
    create, *polls = api_requests(emu)
    assert create.method == "POST"
    assert create.path == "/replicate/v1/models/black-forest-labs/flux-schnell/predictions"
    assert create.headers["authorization"] == "Bearer emu-replicate-key"
    assert create.headers["prefer"] == "wait=60" and create.headers["cancel-after"] == "120s"
    assert create.json == {
        "input": {"prompt": "a red fox", "aspect_ratio": "16:9", "seed": 7, "go_fast": True}
    }
    # the wait returned "starting": polled at urls.get until "succeeded"
    assert [p.method for p in polls] == ["GET", "GET"]
    assert all(p.path.startswith("/replicate/v1/predictions/") for p in polls)
    assert clock.sleeps == [0.5, 0.75]
    (download,) = emu.requests_for("files")
    assert download.method == "GET"
    assert result.size == (1344, 768) and result.format == "WEBP"
    assert result.cost == {"usd": 0.003, "estimated": True}
    assert result.envelope["predict_time"] == 0.61 and result.envelope["prediction_id"]


def test_wait_that_finishes_needs_no_poll(emu: Any, clock: FakeClock) -> None:
    emu.replicate_polls_to_complete = 0
    result = images.imagine("a fox", aspect_ratio="square")
    assert [r.method for r in api_requests(emu)] == ["POST"] and clock.sleeps == []
    assert result.size == (1024, 1024)


@pytest.mark.parametrize(
    ("aspect", "ratio", "size"), [("portrait", "9:16", (768, 1344)), ("square", "1:1", (1024, 1024))]
)
def test_aspect_ratios(emu: Any, aspect: str, ratio: str, size: tuple[int, int]) -> None:
    result = images.imagine("x", aspect_ratio=aspect)
    assert api_requests(emu)[0].json["input"]["aspect_ratio"] == ratio and result.size == size


def test_output_is_downloaded_by_the_provider(emu: Any) -> None:
    provider = image_providers.get("replicate")
    assert provider is not None
    envelope = provider.generate("a fox", "landscape")
    assert envelope["success"] is True
    # a local file in the images cache, never the expiring URL
    assert str(envelope["image"]).startswith(str(images_cache_dir()))
    assert "/files/" not in json.dumps(envelope)


def test_pinned_versions(emu: Any) -> None:
    version = VERSIONS["black-forest-labs/flux-dev"]
    result = images.imagine("x", model=f"black-forest-labs/flux-dev:{version}")
    create = api_requests(emu)[0]
    assert create.path == "/replicate/v1/predictions"
    assert create.json["version"] == version and create.json["input"]["prompt"] == "x"
    assert result.model == f"black-forest-labs/flux-dev:{version}"
    assert result.cost == {"usd": 0.025, "estimated": True}
    with pytest.raises(InvalidInputError, match="Invalid version"):
        images.imagine("x", model="black-forest-labs/flux-dev:" + "0" * 64)


@pytest.mark.parametrize("model", ["flux", "owner/name:v1", "a/b/c"])
def test_malformed_model_ids_fail_before_any_request(emu: Any, model: str) -> None:
    with pytest.raises(InvalidInputError, match="owner/name"):
        images.imagine("x", model=model)
    assert api_requests(emu) == []


def test_unknown_model_is_404(emu: Any) -> None:
    with pytest.raises(InvalidInputError, match="not found"):
        images.imagine("x", model="someone/nothing")


def test_validation_error_is_rfc7807(emu: Any) -> None:
    with pytest.raises(InvalidInputError, match="output_format"):
        images.imagine("x", output_format="gif")
    assert not any(images_cache_dir().iterdir())


def test_nsfw_failure_is_content_policy(emu: Any) -> None:
    with pytest.raises(ContentPolicyError, match="NSFW"):
        images.imagine(f"a {emu.MODERATION_WORD} thing")
    assert not any(images_cache_dir().iterdir())


def test_never_finishing_prediction_is_cancelled_at_the_deadline(emu: Any, clock: FakeClock) -> None:
    emu.replicate_polls_to_complete = None
    config.set("image_gen.timeout", 10)
    with pytest.raises(TimeoutError_, match="image_gen.timeout=10"):
        images.imagine("x")
    assert clock.now <= 10.0 + 1e-9 and max(clock.sleeps) == 2.0
    cancel = api_requests(emu)[-1]
    assert cancel.method == "POST" and cancel.path.endswith("/cancel")
    assert not any(images_cache_dir().iterdir())


@pytest.mark.parametrize(
    ("setup", "exc", "match"),
    [
        (
            lambda emu: config.set_key("REPLICATE_API_TOKEN", emu.BAD_KEY),
            ProviderAuthError,
            "REPLICATE_API_TOKEN",
        ),
        (lambda emu: emu.fail("replicate", "429", times=None, retry_after=0), RateLimitedError, "throttled"),
        (lambda emu: emu.fail("replicate", "402"), ProviderError, "credit"),
        (lambda emu: emu.fail("replicate", "malformed_json"), ParseError, "invalid JSON"),
    ],
    ids=["bad-token", "429", "402", "malformed-json"],
)
def test_errors(emu: Any, setup: Any, exc: type, match: str) -> None:
    setup(emu)
    with pytest.raises(exc, match=match):
        images.imagine("a cat")
    assert not any(images_cache_dir().iterdir())


def test_one_throttle_on_create_is_retried(emu: Any) -> None:
    emu.fail("replicate", "429", times=1, retry_after=0)
    result = images.imagine("a cat")
    assert [r.method for r in api_requests(emu)][:2] == ["POST", "POST"] and result.path.exists()


def test_failed_and_canceled_predictions() -> None:
    from hermes_nb.net.http_client import set_transport
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    states = iter(["failed", "canceled"])

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(201, json={"id": "p1", "status": next(states), "error": "CUDA out of memory"})

    config.set_key("REPLICATE_API_TOKEN", "r8_test")
    config.set("image_gen.provider", "replicate")
    set_transport(httpx.MockTransport(handler))
    try:
        with pytest.raises(ProviderError, match="failed: CUDA out of memory"):
            images.imagine("x")
        with pytest.raises(ProviderError, match="was canceled"):
            images.imagine("x")
    finally:
        set_transport(None)


def test_foreign_poll_urls_are_not_followed(clock: FakeClock) -> None:
    from hermes_nb.net.http_client import set_transport

    out = io.BytesIO()
    Image.new("RGB", (16, 9)).save(out, format="PNG")
    data_uri = "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        if request.method == "POST":
            return httpx.Response(
                201, json={"id": "p9", "status": "starting", "urls": {"get": "https://evil.test/steal"}}
            )
        return httpx.Response(200, json={"id": "p9", "status": "succeeded", "output": [data_uri]})

    config.set_key("REPLICATE_API_TOKEN", "r8_test")
    config.set("image_gen.provider", "replicate")
    set_transport(httpx.MockTransport(handler))
    try:
        result = images.imagine("x")
    finally:
        set_transport(None)
    assert all(r.url.host == "api.replicate.com" for r in seen)
    assert seen[1].url.path == "/v1/predictions/p9" and result.size == (16, 9)


def test_metadata_and_missing_token() -> None:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("replicate")
    assert provider is not None and provider.display_name == "Replicate"
    assert provider.default_model() == "black-forest-labs/flux-schnell"
    assert {m["id"] for m in provider.list_models()} >= {"black-forest-labs/flux-1.1-pro"}
    assert provider.capabilities()["max_reference_images"] == 0 and not provider.is_available()
    config.set("image_gen.provider", "replicate")
    with pytest.raises(ProviderNotConfiguredError, match="REPLICATE_API_TOKEN"):
        images.imagine("x")


def test_emulator_wire_format(emu: Any) -> None:
    """The emulated API itself: 201 on create, problem+json errors, the cancel route, wait=N bounds."""
    base, headers = emu.base_url("replicate"), {"Authorization": "Bearer emu-replicate-key"}
    url = f"{base}/models/black-forest-labs/flux-schnell/predictions"
    created = httpx.post(url, json={"input": {"prompt": "x"}}, headers={**headers, "Prefer": "wait=61"})
    assert created.status_code == 201 and created.json()["status"] == "starting"  # wait=61 is no wait
    body = created.json()
    assert body["urls"]["get"] == f"{base}/predictions/{body['id']}" and body["output"] is None
    cancelled = httpx.post(body["urls"]["cancel"], headers=headers).json()
    assert cancelled["status"] == "canceled"
    bad = httpx.post(url, json={"input": {"prompt": "x", "aspect_ratio": "2:1"}}, headers=headers)
    assert bad.status_code == 422 and bad.headers["content-type"] == "application/problem+json"
    assert {"type", "title", "status", "detail"} <= set(bad.json()) and "aspect_ratio" in bad.json()["detail"]
    unauthenticated = httpx.post(url, json={"input": {"prompt": "x"}})
    assert unauthenticated.status_code == 401 and unauthenticated.json()["title"] == "Unauthenticated"


def test_aborted_prediction_is_a_provider_error() -> None:
    from hermes_nb.net.http_client import set_transport
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    answer = {"id": "p1", "status": "aborted", "error": None}
    config.set_key("REPLICATE_API_TOKEN", "r8_test")
    config.set("image_gen.provider", "replicate")
    set_transport(httpx.MockTransport(lambda request: httpx.Response(201, json=answer)))
    try:
        with pytest.raises(ProviderError, match="was aborted"):
            images.imagine("x")
    finally:
        set_transport(None)
