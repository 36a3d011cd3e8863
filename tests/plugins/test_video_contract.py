"""``agent.video_gen_provider``: Hermes's video contract served unmodified; registry, loader, file helpers."""

from __future__ import annotations

import base64
import textwrap
from pathlib import Path

import pytest

from hermes_nb import config, errors
from hermes_nb.plugins import loader
from hermes_nb.plugins.registry import video_providers
from hermes_nb.plugins.video_provider import (
    VideoGenProvider,
    check_video_request,
    save_b64_video,
    save_bytes_video,
)
from hermes_nb.store.video_files import sniff_video, videos_cache_dir
from hermes_nb.testing.fakes import video_clip

#: A plugin written exactly to Hermes's contract (name as a property, generate overridden, Hermes helpers).
HERMES_PLUGIN = """
from agent.video_gen_provider import (
    DEFAULT_ASPECT_RATIO, DEFAULT_RESOLUTION, VideoGenProvider, error_response, save_b64_video,
    success_response,
)

CLIP = {clip!r}


class StudioVideo(VideoGenProvider):
    @property
    def name(self):
        return "studio"

    def is_available(self):
        return True

    def list_models(self):
        return [{{"id": "studio-1", "display": "Studio 1", "price": "$0.10/s"}}]

    def capabilities(self):
        return {{"modalities": ["text", "image"], "aspect_ratios": ["16:9", "9:16"],
                "resolutions": ["720p"], "min_duration": 1, "max_duration": 8,
                "supports_audio": False, "supports_negative_prompt": True, "max_reference_images": 0}}

    def generate(self, prompt, *, model=None, image_url=None, reference_image_urls=None, duration=None,
                 aspect_ratio=DEFAULT_ASPECT_RATIO, resolution=DEFAULT_RESOLUTION, negative_prompt=None,
                 audio=None, seed=None, **kwargs):
        if not prompt:
            return error_response(error="prompt is required", error_type="invalid_request",
                                  provider=self.name)
        path = save_b64_video(CLIP, prefix=self.name)
        cost = {{"usd": 0.1 * (duration or 1), "estimated": True}}
        return success_response(video=str(path), model=model or "studio-1", prompt=prompt,
                                modality="image" if image_url else "text", aspect_ratio=aspect_ratio,
                                duration=duration or 0, provider=self.name,
                                extra={{"seed": seed, "cost": cost}})


def register(ctx):
    ctx.register_video_gen_provider(StudioVideo())
"""


def install_studio(home: Path) -> None:
    folder = home / "plugins" / "video_gen" / "studio"
    folder.mkdir(parents=True)
    clip = base64.b64encode(video_clip("studio")).decode("ascii")
    (folder / "__init__.py").write_text(textwrap.dedent(HERMES_PLUGIN).format(clip=clip))
    (folder / "plugin.yaml").write_text("name: studio\nversion: 1.0.0\nkind: backend\ndescription: test\n")
    (home / "config.yaml").write_text("plugins:\n  enabled: [video_gen/studio]\n")


@pytest.fixture
def studio(hermetic: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> VideoGenProvider:
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "empty"))
    install_studio(hermetic)
    provider = video_providers.get("studio")
    assert provider is not None
    return provider


def test_a_hermes_video_plugin_loads_from_hermes_home_and_is_used(studio: VideoGenProvider) -> None:
    import agent.video_gen_provider as served

    assert served.VideoGenProvider is VideoGenProvider
    record = loader.get_plugin_manager().find("video_gen/studio")
    assert record is not None and record.loaded
    assert record.registered.providers == ["video_gen:studio"] and record.registered.unused == []
    envelope = studio.generate("waves", duration=3, colour="blue")  # an unknown key is ignored
    assert envelope["success"] and envelope["duration"] == 3 and envelope["modality"] == "text"
    assert Path(envelope["video"]).read_bytes()[4:8] == b"ftyp"


def test_the_registry_and_hermes_registry_module(studio: VideoGenProvider) -> None:
    from agent import video_gen_registry as reg

    assert reg.get_provider("studio") is studio
    assert reg.get_active_provider() is studio
    config.set("video_gen.provider", "missing")
    assert reg.get_active_provider() is None
    with pytest.raises(TypeError):
        video_providers.register(object())  # type: ignore[arg-type]


class Templated(VideoGenProvider):
    name = "templated"
    modalities = ("text",)
    durations = (4, 8)
    max_duration = 8

    def __init__(self) -> None:
        self.seen: list[object] = []

    def _generate(self, request):  # type: ignore[no-untyped-def]
        self.seen.append(request)
        return self.answer(request, save_bytes_video(video_clip("t"), prefix=self.name))


def test_the_template_checks_capabilities_before_the_provider_runs() -> None:
    provider = Templated()
    bad = provider.generate("x", image_url="https://example.test/a.png")
    assert not bad["success"] and bad["error_type"] == "invalid_request" and "text-to-video" in bad["error"]
    assert not provider.generate("x", duration=5)["success"]
    assert not provider.generate("x", negative_prompt="blur")["success"]
    assert not provider.generate("   ")["success"]
    assert provider.seen == []
    good = provider.generate("waves", duration=8, future_option=1)
    assert good["success"] and good["duration"] == 8 and good["aspect_ratio"] == "16:9"
    assert provider.seen[0].options == {"future_option": 1}


def test_capabilities_default_to_hermes_keys() -> None:
    caps = Templated().capabilities()
    assert caps["modalities"] == ["text"] and caps["durations"] == [4, 8]
    for key in (
        "aspect_ratios",
        "resolutions",
        "max_duration",
        "min_duration",
        "supports_audio",
        "supports_negative_prompt",
        "max_reference_images",
        "supports_first_frame",
        "supports_last_frame",
    ):
        assert key in caps
    with pytest.raises(errors.InvalidInputError, match="choose one of 16:9"):
        check_video_request("p", {"aspect_ratios": ["16:9"]}, aspect_ratio="1:1")
    with pytest.raises(errors.InvalidInputError, match="audio"):
        check_video_request("p", {}, audio=True)


def test_sniffing_mp4_webm_and_refusing_other_bytes() -> None:
    assert sniff_video(video_clip()).extension == "mp4"
    assert sniff_video(b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm").mime_type == "video/webm"
    assert sniff_video(b"\x1a\x45\xdf\xa3\x9f\x42\x82\x88matroska").extension == "mkv"
    with pytest.raises(errors.ParseError, match="not a video"):
        sniff_video(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16)


def test_save_helpers_never_leave_a_partial_or_wrong_file() -> None:
    path = save_b64_video(base64.b64encode(video_clip("a")).decode(), prefix="../../escape")
    assert path.parent == videos_cache_dir().resolve() and path.suffix == ".mp4"
    with pytest.raises(errors.ParseError):
        save_bytes_video(b"<html>not a video</html>")
    with pytest.raises(errors.ParseError):
        save_bytes_video(b"")
    assert sorted(p.name for p in videos_cache_dir().iterdir()) == [
        path.name
    ]  # nothing partial, nothing else


def test_the_hermes_plugin_works_from_hn_video_and_the_magic(studio: VideoGenProvider) -> None:
    import hermes_nb as hn

    first = hn.video("waves", backend="studio", duration=3)
    assert first.provider == "studio" and first.cost == {"usd": 0.30000000000000004, "estimated": True}
    assert hn.video("waves", backend="studio", duration=3).cached
    from IPython.core.interactiveshell import InteractiveShell

    shell = InteractiveShell.instance()
    shell.extension_manager.load_extension("hermes_nb")
    try:
        config.set("video_gen.provider", "studio")
        assert shell.run_line_magic("video", "-d 3 waves").cached
        assert hn.providers("video_gen").names() == ["studio"]
    finally:
        shell.extension_manager.unload_extension("hermes_nb")
