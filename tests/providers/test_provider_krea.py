"""Krea 2 against the emulator: submit and poll, creative controls, style references, errors, cancel."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from fixtures.clocks import FakeClock, fake_provider_clock

from hermes_nb import config, images
from hermes_nb.errors import (
    ContentPolicyError,
    InvalidInputError,
    ProviderAuthError,
    ProviderError,
    TimeoutError_,
)


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> FakeClock:
    return fake_provider_clock(monkeypatch, "krea")


@pytest.fixture
def emu(clock: FakeClock) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, ["krea"]):
        config.set("image_gen.provider", "krea")
        yield emulator


def test_submit_poll_download(emu: Any, clock: FakeClock) -> None:
    result = images.imagine("a neon alley", aspect_ratio="landscape", seed=7)
    submit, *polls = emu.requests_for("krea")
    assert submit.method == "POST" and submit.path == "/krea/generate/image/krea/krea-2/medium"
    assert submit.headers["authorization"] == "Bearer emu-krea-key"
    assert submit.json == {
        "prompt": "a neon alley",
        "aspect_ratio": "16:9",
        "resolution": "1K",
        "creativity": "medium",
        "seed": 7,
    }
    assert [p.method for p in polls] == ["GET", "GET"]
    assert polls[0].path == f"/krea/jobs/{result.envelope['job_id']}"
    assert clock.sleeps == [2.0, 2.6]  # Krea's 2 s start, backing off
    (download,) = emu.requests_for("files")
    assert "authorization" not in download.headers
    assert result.size == (1376, 768) and result.seed == 7
    assert result.cost == {"usd": 0.03, "estimated": True}


def test_creative_controls_and_style_references(emu: Any) -> None:
    result = images.imagine(
        "a portrait",
        aspect_ratio="portrait",
        model="krea-2-large",
        reference_images=["https://example.com/a.png"],
        creativity="raw",
        styles=["style-123"],
        image_style_references=[{"url": "https://example.com/b.png", "strength": 1.2}],
    )
    submit = emu.requests_for("krea")[0]
    assert submit.path.endswith("/krea-2/large")
    assert submit.json["creativity"] == "raw"
    assert submit.json["styles"] == [{"id": "style-123"}]
    assert submit.json["image_style_references"] == [
        {"url": "https://example.com/a.png", "strength": 0.6},
        {"url": "https://example.com/b.png", "strength": 1.2},
    ]
    assert result.cost == {"usd": 0.065, "estimated": True}
    assert result.size == (768, 1376)


def test_creativity_default_from_config_and_bad_values(emu: Any) -> None:
    config.set("image_gen.krea.creativity", "high")
    images.imagine("x", aspect_ratio="square")
    assert emu.requests_for("krea")[0].json["creativity"] == "high"
    emu.reset_log()
    with pytest.raises(InvalidInputError, match="creativity is one of"):
        images.imagine("y", creativity="wild", no_cache=True)
    with pytest.raises(InvalidInputError, match="one moodboard"):
        images.imagine("y", moodboards=["a", "b"], no_cache=True)
    with pytest.raises(InvalidInputError, match="style references as image URLs"):
        images.imagine("y", reference_images=["data:image/png;base64,AAAA"], no_cache=True)
    with pytest.raises(InvalidInputError, match="does not support upscale"):
        images.imagine("y", upscale=True, no_cache=True)
    assert emu.requests_for("krea") == []  # every refusal came before any request


def test_moderation_and_failures(emu: Any) -> None:
    with pytest.raises(ContentPolicyError, match="moderation"):
        images.imagine("something forbidden", no_cache=True)
    emu.fail("krea", "auth")
    with pytest.raises(ProviderAuthError, match="KREA_API_KEY"):
        images.imagine("x", no_cache=True)
    emu.fail("krea", "402")
    with pytest.raises(ProviderError, match="out of credits"):
        images.imagine("x", no_cache=True)


def test_deadline_cancels_the_job(emu: Any) -> None:
    emu.krea_polls_to_complete = None
    config.set("image_gen.timeout", 20)
    with pytest.raises(TimeoutError_, match="cancelled"):
        images.imagine("slow", no_cache=True)
    assert emu.requests_for("krea")[-1].method == "DELETE"


def test_listing_shows_creative_controls(emu: Any) -> None:
    from hermes_nb.catalog import providers

    row = {r.name: r for r in providers("image_gen")}["krea"]
    assert {"creativity", "styles", "moodboards", "image_style_references"} <= set(row.options)
    assert row.available and "krea-2-large" in row.models
