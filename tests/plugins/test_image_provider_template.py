"""ImageGenProvider: declared metadata, ``generate`` as a template, keyed helpers; Hermes style works."""

from __future__ import annotations

from typing import Any

import pytest

from hermes_nb import config
from hermes_nb.errors import ContentPolicyError, ProviderNotConfiguredError
from hermes_nb.plugins.image_provider import ImageGenProvider, ImageRequest
from hermes_nb.plugins.provider_keys import key_configured, require_key


class Keyed(ImageGenProvider):
    """A bundled-style provider: class attributes and ``_generate`` only."""

    name = "keyed-test"
    display_name = "Keyed Test"
    key_env = "KEYED_TEST_API_KEY"
    model_env = "KEYED_TEST_MODEL"
    docs_url = "https://keyed.example/keys"
    default_base_url = "https://api.keyed.example/v1/"
    badge, tag = "paid", "a test vendor"
    max_reference_images = 2
    accepts_seed, accepts_negative_prompt = False, True
    accepts_sizes = ("any",)

    def __init__(self) -> None:
        self.requests: list[ImageRequest] = []

    def list_models(self) -> list[dict[str, Any]]:
        return [{"id": "k-1"}, {"id": "k-2"}]

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        self.requests.append(request)
        self.api_key()
        if request.options.get("blocked"):
            raise ContentPolicyError("the vendor's moderation refused it", provider=self.name)
        if request.options.get("empty"):
            raise self.no_image("the vendor answered without an image")
        return self.answer(request, "/tmp/x.png", seed=request.options.get("seed"))


class TextOnly(ImageGenProvider):
    name = "text-only-test"

    def _generate(self, request: ImageRequest) -> dict[str, Any]:
        raise AssertionError("never reached: references are refused first")


class HermesStyle(ImageGenProvider):
    """Written against Hermes's ABC: properties and its own ``generate``."""

    @property
    def name(self) -> str:
        return "hermes-style"

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        return {"success": True, "image": "/tmp/h.png", "aspect_ratio": aspect_ratio, "kwargs": kwargs}


def test_the_template_resolves_aspect_model_and_references() -> None:
    provider = Keyed()
    config.set_key("KEYED_TEST_API_KEY", "secret-test-key-1234")
    config.set("image_gen.keyed-test.model", "k-2")
    envelope = provider.generate(
        "  a red kite  ", "Wide?", image_url="a.png", reference_image_urls=["b.png"], seed=7, quality="hi"
    )
    assert envelope["success"] is True and envelope["model"] == "k-2" and envelope["prompt"] == "a red kite"
    assert envelope["aspect_ratio"] == "landscape" and envelope["modality"] == "image"
    assert envelope["seed"] == 7
    request = provider.requests[-1]
    assert request.references == ["a.png", "b.png"]  # Hermes's image_url first
    assert request.options == {"seed": 7, "quality": "hi"}  # unknown keywords pass through, model does not
    # argument → model_env → image_gen.<name>.model → image_gen.model → the first listed model
    assert provider.generate("x", model="k-1")["model"] == "k-1"
    with pytest.MonkeyPatch.context() as env:
        env.setenv("KEYED_TEST_MODEL", "from-env")
        assert provider.generate("x")["model"] == "from-env"
    config.unset("image_gen.keyed-test.model")
    assert provider.resolve_model() == "k-1"


@pytest.mark.parametrize(
    ("call", "error_type", "message"),
    [
        (lambda p: p.generate("   "), "invalid_argument", "prompt is required"),
        (lambda p: p.generate("x", image_url="1", reference_image_urls=["2", "3"]), "too_many_references",
         "Keyed Test takes at most 2 reference images, got 3"),
        (lambda p: p.generate("x", blocked=True), "content_policy", "moderation refused"),
        (lambda p: p.generate("x", empty=True), "empty_response", "without an image"),
    ],
)  # fmt: skip
def test_errors_become_hermes_envelopes(call: Any, error_type: str, message: str) -> None:
    config.set_key("KEYED_TEST_API_KEY", "secret-test-key-1234")
    envelope = call(Keyed())
    assert envelope["success"] is False and envelope["error_type"] == error_type, envelope
    assert message in envelope["error"] and envelope["provider"] == "keyed-test" and envelope["image"] is None


def test_a_text_only_provider_refuses_references_before_its_own_code() -> None:
    envelope = TextOnly().generate("x", image_url="a.png")
    assert envelope["error_type"] == "modality_unsupported"
    assert "takes no reference images" in envelope["error"]


def test_keyed_provider_availability_key_check_and_base_url() -> None:
    provider = Keyed()
    assert not provider.is_available() and not key_configured("KEYED_TEST_API_KEY")
    envelope = provider.generate("x")
    assert envelope["error_type"] == "missing_api_key"
    assert envelope["error"] == (
        "Keyed Test needs an API key: set KEYED_TEST_API_KEY (https://keyed.example/keys) "
        "or call hn.config.set_key('KEYED_TEST_API_KEY', ...)"
    )
    config.set_key("KEYED_TEST_API_KEY", "secret-test-key-1234")
    assert provider.is_available() and provider.api_key() == "secret-test-key-1234"
    assert provider.base_url() == "https://api.keyed.example/v1"
    config.set("image_gen.keyed-test.base_url", "http://127.0.0.1:9/keyed/")
    assert provider.base_url() == "http://127.0.0.1:9/keyed"


def test_require_key_names_every_accepted_variable() -> None:
    with pytest.raises(ProviderNotConfiguredError) as info:
        require_key("google", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "Google Gemini")
    assert str(info.value) == (
        "Google Gemini needs an API key: set GEMINI_API_KEY (or GOOGLE_API_KEY) "
        "or call hn.config.set_key('GEMINI_API_KEY', ...)"
    )
    assert info.value.provider == "google"
    config.set_key("GOOGLE_API_KEY", "secret-google-key-5678")
    key = require_key("google", ("GEMINI_API_KEY", "GOOGLE_API_KEY"), "Google Gemini")
    assert key == "secret-google-key-5678"
    assert not key_configured("") and not key_configured(())


def test_setup_schema_and_capabilities_come_from_the_attributes() -> None:
    provider = Keyed()
    assert provider.get_setup_schema() == {
        "name": "Keyed Test",
        "badge": "paid",
        "tag": "a test vendor",
        "env_vars": [
            {"key": "KEYED_TEST_API_KEY", "prompt": "Keyed Test API key", "url": "https://keyed.example/keys"}
        ],
    }
    assert provider.capabilities() == {
        "modalities": ["text", "image"],
        "max_reference_images": 2,
        "seed": False,
        "negative_prompt": True,
        "sizes": ["any"],
    }


def test_hermes_defaults_for_a_provider_that_declares_nothing() -> None:
    provider = HermesStyle()
    assert provider.display_name == "Hermes-Style" and provider.is_available()
    assert provider.capabilities() == {"modalities": ["text"], "max_reference_images": 0}
    assert provider.get_setup_schema() == {"name": "Hermes-Style", "badge": "", "tag": "", "env_vars": []}
    assert (provider.tier, provider.aliases, provider.docs_url, provider.price_note) == ("", (), "", "")
    assert provider.default_model() is None and provider.resolve_model() is None


def test_a_provider_that_overrides_generate_keeps_its_own() -> None:
    envelope = HermesStyle().generate("x", "portrait", model="m", surprise=1)
    assert envelope == {"success": True, "image": "/tmp/h.png", "aspect_ratio": "portrait",
                        "kwargs": {"model": "m", "surprise": 1}}  # fmt: skip


def test_a_provider_without_generate_or_name_cannot_be_built() -> None:
    class NoGenerate(ImageGenProvider):
        name = "no-generate"

    class NoName(ImageGenProvider):
        def _generate(self, request: ImageRequest) -> dict[str, Any]:
            return {}

    with pytest.raises(TypeError, match="define generate"):
        NoGenerate()
    with pytest.raises(TypeError, match="abstract"):
        NoName()  # type: ignore[abstract]


def test_an_unexpected_exception_is_not_swallowed() -> None:
    class Buggy(TextOnly):
        def _generate(self, request: ImageRequest) -> dict[str, Any]:
            raise KeyError("bug")

    with pytest.raises(KeyError):  # the SDK reports it as the provider's own failure
        Buggy().generate("x")
