"""The config-only OpenAI-compatible video provider against an emulated DeepInfra-style server."""

from __future__ import annotations

from collections.abc import Iterator
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
        config.set("video_gen.provider", "openai_compatible")
        config.set("video_gen.openai_compatible.model", "Wan-AI/Wan2.1-T2V-14B")
        yield emulator


def test_configured_by_settings_alone(emu: Any) -> None:
    config.set("video_gen.openai_compatible.price_per_second", 0.02)
    result = hn.video("rain on a window", duration=5, resolution="480p", seed=4, negative_prompt="blur")
    create = emu.requests_for("openai-compatible-video")[0]
    assert create.json == {
        "model": "Wan-AI/Wan2.1-T2V-14B", "prompt": "rain on a window", "seconds": "5", "size": "480p",
        "negative_prompt": "blur", "aspect_ratio": "16:9", "seed": 4,
    }  # fmt: skip
    sent = {k.lower(): v for k, v in create.headers.items()}
    assert sent["authorization"] == f"Bearer {config.resolve_key('OPENAI_COMPATIBLE_API_KEY')}"
    assert result.path.parent == videos_cache_dir().resolve()  # data[].url downloaded at once
    assert result.cost == {"usd": 0.1, "estimated": True} and result.model == "Wan-AI/Wan2.1-T2V-14B"


def test_unset_server_is_not_available_and_says_how(emu: Any) -> None:
    config.set("video_gen.openai_compatible.base_url", "")
    with pytest.raises(errors.ProviderNotConfiguredError, match="openai_compatible"):
        hn.video("rain")
    assert emu.requests_for("openai-compatible-video") == []


def test_keyless_server_and_deadline_cancel(emu: Any, clock: FakeClock) -> None:
    config.set("video_gen.openai_compatible.env_var", "")
    emu.compat_video_polls = None
    config.set("video_gen.timeout", 15)
    with pytest.raises(errors.TimeoutError_, match="cancelled"):
        hn.video("endless rain")
    calls = emu.requests_for("openai-compatible-video")
    assert calls[-1].method == "DELETE" and not any(videos_cache_dir().iterdir())
    assert all("authorization" not in {k.lower() for k in c.headers} for c in calls)  # keyless: no header
