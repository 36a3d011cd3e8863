"""The bundled OpenAI video provider against the emulated Videos API: shape, polling, errors, deadline."""

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
        config.set("video_gen.provider", "openai")
        yield emulator


def _calls(emu: Any) -> list[tuple[str, str]]:
    return [(r.method, r.path.split("/v1", 1)[1]) for r in emu.requests_for("openai-video")]


def test_create_poll_download(emu: Any, clock: FakeClock) -> None:
    result = hn.video("waves at dusk", duration=8)
    calls = _calls(emu)
    video_id = result.envelope["job_id"]
    assert calls == [("POST", "/videos"), ("GET", f"/videos/{video_id}"), ("GET", f"/videos/{video_id}"),
                     ("GET", f"/videos/{video_id}/content")]  # fmt: skip
    create = emu.requests_for("openai-video")[0]
    assert create.json == {"model": "sora-2", "prompt": "waves at dusk", "size": "1280x720", "seconds": "8"}
    assert create.headers.get("authorization", create.headers.get("Authorization", "")).startswith("Bearer ")
    assert result.path.parent == videos_cache_dir().resolve() and result.path.read_bytes()[4:8] == b"ftyp"
    assert result.cost == {"usd": 0.8, "estimated": True} and result.model == "sora-2"
    assert clock.sleeps and all(s <= 10 for s in clock.sleeps)  # polled with backoff, never slept for real
    assert hn.video("waves at dusk", duration=8).cached and len(_calls(emu)) == 4  # a re-run sends nothing


def test_image_to_video_and_portrait(emu: Any, tmp_path: Path) -> None:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (32, 32), (10, 200, 10)).save(buf, format="PNG")
    frame = tmp_path / "frame.png"
    frame.write_bytes(buf.getvalue())
    hn.video("a plant grows", image=frame, aspect_ratio="9:16", model="sora-2-pro", resolution="1080p")
    body = emu.requests_for("openai-video")[0].json
    assert body["size"] == "1024x1792" and body["model"] == "sora-2-pro"
    assert body["input_reference"]["image_url"].startswith("data:image/png;base64,")


def test_refused_before_any_request(emu: Any) -> None:
    for kwargs, words in (({"duration": 5}, "4, 8, 12"), ({"aspect_ratio": "1:1"}, "16:9, 9:16"),
                          ({"negative_prompt": "blur"}, "negative"), ({"seed": 3}, "seed"),
                          ({"resolution": "1080p"}, "sora-2-pro")):  # fmt: skip
        with pytest.raises(errors.InvalidInputError, match=words):
            hn.video("waves", **kwargs)
    assert _calls(emu) == []
    config.set("video_gen.budget_usd", 0.5)
    with pytest.raises(errors.InvalidInputError, match="video_gen.budget_usd"):
        hn.video("waves", duration=12)  # $1.20
    assert _calls(emu) == []


def test_errors_keep_no_file(emu: Any) -> None:
    with pytest.raises(errors.ContentPolicyError, match="moderation"):
        hn.video(f"a {emu.MODERATION_WORD} scene")
    config.set_key("OPENAI_API_KEY", emu.BAD_KEY)
    with pytest.raises(errors.ProviderAuthError, match="OPENAI_API_KEY"):
        hn.video("waves")
    config.set_key("OPENAI_API_KEY", "emu-openai-key")
    emu.fail("/openai-video/v1/videos/", "empty", times=None)  # content answers 200 with no bytes
    with pytest.raises(errors.HermesError, match="no usable video|empty"):
        hn.video("waves once more")
    assert not any(videos_cache_dir().iterdir())  # nothing partial, nothing wrong kept


def test_deadline_cancels_the_job(emu: Any, clock: FakeClock) -> None:
    emu.openai_video_polls = None  # never completes
    config.set("video_gen.timeout", 30)
    with pytest.raises(errors.TimeoutError_, match="video_gen.timeout=30s .cancelled."):
        hn.video("an endless scene")
    assert _calls(emu)[-1][0] == "DELETE" and clock.now <= 30 + 1e-9
    assert not any(videos_cache_dir().iterdir())


def test_listing_names_the_models(emu: Any) -> None:
    row = next(r for r in hn.providers("video_gen") if r.name == "openai")
    assert row.models == ("sora-2", "sora-2-pro") and row.available and "duration=4|8|12" in row.options
