"""The bundled xAI video provider against the emulated Grok Imagine video API."""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.clocks import FakeClock, fake_job_clock

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.store.video_files import videos_cache_dir


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_job_clock(monkeypatch)


@pytest.fixture
def emu(clock: FakeClock) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator):
        config.set("video_gen.provider", "xai")
        yield emulator


def _calls(emu: Any) -> list[tuple[str, str]]:
    return [(r.method, r.path.split("/v1", 1)[1]) for r in emu.requests_for("xai-video")]


def test_submit_poll_download(emu: Any, clock: FakeClock) -> None:
    result = hn.video("a red kite over the dunes")
    request_id = result.envelope["request_id"]
    assert _calls(emu) == [("POST", "/videos/generations"), ("GET", f"/videos/{request_id}"),
                           ("GET", f"/videos/{request_id}")]  # fmt: skip
    submitted = emu.requests_for("xai-video")[0]
    assert submitted.json == {"model": "grok-imagine-video", "prompt": "a red kite over the dunes",
                              "duration": 8, "aspect_ratio": "16:9", "resolution": "720p"}  # fmt: skip
    assert submitted.headers.get("x-idempotency-key")
    assert result.path.parent == videos_cache_dir().resolve() and result.path.read_bytes()[4:8] == b"ftyp"
    assert result.cost == {"usd": 0.4, "estimated": False} and result.duration == 8  # from usage ticks
    assert hn.video("a red kite over the dunes").cached and len(_calls(emu)) == 3


def test_image_to_video_switches_to_the_image_model(emu: Any, tmp_path: Path) -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (200, 10, 10)).save(buf, format="PNG")
    frame = tmp_path / "frame.png"
    frame.write_bytes(buf.getvalue())
    result = hn.video("the kite takes off", image=frame, duration=5, aspect_ratio="1:1", resolution="480p")
    body = emu.requests_for("xai-video")[0].json
    assert body["model"] == "grok-imagine-video-1.5" and body["image"]["url"].startswith("data:image/png")
    assert (body["duration"], body["aspect_ratio"], body["resolution"]) == (5, "1:1", "480p")
    assert result.model == "grok-imagine-video-1.5" and result.modality == "image"


def test_refused_before_any_request(emu: Any) -> None:
    for kwargs, words in (({"duration": 20}, "1 to 15"), ({"resolution": "1080p"}, "720p, 480p"),
                          ({"audio": True}, "audio"), ({"seed": 1}, "seed")):  # fmt: skip
        with pytest.raises(errors.InvalidInputError, match=words):
            hn.video("a kite", **kwargs)
    assert _calls(emu) == []


def test_failures_and_keys_keep_no_file(emu: Any) -> None:
    with pytest.raises(errors.ProviderError, match="ended failed: The prompt was rejected"):
        hn.video(f"a {emu.MODERATION_WORD} kite")
    config.set_key("XAI_API_KEY", emu.BAD_KEY)
    with pytest.raises(errors.ProviderAuthError, match="XAI_API_KEY"):
        hn.video("a kite")
    config.set_key("XAI_API_KEY", "emu-xai-key")
    emu.fail("xai-video", "empty", times=None)  # the finished video's file is empty
    with pytest.raises(errors.ProviderError, match="not a usable video|empty"):
        hn.video("an empty kite")
    assert not any(videos_cache_dir().iterdir())


def test_deadline_ends_the_wait(emu: Any, clock: FakeClock) -> None:
    emu.xai_video_polls = None
    config.set("video_gen.timeout", 20)
    with pytest.raises(errors.TimeoutError_, match="video_gen.timeout=20s"):
        hn.video("an endless kite")
    assert clock.now <= 20 + 1e-9 and {m for m, _ in _calls(emu)} == {"POST", "GET"}
    assert not any(videos_cache_dir().iterdir())
