"""The bundled Replicate video provider against emulated predictions: inputs, polling, cancel."""

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
        config.set("video_gen.provider", "replicate")
        yield emulator


def test_prediction_inputs_poll_and_output(emu: Any) -> None:
    result = hn.video("a paper boat", duration=5, model="kwaivgi/kling-v2.1", aspect_ratio="9:16")
    calls = emu.requests_for("replicate-video")
    assert calls[0].method == "POST" and calls[0].path.endswith("/models/kwaivgi/kling-v2.1/predictions")
    assert calls[0].json == {"input": {"prompt": "a paper boat", "duration": 5, "aspect_ratio": "9:16"}}
    assert [c.method for c in calls] == ["POST", "GET", "GET"]
    assert result.path.parent == videos_cache_dir().resolve() and result.cost == {
        "usd": 0.25,
        "estimated": True,
    }


def test_model_inputs_refused_before_any_request(emu: Any) -> None:
    with pytest.raises(errors.InvalidInputError, match="takes no seed"):
        hn.video("a boat", seed=3)  # the default minimax/video-01 takes none
    with pytest.raises(errors.InvalidInputError, match="5, 10 s videos"):
        hn.video("a boat", model="kwaivgi/kling-v2.1", duration=7)
    with pytest.raises(errors.InvalidInputError, match="owner/name"):
        hn.video("a boat", model="not a model")
    assert emu.requests_for("replicate-video") == []


def test_deadline_cancels_the_prediction(emu: Any, clock: FakeClock) -> None:
    emu.replicate_video_polls = None
    config.set("video_gen.timeout", 10)
    with pytest.raises(errors.TimeoutError_, match="cancelled"):
        hn.video("an endless boat")
    last = emu.requests_for("replicate-video")[-1]
    assert last.method == "POST" and last.path.endswith("/cancel") and not any(videos_cache_dir().iterdir())
