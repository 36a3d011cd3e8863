"""Image capabilities: safe defaults; hn.imagine refuses what is undeclared before any request."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hermes_nb import config, images
from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins.image_capabilities import ImageCapabilities, capabilities_of, check_options
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.loader import load_plugins
from hermes_nb.plugins.registry import image_providers
from hermes_nb.testing import Emulator, use_emulator


class Bare(ImageGenProvider):
    """A Hermes-style provider that declares nothing beyond Hermes's defaults."""

    @property
    def name(self) -> str:
        return "bare"

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": "m1"}, {"id": "m2"}]

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        raise AssertionError("never reached")


class Broken(Bare):
    def capabilities(self) -> dict[str, Any]:
        raise RuntimeError("boom")


def test_defaults_are_hermes_defaults_read_safely() -> None:
    caps = capabilities_of(Bare())
    assert caps == ImageCapabilities(models=("m1", "m2"))
    assert caps.text_to_image and not caps.edit and caps.seed and not caps.negative_prompt
    assert caps.aspect_ratios == ("landscape", "square", "portrait") and caps.sizes == ()
    assert capabilities_of(Broken()) == ImageCapabilities(models=("m1", "m2"))
    assert caps.labels() == ("text-to-image", "seed")


def test_check_options_messages_name_provider_and_option() -> None:
    caps = ImageCapabilities(max_reference_images=2, edit=True, sizes=("1024x1024",))
    check_options("p", caps, aspect_ratio="square", references=2, options={"size": "1024x1024"})
    with pytest.raises(InvalidInputError, match=r"'p' does not support negative_prompt") as info:
        check_options("p", caps, aspect_ratio="square", references=0, options={"negative_prompt": "blur"})
    assert info.value.provider == "p" and info.value.details["option"] == "negative_prompt"
    with pytest.raises(InvalidInputError, match=r"size='512x512'; it takes 1024x1024"):
        check_options("p", caps, aspect_ratio="square", references=0, options={"size": "512x512"})
    with pytest.raises(InvalidInputError, match="at most 2 reference images"):
        check_options("p", caps, aspect_ratio="square", references=3, options={})
    anysize = ImageCapabilities(sizes=("any",))
    check_options("p", anysize, aspect_ratio="square", references=0, options={"size": "640x480"})
    with pytest.raises(InvalidInputError, match="WIDTHxHEIGHT"):
        check_options("p", anysize, aspect_ratio="square", references=0, options={"size": "big"})
    edit_only = ImageCapabilities(text_to_image=False, edit=True, max_reference_images=1)
    with pytest.raises(InvalidInputError, match="text-to-image"):
        check_options("p", edit_only, aspect_ratio="square", references=0, options={})


BUNDLED = [
    "openai", "xai", "fal", "diffusers", "openrouter", "comfyui", "openai-codex", "krea", "deepinfra",
    "openai-compatible",
]  # fmt: skip


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_provider_declares(name: str) -> None:
    load_plugins()
    provider = image_providers.get(name)
    assert provider is not None
    raw = provider.capabilities()
    assert {"modalities", "max_reference_images", "seed", "negative_prompt"} <= set(raw)


@pytest.fixture
def emu() -> Iterator[Emulator]:
    load_plugins()
    with Emulator(seed=0) as emulator, use_emulator(emulator):
        yield emulator


@pytest.mark.parametrize(
    ("provider", "options", "option"),
    [
        ("openai", {"negative_prompt": "blurry"}, "negative_prompt"),
        ("xai", {"negative_prompt": "blurry"}, "negative_prompt"),
        ("xai", {"size": "1024x1024"}, "size"),
        ("fal", {"size": "1024x1024"}, "size"),
        ("openai", {"size": "huge"}, "size"),
        ("openai", {"upscale": True}, "upscale"),
        ("openai", {"creativity": "raw"}, "the creative control 'creativity'"),
        ("krea", {"upscale": True}, "upscale"),
    ],
)
def test_imagine_refuses_before_any_request(
    emu: Emulator, provider: str, options: dict[str, Any], option: str
) -> None:
    config.set("image_gen.provider", provider)
    with pytest.raises(InvalidInputError, match=rf"image provider '{provider}' does not support {option}"):
        images.imagine("a cat", **options)
    assert emu.requests == []


def test_seed_on_a_seedless_provider_is_a_note_in_the_output(emu: Emulator) -> None:
    import warnings

    config.set("image_gen.provider", "openai")
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no UserWarning with a source line any more
        result = images.imagine("a cat", seed=3)
    assert result.notes == ["openai takes no seed; these images are not reproducible"]
    bundle = result._repr_mimebundle_()
    assert "note: openai takes no seed" in bundle["text/plain"] and "takes no seed" in bundle["text/html"]
    assert len(emu.requests_for("openai")) == 1


def test_listing_rows_carry_options_and_price_notes() -> None:
    import hermes_nb as hn

    load_plugins()
    table = hn.providers("image_gen")
    assert {"options", "price"} <= set(table.columns)
    rows = {row.name: row for row in table}
    assert {"openai", "xai", "fal", "diffusers", "openrouter", "comfyui", "openai-codex"} <= set(rows)
    comfy = rows["comfyui"]
    assert comfy.options == ("seed", "negative_prompt", "size=WxH") and comfy.price_note == "free (local)"
    assert not comfy.available and "image_gen.comfyui.base_url" in comfy.why_not
    assert rows["openai"].options == ("size=WxH", "reference_images (≤16)")
    assert rows["openai"].price_note == "gpt-image-2-medium: ~$0.053/image (1024x1024)"
    assert "usage.cost" in rows["openrouter"].price_note
    assert "OPENROUTER_API_KEY" in rows["openrouter"].why_not
    assert "hermes auth codex" in rows["openai-codex"].why_not
    assert rows["openrouter"].models[0] == "google/gemini-3-pro-image"


def test_upscale_and_creative_controls_in_check_options() -> None:
    plain = ImageCapabilities()
    check_options("p", plain, aspect_ratio="square", references=0, options={"upscale": False})
    with pytest.raises(InvalidInputError, match="does not support upscale") as info:
        check_options("p", plain, aspect_ratio="square", references=0, options={"upscale": True})
    assert info.value.details["option"] == "upscale"
    krea_like = ImageCapabilities(creative_controls=("creativity", "intensity"))
    check_options("p", krea_like, aspect_ratio="square", references=0, options={"creativity": "raw"})
    with pytest.raises(InvalidInputError, match="creative controls it takes: creativity, intensity"):
        check_options("p", krea_like, aspect_ratio="square", references=0, options={"moodboards": ["m"]})
    assert krea_like.labels()[-1] == "creative controls creativity, intensity"


class Upscaler(ImageGenProvider):
    """A plugin provider that declares Hermes's ``supports_upscale`` and one creative control."""

    name = "upscaler"
    supports_upscale = True
    creative_controls = ("intensity",)
    seen: dict[str, Any] = {}

    def _generate(self, request: Any) -> dict[str, Any]:
        from hermes_nb.plugins.image_provider import save_bytes_image
        from hermes_nb.testing.fakes import render

        Upscaler.seen = dict(request.options)
        side = 2048 if request.options.get("upscale") else 1024
        path = save_bytes_image(render("upscaler", side, side, "png"), prefix="upscaler")
        return self.answer(request, path)


def test_upscale_and_declared_controls_reach_the_provider() -> None:
    load_plugins()
    image_providers.register(Upscaler(), owner="test")
    try:
        assert capabilities_of(Upscaler()).labels()[-2:] == ("upscale", "creative controls intensity")
        result = images.imagine("a tower", backend="upscaler", upscale=True, intensity=80, no_cache=True)
        assert Upscaler.seen == {"upscale": True, "intensity": 80} and result.size == (2048, 2048)
        with pytest.raises(InvalidInputError, match="creative control 'creativity'"):
            images.imagine("a tower", backend="upscaler", creativity="raw", no_cache=True)
        row = {r.name: r for r in __import__("hermes_nb").providers("image_gen")}["upscaler"]
        assert row.options[-2:] == ("upscale", "intensity")
    finally:
        image_providers.unregister("upscaler")
