"""Provider registries: type checks, normalised names, last writer wins, thread safety, lazy hook."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.registry import ProviderRegistry, image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider


class Fake(WebSearchProvider):
    def __init__(self, name: str) -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True


class FakeImage(ImageGenProvider):
    @property
    def name(self) -> str:
        return "pix"

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        return {}


@pytest.fixture(autouse=True)
def no_plugin_loading(monkeypatch: pytest.MonkeyPatch) -> None:
    """These tests are about the registry alone: keep bundled plugins out of it."""
    monkeypatch.setattr(web_providers, "loader", None)
    monkeypatch.setattr(image_providers, "loader", None)


def test_wrong_type_and_bad_name() -> None:
    with pytest.raises(TypeError):
        web_providers.register(FakeImage())  # type: ignore[arg-type]  # the wrong type is the test
    with pytest.raises(ValueError):
        web_providers.register(Fake("  "))


def test_names_are_normalised_and_last_writer_wins(caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level("INFO", logger="hermes_nb.plugins.registry")
    first, second = Fake("My-Backend"), Fake("my-backend ")
    web_providers.register(first, owner="web/a")
    web_providers.register(second, owner="web/b")
    assert web_providers.get(" MY-BACKEND") is second
    assert web_providers.owner("my-backend") == "web/b"
    assert "replaces" in caplog.text


def test_aliases() -> None:
    provider = Fake("brave")
    web_providers.register(provider, aliases=("brave-free",))
    assert web_providers.get("Brave-Free") is provider


def test_defaults_of_the_abcs() -> None:
    provider = Fake("x")
    assert provider.display_name == "x"
    assert provider.supports_search() and not provider.supports_extract() and not provider.supports_crawl()
    assert provider.is_keyless_available() is False
    with pytest.raises(NotImplementedError):
        provider.search("q")
    image = FakeImage()
    assert image.display_name == "Pix" and image.is_available() and image.default_model() is None
    assert image.capabilities() == {"modalities": ["text"], "max_reference_images": 0}
    image_providers.register(image)
    assert image_providers.list() == [image]


def test_loader_hook_is_asked_on_miss_and_list() -> None:
    calls: list[tuple[str, str | None]] = []
    registry: ProviderRegistry[WebSearchProvider] = ProviderRegistry("web", WebSearchProvider)  # type: ignore[type-abstract]  # ABC used for isinstance only

    def loader(kind: str, name: str | None) -> None:
        calls.append((kind, name))
        if name == "late":
            registry.register(Fake("late"))

    registry.loader = loader
    assert registry.get("late") is not None
    assert registry.get("late") is not None  # found now: no second load
    registry.list()
    assert calls == [("web", "late"), ("web", None)]


def test_thread_safety_under_32_threads() -> None:
    barrier = threading.Barrier(32)
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait()
            for j in range(50):
                web_providers.register(Fake(f"p{i}-{j % 5}"))
                web_providers.get(f"p{(i + 1) % 32}-{j % 5}")
                web_providers.list()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(web_providers.list()) == 32 * 5
