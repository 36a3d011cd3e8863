"""``hn.video``, ``video_many`` (streamed, async, live), ``%video``: refused before requests, paid once,
budgets, replay."""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from IPython.core.interactiveshell import InteractiveShell

import hermes_nb as hn
from hermes_nb import config, errors
from hermes_nb.notebook import rendering
from hermes_nb.notebook.magic_error import MagicError
from hermes_nb.plugins.image_provider import ImageGenProvider, save_bytes_image, success_response
from hermes_nb.plugins.registry import image_providers, video_providers
from hermes_nb.plugins.video_provider import VideoGenProvider, VideoRequest, save_bytes_video
from hermes_nb.store import replay, video_files
from hermes_nb.testing.fakes import video_clip


class Clips(VideoGenProvider):
    """A text- and image-to-video provider that records what it was asked (the template's ``_generate``)."""

    name = "clips"
    modalities = ("text", "image")
    aspect_ratios = ("16:9", "9:16")
    resolutions = ("720p",)
    durations = (4, 8)
    max_duration = 8
    default_duration = 4
    price_per_second = 0.1
    accepts_seed = True

    def __init__(self) -> None:
        self.requests: list[VideoRequest] = []

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": "clip-1", "price": "$0.10/s"}]

    def _generate(self, request: VideoRequest) -> dict[str, Any]:
        self.requests.append(request)
        path = save_bytes_video(
            video_clip(f"{request.prompt}|{request.seed}|{request.image_url}"), prefix=self.name
        )
        return self.answer(request, path, seed=request.seed)


def _png() -> bytes:
    from PIL import Image

    buf = io.BytesIO()
    Image.new("RGB", (64, 40), (30, 120, 200)).save(buf, format="PNG")
    return buf.getvalue()


class Pictures(ImageGenProvider):
    name = "pictures"

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        path = save_bytes_image(_png(), prefix="pictures")
        return success_response(image=str(path), model="p-1", prompt=prompt, aspect_ratio=aspect_ratio,
                                provider="pictures")  # fmt: skip


@pytest.fixture
def clips() -> Clips:
    provider = Clips()
    video_providers.register(provider)
    config.set("video_gen.provider", "clips")
    return provider


def test_text_to_video_is_kept_probed_and_paid_once(clips: Clips) -> None:
    first = hn.video("waves at dusk", duration=4, seed=7)
    assert isinstance(first, hn.VideoResult) and not first.cached
    assert first.path.is_file() and first.path.suffix == ".mp4" and first.sha256
    assert (first.width, first.height, first.length_s) == (64, 36, 1.0)  # read from the file (PyAV)
    assert first.cost == {"usd": 0.4, "estimated": True} and first.seed == 7 and first.model == "clip-1"
    again = hn.video("waves at dusk", duration=4, seed=7)
    assert again.cached and again.path == first.path and len(clips.requests) == 1
    hn.video("waves at dusk", duration=4, seed=7, new=True)
    assert len(clips.requests) == 2
    row = hn.store.get_store().find_videos(provider="clips")[0]
    assert row["prompt"] == "waves at dusk" and row["params"]["cost"]["usd"] == 0.4  # provenance in the store


def test_unsupported_options_are_refused_before_any_request(clips: Clips) -> None:
    for kwargs, words in (
        ({"duration": 5}, "duration=5"),
        ({"aspect_ratio": "1:1"}, "aspect_ratio='1:1'"),
        ({"resolution": "1080p"}, "resolution='1080p'"),
        ({"audio": True}, "audio"),
        ({"negative_prompt": "blur"}, "negative prompt"),
    ):
        with pytest.raises(errors.InvalidInputError, match=words):
            hn.video("waves", **kwargs)
    with pytest.raises(errors.InvalidInputError, match="duration must be"):
        hn.video("waves", duration="4")  # type: ignore[arg-type]
    assert clips.requests == []


def test_image_to_video_from_a_path_an_image_result_and_text_only_providers(
    clips: Clips, tmp_path: Path
) -> None:
    picture = tmp_path / "frame.png"
    picture.write_bytes(_png())
    result = hn.video("the sea moves", image=picture)
    assert result.modality == "image" and result.image and result.image.startswith("sha256:")
    assert clips.requests[-1].image_url is not None and clips.requests[-1].image_url.startswith(
        "data:image/png"
    )
    image_providers.register(Pictures())
    config.set("image_gen.provider", "pictures")
    made = hn.imagine("a blue square")
    animated = hn.video("the sea moves", image=made)  # its file (provenance embedded): another image
    assert not animated.cached and animated.image != result.image and len(clips.requests) == 2
    assert hn.video("the sea moves", image=made.path).cached  # the same file again: paid once
    clips.modalities = ("text",)  # now text-to-video only
    with pytest.raises(errors.InvalidInputError, match="text-to-video only"):
        hn.video("another", image=picture)
    with pytest.raises(errors.InvalidInputError, match="not a file"):
        hn.video("another", image=tmp_path / "missing.png")


def test_budget_refuses_a_call_and_a_batch_before_any_request(clips: Clips) -> None:
    config.set("video_gen.budget_usd", 0.5)
    with pytest.raises(errors.InvalidInputError, match="video_gen.budget_usd"):
        hn.video("too long", duration=8)  # 8 s x $0.10 = $0.80
    with pytest.raises(errors.InvalidInputError, match="video_many"):
        hn.video_many(["a", "b"], duration=4)  # 2 x $0.40
    with pytest.raises(errors.InvalidInputError, match="video_many"):
        hn.avideo_many(["a", "b"], duration=4)  # refused when called, before anything is awaited
    assert clips.requests == []
    hn.video("short", duration=4)  # $0.40 fits
    assert hn.video("short", duration=4).cached  # a stored video costs nothing
    with pytest.raises(errors.InvalidInputError, match="remains"):
        hn.video("one more", duration=4)
    assert len(clips.requests) == 1


def test_video_many_runs_through_the_batch_runner(clips: Clips) -> None:
    batch = hn.video_many(["one", "two", "one"], duration=4)
    assert [r.prompt for r in batch] == ["one", "two", "one"]
    assert len(clips.requests) in (2, 3)  # the repeated prompt may run beside its twin
    frame = hn.video_many(["one", "two"], duration=4, as_frame=True)
    assert list(frame["prompt"]) == ["one", "two"] and len(clips.requests) <= 3


def test_video_many_streams_and_its_async_twin_streams_and_awaits(clips: Clips) -> None:
    prompts = ["one", "two", "three"]
    pairs = list(hn.video_many(prompts, duration=4, stream=True, progress=False))
    assert sorted(i for i, _ in pairs) == [0, 1, 2]  # each item once, in completion order
    assert all(isinstance(r, hn.VideoResult) and r.prompt == prompts[i] for i, r in pairs)

    async def run() -> tuple[list[tuple[int, Any]], Any, Any]:
        streamed = [pair async for pair in hn.avideo_many(["four", "five"], duration=4, progress=False)]
        awaited = await hn.avideo_many(prompts, duration=4, progress=False)
        frame = await hn.avideo_many(["four"], duration=4, as_frame=True, progress=False)
        return streamed, awaited, frame

    streamed, awaited, frame = asyncio.run(run())
    assert sorted(i for i, _ in streamed) == [0, 1]
    assert [r.prompt for r in awaited] == prompts and all(r.cached for r in awaited)  # made by the stream
    assert list(frame.columns) == hn.batch.VIDEO_COLUMNS and list(frame["prompt"]) == ["four"]
    assert len(clips.requests) == 5


def test_video_many_shows_a_live_view_of_its_videos(clips: Clips, monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_nb.batch import live, videos

    built: list[tuple[Any, ...]] = []

    def recording(desc: str, *args: Any) -> Any:
        built.append((desc, *args))
        return live.view_for(desc, *args)

    monkeypatch.setattr(videos, "view_for", recording)
    hn.video_many(["one"], duration=4, progress=False)
    desc, progress, items, rows, columns, as_frame, provider = built[0]
    assert (desc, progress, items, provider) == ("video", False, ["one"], "clips")
    assert columns == hn.batch.VIDEO_COLUMNS
    assert rows is videos._rows and as_frame is False


def test_replay_from_a_cassette_needs_no_provider(
    clips: Clips, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "videos.hnb.jsonl"
    with replay.recording(cassette):
        made = hn.video("a recorded wave", duration=4)
    assert (tmp_path / "videos.hnb.files").is_dir()  # the video lies beside the cassette
    video_providers.clear()
    monkeypatch.setattr(video_providers, "loader", None)
    config.set("cache.replay_file", str(cassette))
    again = hn.video("a recorded wave", duration=4)
    assert again.sha256 == made.sha256 and again.path.read_bytes() == made.path.read_bytes()
    with pytest.raises(errors.CacheMissError):
        hn.video("never recorded", duration=4)


def test_the_display_links_the_file_and_embeds_only_a_small_poster(
    clips: Clips, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "notebooks").mkdir()
    monkeypatch.chdir(tmp_path / "notebooks")  # the notebook's folder; the video cache lies elsewhere
    result = hn.video("waves", duration=4)
    bundle = rendering.mimebundle(result)
    page, text = bundle["text/html"], bundle["text/plain"]
    assert "<video controls" in page and 'src="hermes_nb_files/' in page
    assert (Path.cwd() / "hermes_nb_files" / result.path.name).is_file()
    assert 'poster="data:image/jpeg;base64,' in page and len(page) < 20_000
    assert video_clip()[:64].hex() not in json.dumps(bundle).encode().hex()  # no video bytes inline
    assert (
        text
        == f"VideoResult(provider='clips', model='clip-1', 1s, 64x36, seed=None, sha256={result.sha256[:12]})"
    )
    assert set(bundle) == {"text/plain", "text/html"}


def test_without_the_video_extra_the_card_is_plain_never_an_error(
    clips: Clips, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(video_files, "_av", lambda: None)
    result = hn.video("no codec here", duration=4)
    assert (result.width, result.length_s) == (0, 0.0)
    page = rendering.mimebundle(result)["text/html"]
    assert "<video controls" in page and "poster=" not in page and "hermes_nb[video]" in page
    assert "4s, 720p" in rendering.plain_text(result)


def test_providers_listing(clips: Clips) -> None:
    table = hn.providers("video_gen")
    bundled = ["fal", "google", "openai", "openai_compatible", "replicate", "xai"]
    assert table.names() == sorted(["clips", *bundled])  # beside the bundled ones
    row = table[0]
    assert (
        row.capabilities == ("text-to-video", "image-to-video")
        and row.active
        and "duration=4|8" in row.options
    )


# --------------------------------------------------------------------------- %video


@pytest.fixture
def ip(clips: Clips) -> Iterator[InteractiveShell]:
    shell = InteractiveShell.instance()
    shell.history_manager.enabled = False
    shell.extension_manager.load_extension("hermes_nb")
    image_providers.register(Pictures())
    config.set("image_gen.provider", "pictures")
    yield shell
    shell.extension_manager.unload_extension("hermes_nb")
    shell.user_ns.pop("clip", None)


def test_video_magic_line_cell_and_from_last(ip: InteractiveShell, clips: Clips) -> None:
    line = ip.run_line_magic("video", "-d 4 --seed 3 waves at dusk")
    assert isinstance(line, hn.VideoResult) and clips.requests[-1].seed == 3
    cell = ip.run_cell_magic("video", "-d 8 -a 9:16 -o clip", "a tall\nwaterfall")
    assert ip.user_ns["clip"] is cell and clips.requests[-1].aspect_ratio == "9:16"
    with pytest.raises(MagicError, match="run %imagine first"):
        ip.run_line_magic("video", "--from last the sea")
    ip.run_line_magic("imagine", "a blue square")
    animated = ip.run_line_magic("video", "--from last the sea moves")
    assert animated.modality == "image" and clips.requests[-1].image_url.startswith("data:image/png")
    with pytest.raises(MagicError, match="INVALID_INPUT: .*duration=5"):
        ip.run_line_magic("video", "-d 5 waves")
    with pytest.raises(MagicError, match="needs a prompt"):
        ip.run_line_magic("video", "-d 4")
    listing = ip.run_line_magic("hermes", "providers video_gen")
    assert "clips" in listing.names()


def test_the_widget_gallery_shows_a_video_by_its_poster(clips: Clips) -> None:
    pytest.importorskip("anywidget")
    from hermes_nb.notebook import widgets

    result = hn.video("waves for the widget", duration=4)
    view = widgets.view_for(result)
    assert view is not None and view.kind == "gallery" and view.title == "1 video"
    item = view.items[0]
    assert item["src"].startswith("data:image/jpeg;base64,") and item["href"].endswith(".mp4")
