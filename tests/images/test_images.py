"""The image SDK: selection rule, pipeline checks, envelope errors, kept files, provenance, replay."""

from __future__ import annotations

import asyncio
import base64
import io
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from hermes_nb import batch, config, images
from hermes_nb.errors import (
    CacheMissError,
    ContentBlockedError,
    ContentPolicyError,
    InvalidInputError,
    ParseError,
    ProviderAuthError,
    ProviderError,
    ProviderNotConfiguredError,
    ProviderNotFoundError,
    RateLimitedError,
    TimeoutError_,
)
from hermes_nb.images.results import ImageGallery, ImageResult
from hermes_nb.plugins.image_provider import (
    ImageGenProvider,
    error_response,
    images_cache_dir,
    save_b64_image,
    success_response,
)
from hermes_nb.plugins.registry import image_providers
from hermes_nb.store.image_files import read_provenance


def png(size: tuple[int, int] = (96, 64), color: tuple[int, int, int] = (10, 120, 200)) -> bytes:
    out = io.BytesIO()
    Image.new("RGB", size, color).save(out, format="PNG")
    return out.getvalue()


class FakeProvider(ImageGenProvider):
    """In-process provider; ``behaviour(prompt, aspect, kwargs)`` returns the envelope."""

    def __init__(
        self,
        name: str = "fake",
        *,
        available: bool = True,
        key: str = "FAKE_API_KEY",
        behaviour: Callable[..., dict[str, Any]] | None = None,
        refs: int = 0,
    ) -> None:
        self._name, self.available, self.key, self.refs = name, available, key, refs
        self.behaviour = behaviour or self.ok
        self.calls: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return self.available

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": "fake-1"}, {"id": "fake-2"}]

    def capabilities(self) -> dict[str, Any]:
        return {"modalities": ["text"], "max_reference_images": self.refs, "seed": True}

    def get_setup_schema(self) -> dict[str, Any]:
        return {"name": self.name, "badge": "paid", "env_vars": [{"key": self.key}]}

    def ok(self, prompt: str, aspect: str, kwargs: dict[str, Any]) -> dict[str, Any]:
        path = save_b64_image(base64.b64encode(png()).decode(), prefix=self.name)
        return success_response(
            image=str(path),
            model=kwargs.get("model", ""),
            prompt=prompt,
            aspect_ratio=aspect,
            provider=self.name,
            extra={
                "seed": kwargs.get("seed"),
                "revised_prompt": "better " + prompt,
                "cost": {"usd": 0.01, "estimated": True},
            },
        )

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        self.calls.append({"prompt": prompt, "aspect_ratio": aspect_ratio, **kwargs})
        return self.behaviour(prompt, aspect_ratio, kwargs)


def cache_files() -> list[str]:
    return sorted(p.name for p in images_cache_dir().iterdir())


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> FakeProvider:
    # Only the providers a test registers exist: bundled plugins (diffusers is available wherever
    # torch is installed) would change what "the single available provider" is.
    monkeypatch.setattr(image_providers, "loader", lambda kind, name: None)
    provider = FakeProvider()
    image_providers.register(provider)
    return provider


# ----------------------------------------------------------------------------- selection


def test_single_available_provider_is_used(fake: FakeProvider) -> None:
    image_providers.register(FakeProvider("other", available=False, key="OTHER_KEY"))
    assert images.resolve_image_provider() is fake


def test_several_available_require_a_choice(fake: FakeProvider) -> None:
    image_providers.register(FakeProvider("paid"))
    with pytest.raises(
        ProviderNotConfiguredError, match=r"several image providers.*fake, paid.*image_gen.provider"
    ):
        images.resolve_image_provider()
    config.set("image_gen.provider", "paid")
    assert images.resolve_image_provider().name == "paid"
    assert images.resolve_image_provider(" FAKE ") is fake  # the argument wins, names normalised


def test_no_provider_available_names_the_fix(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(image_providers, "loader", lambda kind, name: None)
    image_providers.register(FakeProvider("paid", available=False, key="PAID_API_KEY"))
    wanted = r"no image provider is available.*PAID_API_KEY"
    with pytest.raises(ProviderNotConfiguredError, match=wanted) as info:
        images.resolve_image_provider()
    assert "set PAID_API_KEY" in info.value.details["needs"]["paid"]  # each provider's own hint stays here


def test_explicit_unavailable_fails_naming_env_var(fake: FakeProvider) -> None:
    image_providers.register(FakeProvider("paid", available=False, key="PAID_API_KEY"))
    config.set("image_gen.provider", "paid")
    with pytest.raises(ProviderNotConfiguredError, match=r"'paid' \(image_gen.provider\).*set PAID_API_KEY"):
        images.imagine("a cat")
    assert fake.calls == []  # no silent switch to the available one


def test_unknown_name_lists_registered(fake: FakeProvider) -> None:
    with pytest.raises(ProviderNotFoundError, match=r"no image provider named 'nope'.*registered: fake"):
        images.imagine("a cat", backend="nope")


def test_describe_rows(fake: FakeProvider) -> None:
    image_providers.register(FakeProvider("paid", available=False, key="PAID_API_KEY"))
    rows = {r["name"]: r for r in images.describe_image_providers()}
    assert (
        rows["fake"]["active"]
        and rows["fake"]["available"]
        and rows["fake"]["models"] == ["fake-1", "fake-2"]
    )
    assert not rows["paid"]["active"] and "PAID_API_KEY" in rows["paid"]["setup"]


# ----------------------------------------------------------------------------- inputs


@pytest.mark.parametrize("prompt", ["", "   ", None, 42])
def test_empty_prompt(fake: FakeProvider, prompt: Any) -> None:
    with pytest.raises(InvalidInputError, match="prompt is required"):
        images.imagine(prompt)
    assert fake.calls == [] and cache_files() == []


def test_unknown_aspect_ratio_is_coerced_with_a_warning(fake: FakeProvider) -> None:
    with pytest.warns(UserWarning, match="'widescreen' is not one of"):
        result = images.imagine("a cat", aspect_ratio="widescreen")
    assert result.aspect_ratio == "landscape" and fake.calls[0]["aspect_ratio"] == "landscape"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        images.imagine("a cat", aspect_ratio=" Square ")  # case/space differences are not a warning


@pytest.mark.parametrize("n", [0, 11, 2.0, True])
def test_bad_n(fake: FakeProvider, n: Any) -> None:
    with pytest.raises(InvalidInputError, match="n must be"):
        images.imagine("a cat", n=n)


def test_reference_images_checked_against_capabilities(fake: FakeProvider) -> None:
    with pytest.raises(InvalidInputError, match="does not accept reference images"):
        images.imagine("a cat", reference_images="ref.png")
    fake.refs = 1
    with pytest.raises(InvalidInputError, match="at most 1"):
        images.imagine("a cat", reference_images=["a.png", "b.png"])
    images.imagine("a cat", reference_images=Path("a.png"))
    assert fake.calls[-1]["image_url"] == "a.png" and "reference_image_urls" not in fake.calls[-1]


# ----------------------------------------------------------------------------- results


def test_result_fields_provenance_and_store(fake: FakeProvider) -> None:
    result = images.imagine("a red fox", aspect_ratio="square", seed=5, quality="high")
    assert isinstance(result, ImageResult)
    assert result.path.parent == images_cache_dir().resolve() and result.path.is_file()
    assert (result.provider, result.model, result.seed, result.size) == ("fake", "fake-1", 5, (96, 64))
    assert result.revised_prompt == "better a red fox" and result.cost == {"usd": 0.01, "estimated": True}
    assert result.envelope["success"] and result.envelope["image"] == str(result.path)
    assert repr(result) == f"ImageResult(provider='fake', model='fake-1', 96x64, sha256={result.sha256[:8]})"
    assert fake.calls[0]["seed"] == 5 and fake.calls[0]["quality"] == "high"
    prov = read_provenance(result.path)
    assert prov is not None
    assert prov["prompt"] == "a red fox" and prov["seed"] == 5 and prov["parameters"] == {"quality": "high"}
    assert prov["size"] == "96x64" and prov["hermes_nb_version"]
    from hermes_nb import store

    rows = store.get_store().find_images(provider="fake")
    assert (
        len(rows) == 1
        and rows[0]["path"] == str(result.path)
        and rows[0]["params"]["sha256"] == result.sha256
    )
    assert len(cache_files()) == 1  # rewritten in place, no second copy, no partial file


def test_secret_options_never_reach_provenance(fake: FakeProvider) -> None:
    config.set_key("FAKE_API_KEY", "sk-supersecretvalue123456")
    result = images.imagine("a cat", api_key="sk-supersecretvalue123456", note="sk-supersecretvalue123456")
    text = result.path.read_bytes()
    assert b"supersecretvalue" not in text
    assert "api_key" not in result.provenance["parameters"]


def test_gallery_with_seeds(fake: FakeProvider) -> None:
    gallery = images.imagine("a cat", n=3, seed=10)
    assert isinstance(gallery, ImageGallery) and len(gallery) == 3
    assert [r.seed for r in gallery] == [10, 11, 12]
    assert gallery.cost == {"usd": 0.03, "estimated": True}
    assert repr(gallery) == "ImageGallery(provider='fake', model='fake-1', n=3)"
    assert len(set(gallery.paths)) == 3 and gallery[1:][0] is gallery[1]


def test_thumbnail_and_mimebundle(fake: FakeProvider) -> None:
    result = images.imagine("a <b>cat</b>")
    thumb = result.thumbnail_bytes()
    assert thumb is result.thumbnail_bytes()  # cached
    with Image.open(io.BytesIO(thumb)) as img:
        assert max(img.size) <= 256 and img.format == "JPEG"
    bundle = result._repr_mimebundle_()
    assert "<b>cat</b>" not in bundle["text/html"] and "text/plain" in bundle
    assert str(result.path) not in bundle["text/plain"]


def test_image_property_is_pil(fake: FakeProvider) -> None:
    img = images.imagine("a cat").image
    assert isinstance(img, Image.Image) and img.size == (96, 64)


def test_model_precedence(fake: FakeProvider) -> None:
    assert images.imagine("x").model == "fake-1"  # provider default
    config.set("image_gen.model", "global")
    assert images.imagine("x").model == "global"
    config.set("image_gen.fake.model", "per-provider")
    assert images.imagine("x").model == "per-provider"
    assert images.imagine("x", model="arg").model == "arg"


# ----------------------------------------------------------------------------- envelope failures


@pytest.mark.parametrize(
    ("error_type", "exc"),
    [
        ("content_policy", ContentPolicyError),
        ("auth_required", ProviderAuthError),
        ("missing_api_key", ProviderNotConfiguredError),
        ("missing_dependency", ProviderNotConfiguredError),
        ("invalid_argument", InvalidInputError),
        ("empty_response", ProviderError),
        ("rate_limited", RateLimitedError),
        ("timeout", TimeoutError_),
        ("RateLimitedError", RateLimitedError),  # Hermes's fal adapter reports class names
        ("something_new", ProviderError),
    ],
)
def test_error_envelopes_map_to_exceptions(fake: FakeProvider, error_type: str, exc: type) -> None:
    fake.behaviour = lambda p, a, k: error_response(error="nope", error_type=error_type, provider="fake")
    with pytest.raises(exc, match="nope") as info:
        images.imagine("a cat")
    assert info.value.provider == "fake" and info.value.details["error_type"] == error_type
    assert cache_files() == []


def _returns(image: Any) -> Callable[..., dict[str, Any]]:
    return lambda p, a, k: success_response(image=image, model="m", prompt=p, aspect_ratio=a, provider="fake")


def test_provider_returning_no_image(fake: FakeProvider) -> None:
    fake.behaviour = _returns("")
    with pytest.raises(ParseError, match="'image' is empty"):
        images.imagine("a cat")
    assert cache_files() == []


def test_provider_writing_garbage_into_the_cache_is_removed(fake: FakeProvider) -> None:
    bad = images_cache_dir() / "fake_20260101_000000_deadbeef.png"
    bad.write_bytes(b"this is not a png")
    fake.behaviour = _returns(str(bad))
    with pytest.raises(ParseError):
        images.imagine("a cat")
    assert cache_files() == []


def test_path_outside_the_cache_is_copied_in(fake: FakeProvider, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere.png"
    outside.write_bytes(png())
    fake.behaviour = _returns(str(outside))
    result = images.imagine("a cat")
    assert result.path.parent == images_cache_dir().resolve() and outside.read_bytes() == png()


def test_relative_or_missing_path_is_an_error(fake: FakeProvider) -> None:
    fake.behaviour = _returns("relative/thing.png")
    with pytest.raises(ProviderError, match="neither a URL nor an existing file"):
        images.imagine("a cat")


def test_invalid_base64_from_provider(fake: FakeProvider) -> None:
    def bad_b64(p: str, a: str, k: dict[str, Any]) -> dict[str, Any]:
        try:
            save_b64_image("not//base64!!", prefix="fake")
        except ParseError as exc:
            return error_response(error=str(exc), error_type="parse_error", provider="fake")
        raise AssertionError("invalid base64 was accepted")

    fake.behaviour = bad_b64
    with pytest.raises(ParseError, match="invalid base64"):
        images.imagine("a cat")
    assert cache_files() == []


def test_data_uri_bomb_is_refused(fake: FakeProvider) -> None:
    from test_image_files import _png_header_only

    fake.behaviour = _returns(
        "data:image/png;base64," + base64.b64encode(_png_header_only(30000, 30000)).decode()
    )
    with pytest.raises(ContentBlockedError, match="decompression bomb"):
        images.imagine("a cat")
    assert cache_files() == []


def test_provider_raising_or_breaking_the_contract(fake: FakeProvider) -> None:
    def boom(p: str, a: str, k: dict[str, Any]) -> dict[str, Any]:
        raise RuntimeError("kaput")

    fake.behaviour = boom
    with pytest.raises(ProviderError, match="raised RuntimeError: kaput"):
        images.imagine("a cat")
    fake.behaviour = lambda p, a, k: "not a dict"  # type: ignore[assignment,return-value]
    with pytest.raises(ParseError, match="not an envelope object"):
        images.imagine("a cat")


# ----------------------------------------------------------------------------- cache modes


def test_replay_serves_from_store_without_calling(fake: FakeProvider) -> None:
    first = images.imagine("a cat", seed=1, n=2)
    calls = len(fake.calls)
    config.set("cache.mode", "replay")
    again = images.imagine("a cat", seed=1, n=2)
    assert len(fake.calls) == calls
    assert isinstance(again, ImageGallery) and [r.path for r in again] == [r.path for r in first]
    assert all(r.cached for r in again) and again[0].sha256 == first[0].sha256
    with pytest.raises(CacheMissError, match="replay"):
        images.imagine("a cat", seed=2, n=2)
    assert len(fake.calls) == calls


def test_cache_off_records_nothing(fake: FakeProvider) -> None:
    from hermes_nb import store

    config.set("cache.mode", "off")
    images.imagine("a cat")
    assert store.get_store().find_images(provider="fake") == []


# ----------------------------------------------------------------------------- async and batch


def test_aimagine(fake: FakeProvider) -> None:
    result = asyncio.run(images.aimagine("a cat", seed=3))
    assert isinstance(result, ImageResult) and result.seed == 3


def test_imagine_many_keeps_order_and_errors(fake: FakeProvider) -> None:
    from hermes_nb.batch import BatchError

    out = batch.imagine_many(["one", "", "three"], concurrency=2, progress=False, seed=4)
    assert isinstance(out[0], ImageResult) and out[0].prompt == "one" and out[0].seed == 4
    assert isinstance(out[1], BatchError) and out[1].code == "INVALID_INPUT"
    assert isinstance(out[2], ImageResult) and out[2].prompt == "three"


def test_imagine_many_frame_and_resumable_job(fake: FakeProvider) -> None:
    pytest.importorskip("pandas")
    frame = batch.imagine_many(["a", "b"], n=2, as_frame=True, progress=False)
    assert list(frame["prompt"]) == ["a", "a", "b", "b"] and list(frame["index"]) == [0, 1, 0, 1]
    assert frame["path"].map(lambda p: Path(p).is_file()).all()
    first = batch.imagine_many(["x", "y"], job="nightly", progress=False)
    calls = len(fake.calls)
    again = batch.imagine_many(["x", "y"], job="nightly", progress=False)
    assert len(fake.calls) == calls  # finished prompts are not generated twice
    assert [r.path for r in again] == [r.path for r in first] and all(r.cached for r in again)


# ----------------------------------------------------------------------------- URLs (real HTTP, emulator)


@pytest.fixture
def emu() -> Any:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, providers=[]):
        yield emulator


def test_url_is_downloaded_at_once(fake: FakeProvider, emu: Any) -> None:
    from hermes_nb.testing import _files

    url = _files.store_file(emu, png((40, 30)), "png", "image/png", ephemeral=True)
    fake.behaviour = _returns(url)
    result = images.imagine("a cat")
    assert result.size == (40, 30) and result.path.parent == images_cache_dir().resolve()
    assert result.envelope["image"] == str(result.path)  # the ephemeral URL is never handed out


@pytest.mark.parametrize(
    "path", ["/site/missing-image.png", "/site/articles/hello-world.html"], ids=["404", "html"]
)
def test_url_that_fails_or_is_not_an_image(fake: FakeProvider, emu: Any, path: str) -> None:
    from hermes_nb.errors import ContentFetchError

    fake.behaviour = _returns(emu.page_url(path))
    with pytest.raises(ContentFetchError):
        images.imagine("a cat")
    assert cache_files() == []


def test_url_redirecting_to_a_private_address(
    fake: FakeProvider, emu: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    import functools

    from hermes_nb.net import fetch

    # Only the emulator's own loopback address is allowed; the redirect target 10.0.0.1 is not.
    config.set("security.allow_private_urls", False)
    monkeypatch.setattr(fetch, "fetch", functools.partial(fetch.fetch, allow_networks=["127.0.0.1/32"]))
    fake.behaviour = _returns(emu.page_url("/site/redirect-private"))
    with pytest.raises(ContentBlockedError):
        images.imagine("a cat")
    assert cache_files() == []


def test_private_url_blocked_by_default(fake: FakeProvider, emu: Any) -> None:
    config.set("security.private_origins", [])  # what use_emulator lets through, taken back
    fake.behaviour = _returns(emu.page_url("/site/anything.png"))
    with pytest.raises(ContentBlockedError):
        images.imagine("a cat")
    assert cache_files() == []
