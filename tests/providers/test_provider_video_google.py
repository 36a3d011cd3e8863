"""The bundled Google Veo provider against emulated Gemini long-running operations."""

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
        config.set("video_gen.provider", "google")
        yield emulator


def test_operation_poll_and_keyed_download(emu: Any, tmp_path: Path) -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (9, 9, 9)).save(buf, format="PNG")
    frame = tmp_path / "f.png"
    frame.write_bytes(buf.getvalue())
    result = hn.video("a heron lands", image=frame, duration=6, negative_prompt="blur", audio=True, seed=2)
    calls = emu.requests_for("gemini-video")
    assert calls[0].path.endswith("/models/veo-3.1-generate-preview:predictLongRunning")
    body = calls[0].json
    assert body["instances"][0]["image"]["mimeType"] == "image/png" and body["instances"][0]["prompt"]
    assert body["parameters"] == {"aspectRatio": "16:9", "durationSeconds": 6, "resolution": "720p",
                                  "negativePrompt": "blur", "seed": 2}  # fmt: skip
    assert [c.method for c in calls] == ["POST", "GET", "GET", "GET"] and ":download" in calls[-1].path
    assert {k.lower(): v for k, v in calls[-1].headers.items()}[
        "x-goog-api-key"
    ]  # the download needs the key
    assert result.path.parent == videos_cache_dir().resolve() and result.cost == {
        "usd": 2.4,
        "estimated": True,
    }


def test_refusals_filters_and_deadline(emu: Any, clock: FakeClock) -> None:
    with pytest.raises(errors.InvalidInputError, match="4, 6, 8"):
        hn.video("a heron", duration=5)
    assert emu.requests_for("gemini-video") == []
    with pytest.raises(errors.ContentPolicyError, match="filtered"):
        hn.video(f"a {emu.MODERATION_WORD} heron")
    emu.veo_polls = None
    config.set("video_gen.timeout", 20)
    with pytest.raises(errors.TimeoutError_, match="cancelled"):
        hn.video("an endless heron")
    assert emu.requests_for("gemini-video")[-1].path.endswith(":cancel")
    assert not any(videos_cache_dir().iterdir())
