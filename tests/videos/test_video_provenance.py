"""Provenance in the video file itself: remuxed with PyAV (stream copy), never partial, optional."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fixtures.clocks import FakeClock, fake_job_clock

import hermes_nb as hn
from hermes_nb import config, extras
from hermes_nb.store import video_files
from hermes_nb.store.video_files import read_tag, write_provenance
from hermes_nb.testing._video import clip

av = pytest.importorskip("av")

PROVENANCE = {"prompt": "waves at dusk, " + "slowly " * 40, "model": "clip-1", "seed": "7",
              "provider": "clips", "cost_usd": "0.4000 (estimated)"}  # fmt: skip


def _frames(path: Path) -> tuple[int, int, int, int]:
    with av.open(str(path)) as container:
        stream = container.streams.video[0]
        frames = sum(1 for _ in container.decode(video=0))
        return frames, int(container.duration or 0), int(stream.width), int(stream.height)


def _siblings(path: Path) -> list[str]:
    return sorted(p.name for p in path.parent.iterdir())


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """An empty folder of its own (``tmp_path`` also holds the test's ``hermes_home``)."""
    path = tmp_path / "videos"
    path.mkdir()
    return path


def test_mp4_carries_the_provenance_and_still_decodes(folder: Path) -> None:
    path = folder / "clip.mp4"
    path.write_bytes(clip("key"))
    before = _frames(path)
    assert write_provenance(path, PROVENANCE) is True
    with av.open(str(path)) as container:
        assert json.loads(container.metadata["comment"]) == PROVENANCE
        title = container.metadata["title"]
    assert title.startswith("waves at dusk, slowly") and len(title) <= video_files.TITLE_CHARS
    assert title.endswith("…")  # the long prompt is cut in the title, whole in the comment
    assert _frames(path) == before == (8, 1_000_000, 64, 36)
    assert _siblings(path) == ["clip.mp4"]  # no temporary file left beside it


def test_webm_carries_the_provenance(folder: Path) -> None:
    import numpy as np

    path = folder / "clip.webm"
    with av.open(str(path), "w") as out:
        stream = out.add_stream("libvpx-vp9", rate=8)
        stream.width, stream.height, stream.pix_fmt = 64, 36, "yuv420p"
        for shade in range(0, 200, 50):
            frame = av.VideoFrame.from_ndarray(np.full((36, 64, 3), shade, dtype="uint8"), format="rgb24")
            for packet in stream.encode(frame):
                out.mux(packet)
        for packet in stream.encode():
            out.mux(packet)
    assert path.read_bytes()[:4] == b"\x1a\x45\xdf\xa3"
    assert write_provenance(path, {"prompt": "grey ramp", "model": "m"}) is True
    with av.open(str(path)) as container:  # Matroska reads tags back upper-cased
        assert json.loads(read_tag(container.metadata, "comment") or "") == {
            "prompt": "grey ramp",
            "model": "m",
        }
    assert _frames(path)[0] == 4 and _siblings(path) == ["clip.webm"]


def test_without_the_video_extra_the_file_is_untouched(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(module: str, feature: str, *args: Any, **kwargs: Any) -> Any:
        raise extras.FeatureNotInstalledError(f"{feature} needs {module}")

    monkeypatch.setattr(extras, "require", missing)
    path = folder / "clip.mp4"
    data = clip("untouched")
    path.write_bytes(data)
    assert write_provenance(path, PROVENANCE) is False
    assert path.read_bytes() == data and _siblings(path) == ["clip.mp4"]


def test_a_failed_remux_leaves_the_original_and_no_partial(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = folder / "clip.mp4"
    data = clip("broken")
    path.write_bytes(data)

    def explode(*args: Any) -> None:
        Path(args[2]).write_bytes(b"half a file")  # the remux wrote something, then failed
        raise RuntimeError("muxer failed")

    monkeypatch.setattr(video_files, "_remux", explode)
    assert write_provenance(path, PROVENANCE) is False
    assert path.read_bytes() == data and _siblings(path) == ["clip.mp4"]


def test_not_a_video_too_large_or_missing_is_refused_untouched(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    text = folder / "notes.mp4"
    text.write_bytes(b"not a video at all")
    assert write_provenance(text, PROVENANCE) is False and text.read_bytes() == b"not a video at all"
    big = folder / "big.mp4"
    big.write_bytes(clip("big"))
    monkeypatch.setattr(video_files, "MAX_REMUX_BYTES", 100)
    assert write_provenance(big, PROVENANCE) is False and big.read_bytes() == clip("big")
    assert write_provenance(folder / "absent.mp4", PROVENANCE) is False


@pytest.fixture
def emu(monkeypatch: pytest.MonkeyPatch) -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    clock: FakeClock = fake_job_clock(monkeypatch)
    assert clock is not None
    with Emulator(seed=0) as emulator, use_emulator(emulator):
        config.set("video_gen.provider", "openai")
        yield emulator


def test_a_generated_video_carries_its_provenance_and_the_store_hashes_the_final_file(emu: Any) -> None:
    result = hn.video("waves at dusk", duration=8)
    with av.open(str(result.path)) as container:
        carried = json.loads(container.metadata["comment"])
        assert container.metadata["title"] == "waves at dusk"
    assert carried["prompt"] == "waves at dusk" and carried["model"] == "sora-2"
    assert carried["provider"] == "openai" and carried["cost_usd"] == "0.8000 (estimated)"
    assert carried["generator"].startswith("hermes_nb ")
    assert result.sha256 == video_files.sha256_file(result.path)  # hashed after the metadata was written
    assert _frames(result.path)[0] == 8
    again = hn.video("waves at dusk", duration=8)
    assert again.cached and again.sha256 == result.sha256 and again.path == result.path
