"""fal queue provider: submit → poll (shortened status path, backoff, deadline) → result (mock transport)."""

from __future__ import annotations

import base64
import io
import json
import sys
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
    ProviderAuthError,
    ProviderError,
    TimeoutError_,
)
from hermes_nb.net.http_client import set_transport
from hermes_nb.plugins.image_provider import images_cache_dir
from hermes_nb.plugins.registry import image_providers

BASE = "https://queue.fal.test"


def data_uri(size: tuple[int, int] = (1024, 576)) -> str:
    out = io.BytesIO()
    Image.new("RGB", size, (5, 5, 5)).save(out, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(out.getvalue()).decode()


class Queue:
    """A scripted fal queue: ``states`` are returned by successive status polls."""

    def __init__(self) -> None:
        self.requests: list[httpx.Request] = []
        self.states = ["IN_QUEUE", "IN_PROGRESS", "COMPLETED"]
        self.result: dict[str, Any] = {
            "images": [{"url": data_uri(), "width": 1024, "height": 576}],
            "seed": 42,
        }
        self.submit_status = 200
        self.submit_body: dict[str, Any] | None = None

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        path = request.url.path
        if request.method == "POST":
            app = "/".join(path.strip("/").split("/")[:2])
            return httpx.Response(
                self.submit_status,
                json=self.submit_body
                or {
                    "request_id": "req-1",
                    "status_url": f"{BASE}/{app}/requests/req-1/status",
                    "response_url": f"{BASE}/{app}/requests/req-1",
                },
            )
        if path.endswith("/status"):
            state = self.states.pop(0) if len(self.states) > 1 else self.states[0]
            return httpx.Response(200, json={"status": state, "queue_position": 0})
        return httpx.Response(200, json=self.result, headers={"x-fal-billable-units": "1"})


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_provider_clock(monkeypatch, "fal")


@pytest.fixture
def queue(clock: FakeClock) -> Iterator[Queue]:
    config.set("image_gen.provider", "fal")
    config.set_key("FAL_KEY", "fal-test-key-0123456789")
    config.set("image_gen.fal.base_url", BASE)
    handler = Queue()
    set_transport(httpx.MockTransport(handler))
    yield handler
    set_transport(None)


def test_submit_poll_result(queue: Queue, clock: FakeClock) -> None:
    result = images.imagine(
        "a fox",
        aspect_ratio="landscape",
        model="fal-ai/flux/schnell",
        seed=42,
        num_inference_steps=4,
        not_supported="dropped",
    )
    submit, *polls, fetch = queue.requests
    assert submit.method == "POST" and str(submit.url) == f"{BASE}/fal-ai/flux/schnell"
    assert submit.headers["authorization"] == "Key fal-test-key-0123456789"
    assert json.loads(submit.content) == {
        "prompt": "a fox",
        "image_size": "landscape_16_9",
        "num_images": 1,
        "seed": 42,
        "num_inference_steps": 4,
    }
    # status and result live under the app without the model's subpath
    assert all(p.url.path == "/fal-ai/flux/requests/req-1/status" for p in polls) and len(polls) == 3
    assert fetch.url.path == "/fal-ai/flux/requests/req-1"
    assert clock.sleeps == [0.25, 0.375]  # backoff between polls
    assert result.seed == 42 and result.size == (1024, 576)
    assert result.cost == {"usd": 0.003, "estimated": True}


def test_default_model_and_image_sizes(queue: Queue) -> None:
    images.imagine("x", aspect_ratio="portrait")
    submit = queue.requests[0]
    assert submit.url.path == "/fal-ai/flux-2/klein/9b"
    assert json.loads(submit.content)["image_size"] == "portrait_16_9"
    assert queue.requests[1].url.path == "/fal-ai/flux-2/requests/req-1/status"


def test_foreign_status_urls_are_not_followed(queue: Queue) -> None:
    queue.submit_body = {
        "request_id": "req-9",
        "status_url": "https://evil.test/steal",
        "response_url": "https://evil.test/x",
    }
    images.imagine("x", model="fal-ai/flux/dev")
    assert all(r.url.host == "queue.fal.test" for r in queue.requests)
    assert queue.requests[1].url.path == "/fal-ai/flux/requests/req-9/status"


def test_never_finishing_job_hits_the_deadline(queue: Queue, clock: FakeClock) -> None:
    queue.states = ["IN_PROGRESS"]
    config.set("image_gen.timeout", 10)
    with pytest.raises(TimeoutError_, match="image_gen.timeout=10"):
        images.imagine("x")
    assert clock.now <= 10.0 + 1e-9
    assert max(clock.sleeps) == 2.0  # the interval backs off to its cap
    assert not any(images_cache_dir().iterdir())


def test_failed_job_and_nsfw(queue: Queue) -> None:
    queue.result = {"images": [{"url": data_uri()}], "has_nsfw_concepts": [True]}
    with pytest.raises(ContentPolicyError, match="safety checker"):
        images.imagine("x")
    queue.result = {"images": []}
    queue.states = ["COMPLETED"]
    with pytest.raises(ProviderError, match="no image"):
        images.imagine("x")
    assert not any(images_cache_dir().iterdir())


def test_auth_and_validation_errors(queue: Queue) -> None:
    queue.submit_status, queue.submit_body = 401, {"detail": "Unauthorized"}
    with pytest.raises(ProviderAuthError, match="FAL_KEY"):
        images.imagine("x")
    queue.submit_status = 422
    queue.submit_body = {
        "detail": [{"loc": ["body", "image_size"], "msg": "bad size", "type": "value_error"}]
    }
    with pytest.raises(InvalidInputError, match="image_size: bad size"):
        images.imagine("x")


def test_edits_need_an_edit_endpoint(queue: Queue, tmp_path: Any) -> None:
    ref = tmp_path / "r.png"
    Image.new("RGB", (16, 16)).save(ref)
    with pytest.raises(InvalidInputError, match="takes no reference images"):
        images.imagine("x", model="fal-ai/flux/schnell", reference_images=str(ref))
    images.imagine("x", reference_images=[str(ref), "https://cdn.example/ref.png"])
    (post,) = [r for r in queue.requests if r.method == "POST"]
    submit = json.loads(post.content)
    assert post.url.path == "/fal-ai/flux-2/klein/9b/edit"
    assert submit["image_urls"][0].startswith("data:image/png;base64,")
    assert submit["image_urls"][1] == "https://cdn.example/ref.png"


def test_metadata() -> None:
    from hermes_nb.plugins.loader import load_plugins

    load_plugins()
    provider = image_providers.get("fal")
    assert provider is not None and provider.default_model() == "fal-ai/flux-2/klein/9b"
    ids = [m["id"] for m in provider.list_models()]
    assert {"fal-ai/flux/schnell", "fal-ai/flux/dev", "fal-ai/flux-pro/v1.1"} <= set(ids)
    assert sys.modules[type(provider).__module__].IMAGE_SIZES["square"] == "square_hd"


# ----------------------------------------------------------------------------- against the emulator


@pytest.fixture
def emu(clock: FakeClock) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator):
        config.set("image_gen.provider", "fal")
        yield emulator


def test_emulator_queue_and_download(emu: Any) -> None:
    result = images.imagine("a fox", aspect_ratio="square", model="fal-ai/flux/schnell", seed=7)
    paths = [r.path for r in emu.requests_for("fal")]
    assert paths[0].endswith("/fal-ai/flux/schnell")
    assert any(p.endswith("/status") and "/fal-ai/flux/requests/" in p for p in paths)
    assert result.seed == 7 and result.size == (1024, 1024)
    assert result.path.parent == images_cache_dir().resolve()  # the CDN URL was materialised
    assert result.cost == {"usd": 0.006, "estimated": True}  # 2 billable MP x $0.003


def test_emulator_never_finishing_job(emu: Any, clock: FakeClock) -> None:
    emu.fal_polls_to_complete = None
    config.set("image_gen.timeout", 5)
    with pytest.raises(TimeoutError_):
        images.imagine("a fox")
    assert clock.now <= 5 + 1e-9 and not any(images_cache_dir().iterdir())


def test_emulator_nsfw_and_bad_key(emu: Any) -> None:
    with pytest.raises(ContentPolicyError):
        images.imagine(f"a {emu.MODERATION_WORD} fox")
    config.set_key("FAL_KEY", emu.BAD_KEY)
    with pytest.raises(ProviderAuthError):
        images.imagine("a fox")
    assert not any(images_cache_dir().iterdir())
