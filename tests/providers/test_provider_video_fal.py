"""The bundled fal video provider against the emulated queue: families, routing, polling, cancel."""

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
        config.set("video_gen.provider", "fal")
        yield emulator


def _paths(emu: Any) -> list[tuple[str, str]]:
    return [(r.method, r.path.split("/fal-video", 1)[1]) for r in emu.requests_for("fal-video")]


def test_text_family_submit_poll_result(emu: Any) -> None:
    result = hn.video("a fox runs", duration=6, resolution="720p", seed=9, negative_prompt="blur")
    calls = _paths(emu)
    assert calls[0] == ("POST", "/fal-ai/pixverse/v6/text-to-video")
    assert [m for m, _ in calls] == ["POST", "GET", "GET", "GET"] and calls[1][1].endswith("/status")
    assert "/fal-ai/pixverse/requests/" in calls[1][1]  # status lives under owner/app, no subpath
    body = emu.requests_for("fal-video")[0].json
    assert body == {"prompt": "a fox runs", "resolution": "720p", "duration": "6", "negative_prompt": "blur",
                    "seed": 9}  # fmt: skip
    sent = {k.lower(): v for k, v in emu.requests_for("fal-video")[0].headers.items()}
    assert sent["authorization"].startswith("Key ")
    assert result.model == "pixverse-v6" and result.cost == {"usd": 0.3, "estimated": True}
    assert result.path.parent == videos_cache_dir().resolve()


def test_image_family_routes_and_veo_suffix(emu: Any, tmp_path: Path) -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (0, 0, 200)).save(buf, format="PNG")
    frame = tmp_path / "f.png"
    frame.write_bytes(buf.getvalue())
    hn.video("the sea", image=frame, model="kling-v3", duration=5)
    submit = emu.requests_for("fal-video")[0]
    assert submit.path.endswith("/fal-ai/kling-video/v3/standard/image-to-video")
    assert submit.json["start_image_url"].startswith("data:image/png") and "aspect_ratio" not in submit.json
    config.set("video_gen.fal.model", "veo3.1")
    hn.video("a storm", duration=8, aspect_ratio="9:16")
    veo = [r for r in emu.requests_for("fal-video") if r.method == "POST"][-1]
    assert (
        veo.path.endswith("/fal-ai/veo3.1")
        and veo.json["duration"] == "8s"
        and veo.json["aspect_ratio"] == "9:16"
    )


def test_family_options_refused_before_any_request(emu: Any) -> None:
    config.set("video_gen.fal.model", "veo3.1")
    with pytest.raises(errors.InvalidInputError, match="4, 6, 8"):
        hn.video("a storm", duration=5)  # the configured family, through capabilities()
    with pytest.raises(errors.InvalidInputError, match="kling-v3 does not take a seed"):
        hn.video("a storm", model="kling-v3", seed=3)  # an explicit family, checked by the provider
    with pytest.raises(errors.InvalidInputError, match="no video family"):
        hn.video("a storm", model="nope/model")
    assert emu.requests_for("fal-video") == []


def test_deadline_cancels_and_keeps_nothing(emu: Any, clock: FakeClock) -> None:
    emu.fal_video_polls = None
    config.set("video_gen.timeout", 12)
    with pytest.raises(errors.TimeoutError_, match="cancelled"):
        hn.video("a never ending fox")
    assert _paths(emu)[-1][0] == "PUT" and _paths(emu)[-1][1].endswith("/cancel")
    config.set_key("FAL_KEY", emu.BAD_KEY)
    with pytest.raises(errors.ProviderAuthError, match="FAL_KEY"):
        hn.video("a fox")
    assert not any(videos_cache_dir().iterdir())
