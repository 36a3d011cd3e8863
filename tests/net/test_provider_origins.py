"""An image URL on the origin of the base URL the user configured for a provider is fetched, even
when that origin is private; every other private address, and a redirect off that origin, is not.

No emulator help here: ``security.private_origins`` stays empty and the loopback servers are plain
``Emulator`` instances that ``use_emulator`` never announced.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from hermes_nb import config, images
from hermes_nb.errors import ContentBlockedError
from hermes_nb.net.fetch import fetch
from hermes_nb.net.url_guard import check_url, provider_origins, trusted_origins
from hermes_nb.plugins.image_download import configured_base_urls
from hermes_nb.plugins.image_provider import ImageGenProvider, success_response
from hermes_nb.plugins.registry import image_providers
from hermes_nb.testing import Emulator


@pytest.fixture(scope="module")
def rig() -> Iterator[Emulator]:
    """A loopback server standing for a user's own image rig or gateway."""
    with Emulator(seed=4) as server:
        yield server


@pytest.fixture(scope="module")
def other() -> Iterator[Emulator]:
    """A second loopback server nobody configured."""
    with Emulator(seed=5) as server:
        yield server


@pytest.fixture(autouse=True)
def nothing_allowed() -> None:
    config.set("security.private_origins", [])
    config.set("security.allow_private_urls", False)


def test_the_guard_lets_exactly_the_configured_origin_through(rig: Emulator) -> None:
    image = rig.page_url("/site/image.png")
    with pytest.raises(ContentBlockedError):
        check_url(image)
    with provider_origins([rig.url + "/v1"]) as origins:
        assert origins == trusted_origins() and len(origins) == 1
        assert check_url(image).host == "127.0.0.1"
        for refused in ("http://10.0.0.7/x.png", "http://127.0.0.2/x.png", "http://localhost/x.png",
                        f"https://127.0.0.1:{rig.url.rsplit(':', 1)[1]}/x.png"):  # scheme differs
            with pytest.raises(ContentBlockedError):
                check_url(refused)
    assert trusted_origins() == frozenset()  # the trust ends with the call
    with pytest.raises(ContentBlockedError):
        check_url(image)


def test_another_port_and_redirects_off_the_origin_stay_refused(rig: Emulator, other: Emulator) -> None:
    with provider_origins([rig.base_url("xai")]):
        assert fetch(rig.page_url("/site/image.png")).status == 200
        with pytest.raises(ContentBlockedError):
            fetch(other.page_url("/site/image.png"))  # same host, another port: not the user's choice
        with pytest.raises(ContentBlockedError):
            fetch(rig.page_url("/site/redirect-private"))  # 302 to http://10.0.0.1/


def test_only_configured_base_urls_count_never_a_vendor_default(monkeypatch: pytest.MonkeyPatch) -> None:
    class Rig(ImageGenProvider):
        name = "my-rig"
        default_base_url = "https://api.example.com/v1"

        def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
            raise AssertionError

    assert configured_base_urls(Rig()) == []
    config.set("image_gen.my_rig.base_url", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("MY_RIG_BASE_URL", "http://10.1.2.3:8000/v1")
    assert configured_base_urls(Rig()) == ["http://127.0.0.1:9/v1", "http://10.1.2.3:8000/v1"]


class UrlProvider(ImageGenProvider):
    """Returns a URL it was told to, as a provider whose vendor hands back image links."""

    name = "rigged"

    def __init__(self) -> None:
        self.url = ""

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kwargs: Any) -> dict[str, Any]:
        return success_response(image=self.url, model="m", prompt=prompt, aspect_ratio=aspect_ratio,
                                provider=self.name)


@pytest.fixture
def rigged(monkeypatch: pytest.MonkeyPatch) -> UrlProvider:
    monkeypatch.setattr(image_providers, "loader", lambda kind, name: None)
    provider = UrlProvider()
    image_providers.register(provider)
    return provider


def test_our_sdk_keeps_an_image_from_the_configured_rig(rigged: UrlProvider, rig: Emulator,
                                                        other: Emulator) -> None:
    rigged.url = rig.page_url("/site/image.png")
    with pytest.raises(ContentBlockedError):
        images.imagine("a lighthouse", backend="rigged", no_cache=True)  # nothing configured yet
    config.set("image_gen.rigged.base_url", rig.url + "/v1")
    result = images.imagine("a lighthouse", backend="rigged", no_cache=True)
    assert result.path.is_file() and result.width == 64
    rigged.url = other.page_url("/site/image.png")
    with pytest.raises(ContentBlockedError):
        images.imagine("a lighthouse", backend="rigged", no_cache=True)
