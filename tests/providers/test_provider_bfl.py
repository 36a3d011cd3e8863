"""BFL FLUX provider against the emulator: submit, poll the polling_url, moderation, download, cost."""

from __future__ import annotations

import base64
import io
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


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_provider_clock(monkeypatch, "bfl")


@pytest.fixture
def emu(clock: FakeClock) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, ["bfl"]):
        config.set("image_gen.provider", "bfl")
        yield emulator


def png_file(tmp_path: Any) -> str:
    path = tmp_path / "ref.png"
    Image.new("RGB", (32, 32), (200, 10, 10)).save(path)
    return str(path)


def test_submit_poll_download(emu: Any, clock: FakeClock) -> None:
    result = images.imagine("a red fox", aspect_ratio="landscape", seed=5, safety_tolerance=2, unknown=1)
    submit, *polls = emu.requests_for("bfl")
    assert submit.method == "POST" and submit.path == "/bfl/v1/flux-2-pro"
    assert submit.headers["x-key"] == "emu-bfl-key" and "authorization" not in submit.headers
    assert submit.json == {
        "prompt": "a red fox",
        "width": 1344,
        "height": 768,
        "seed": 5,
        "safety_tolerance": 2,
    }
    assert [p.path for p in polls] == ["/bfl/v1/get_result", "/bfl/v1/get_result"]
    assert all(p.headers["x-key"] == "emu-bfl-key" for p in polls)
    assert polls[0].param("id") == result.envelope["task_id"]
    assert clock.sleeps == [0.5]  # Pending once, then Ready
    (download,) = emu.requests_for("files")
    assert "x-key" not in download.headers  # the sample URL is fetched without the key
    assert result.size == (1344, 768) and result.format == "JPEG" and result.seed == 5
    # the submit answer's credits are the cost (1.03 MP at the emulator's 3 credits per MP)
    assert result.cost == {"usd": 0.0309, "credits": 3.09, "estimated": False}


@pytest.mark.parametrize(("aspect", "size"), [("square", (1024, 1024)), ("portrait", (768, 1344))])
def test_aspect_sizes(emu: Any, aspect: str, size: tuple[int, int]) -> None:
    result = images.imagine("x", aspect_ratio=aspect)
    submit = emu.requests_for("bfl")[0]
    assert (submit.json["width"], submit.json["height"]) == size and result.size == size


def test_explicit_size_and_ultra_aspect(emu: Any) -> None:
    result = images.imagine("x", size="1024x512")
    assert result.size == (1024, 512)
    ultra = images.imagine("y", model="flux-pro-1.1-ultra", aspect_ratio="portrait")
    body = emu.requests_for("bfl")[-3].json
    assert body == {"prompt": "y", "aspect_ratio": "9:16"} and ultra.size == (1152, 2048)
    with pytest.raises(InvalidInputError, match="not size"):
        images.imagine("z", model="flux-pro-1.1-ultra", size="1024x1024")


def test_vendor_rejects_bad_sizes_with_422(emu: Any) -> None:
    with pytest.raises(InvalidInputError, match="width: Input should be a multiple of 32"):
        images.imagine("x", model="flux-pro-1.1", size="1000x768")


def test_reference_images_travel_as_base64(emu: Any, tmp_path: Any) -> None:
    ref = png_file(tmp_path)
    result = images.imagine("make it blue", reference_images=[ref, "https://cdn.example/a.png"])
    body = emu.requests_for("bfl")[0].json
    assert Image.open(io.BytesIO(base64.b64decode(body["input_image"]))).size == (32, 32)
    assert body["input_image_2"] == "https://cdn.example/a.png"
    assert result.envelope["modality"] == "image"
    with pytest.raises(InvalidInputError, match="at most 0 reference images"):
        images.imagine("x", model="flux-pro-1.1", reference_images=ref)


def test_moderated_task_is_content_policy(emu: Any) -> None:
    with pytest.raises(ContentPolicyError, match="Request Moderated"):
        images.imagine(f"a {emu.MODERATION_WORD} thing")
    assert emu.requests_for("files") == [] and not any(images_cache_dir().iterdir())


def test_never_ready_hits_the_deadline(emu: Any, clock: FakeClock) -> None:
    emu.bfl_polls_to_complete = None
    config.set("image_gen.timeout", 8)
    with pytest.raises(TimeoutError_, match="image_gen.timeout=8"):
        images.imagine("x")
    assert clock.now <= 8.0 + 1e-9 and max(clock.sleeps) == 2.0


def test_expired_sample_is_a_clear_error(emu: Any) -> None:
    emu.file_ttl_s = -1.0  # the sample is gone by the time it is fetched
    with pytest.raises(ProviderError, match="valid for 10 minutes"):
        images.imagine("x")


@pytest.mark.parametrize(
    ("setup", "exc", "match"),
    [
        (lambda emu: config.set_key("BFL_API_KEY", emu.BAD_KEY), ProviderAuthError, "BFL_API_KEY"),
        (lambda emu: emu.fail("bfl", "429", times=None, retry_after=0), RateLimitedError, "concurrent"),
        (lambda emu: emu.fail("bfl", "402"), ProviderError, "credits"),
        (lambda emu: emu.fail("bfl", "malformed_json"), ParseError, "invalid JSON"),
        (lambda emu: emu.fail("/bfl/v1/flux-2-pro", "500"), ProviderError, "500"),
    ],
    ids=["bad-key", "429", "402", "malformed-json", "500-not-resent"],
)
def test_errors(emu: Any, setup: Any, exc: type, match: str) -> None:
    setup(emu)
    with pytest.raises(exc, match=match):
        images.imagine("a cat")
    assert len([r for r in emu.requests_for("bfl") if r.method == "POST"]) <= 3
    assert not any(images_cache_dir().iterdir())


class Scripted:
    """A BFL API answering ``statuses`` in turn, with a configurable polling_url."""

    def __init__(self, polling_url: str, statuses: list[dict[str, Any]]) -> None:
        self.polling_url, self.statuses = polling_url, statuses
        self.seen: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.seen.append(request)
        if request.method == "POST":
            return httpx.Response(200, json={"id": "t1", "polling_url": self.polling_url, "cost": 4.0})
        return httpx.Response(200, json=self.statuses.pop(0))


@pytest.fixture
def scripted(clock: FakeClock) -> Iterator[Any]:
    from hermes_nb.net.http_client import set_transport

    config.set_key("BFL_API_KEY", "bfl-test-key")
    config.set("image_gen.provider", "bfl")
    holder: dict[str, Scripted] = {}

    def install(polling_url: str, statuses: list[dict[str, Any]]) -> Scripted:
        holder["api"] = Scripted(polling_url, statuses)
        set_transport(httpx.MockTransport(holder["api"]))
        return holder["api"]

    yield install
    set_transport(None)


@pytest.mark.parametrize(
    ("polling_url", "followed"),
    [
        ("https://api.us1.bfl.ai/v1/get_result?id=t1", True),
        ("https://api.eu.bfl.ai/v1/get_result?id=t1", True),
        ("https://evil.test/v1/get_result?id=t1", False),
        ("http://api.us1.bfl.ai/v1/get_result?id=t1", False),
        ("https://bfl.ai.evil.test/v1/get_result?id=t1", False),
    ],
)
def test_the_key_goes_only_to_bfl_hosts(scripted: Any, polling_url: str, followed: bool) -> None:
    api = scripted(polling_url, [{"status": "Content Moderated"}])
    with pytest.raises(ContentPolicyError, match="Content Moderated"):
        images.imagine("x")
    poll = api.seen[1]
    expected = httpx.URL(polling_url).host if followed else "api.bfl.ai"
    assert poll.url.host == expected and poll.url.params["id"] == "t1"


@pytest.mark.parametrize(
    ("status", "exc", "match"),
    [
        ({"status": "Error", "details": {"error": "GPU fault"}}, ProviderError, "GPU fault"),
        ({"status": "Task not found"}, ProviderError, "no longer knows"),
        ({"status": "Ready", "result": {}}, ProviderError, "no result.sample"),
    ],
)
def test_terminal_failures(scripted: Any, status: dict[str, Any], exc: type, match: str) -> None:
    scripted("https://api.bfl.ai/v1/get_result?id=t1", [{"status": "Generating"}, status])
    with pytest.raises(exc, match=match):
        images.imagine("x")


def test_metadata_and_missing_key() -> None:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("bfl")
    assert provider is not None and provider.default_model() == "flux-2-pro"
    assert {"flux-pro-1.1", "flux-pro-1.1-ultra"} <= {m["id"] for m in provider.list_models()}
    assert provider.capabilities()["max_reference_images"] == 8
    config.set("image_gen.provider", "bfl")
    with pytest.raises(ProviderNotConfiguredError, match="BFL_API_KEY"):
        images.imagine("x")


def test_emulator_wire_format(emu: Any) -> None:
    """The emulated API itself: the submit answer, unknown tasks, polling URL on the base."""
    base, headers = emu.base_url("bfl"), {"x-key": "emu-bfl-key"}
    ticket = httpx.post(
        f"{base}/v1/flux-pro-1.1", json={"prompt": "x", "width": 1024, "height": 768}, headers=headers
    ).json()
    assert set(ticket) == {"id", "polling_url", "cost", "input_mp", "output_mp"}
    assert ticket["polling_url"] == f"{base}/v1/get_result?id={ticket['id']}"
    first = httpx.get(ticket["polling_url"], headers=headers).json()
    assert first["status"] == "Pending" and first["result"] is None
    unknown = httpx.get(f"{base}/v1/get_result", params={"id": "nope"}, headers=headers).json()
    assert unknown["status"] == "Task not found"
    assert httpx.post(f"{base}/v1/flux-9", json={"prompt": "x"}, headers=headers).status_code == 404
    assert httpx.post(f"{base}/v1/flux-2-pro", json={"prompt": "x"}).status_code == 401
