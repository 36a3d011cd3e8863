"""Hermes import names served by hermes_nb only when no real module exists (hermes_nb.compat._finder)."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hermes_nb import config
from hermes_nb.compat import _finder as _compat
from hermes_nb.plugins import image_provider, loader
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider


@pytest.fixture(autouse=True)
def installed(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "empty"))
    loader.get_plugin_manager().discover()
    assert _compat.is_installed()
    yield


def test_not_installed_by_import_hermes_nb() -> None:
    from hermes_nb import _state

    _state.reset_all()
    assert not _compat.is_installed()
    import hermes_nb  # noqa: F401 - the import itself is the test

    assert not _compat.is_installed()


def test_agent_modules() -> None:
    from agent.image_gen_provider import DEFAULT_ASPECT_RATIO, ImageGenProvider, success_response
    from agent.web_search_provider import WebSearchProvider as Alias
    from agent.web_search_provider import get_provider_env

    assert Alias is WebSearchProvider and ImageGenProvider is image_provider.ImageGenProvider
    assert DEFAULT_ASPECT_RATIO == "landscape" and success_response is image_provider.success_response
    mod = importlib.import_module("agent.image_gen_provider")
    assert set(image_provider.__all__) <= set(vars(mod))
    config.set_key("SOME_API_KEY", "v1")
    assert get_provider_env("SOME_API_KEY") == "v1" and get_provider_env("NOPE_KEY") == ""


def test_web_search_registry() -> None:
    from agent import web_search_registry as reg

    class P(WebSearchProvider):
        name = "compat-web"

        def is_available(self) -> bool:
            return True

    reg.register_provider(P())
    assert reg.get_provider("compat-web").name == "compat-web"
    assert [p.name for p in reg.list_providers()] == ["compat-web"]
    with pytest.raises(TypeError):
        reg.register_provider(object())
    assert reg.get_active_search_provider().name == "compat-web"
    config.set("web.search_backend", "missing-one")
    assert reg.get_active_search_provider().name == "compat-web"  # Hermes: an unknown name falls through
    reg._reset_for_tests()
    assert web_providers.get("compat-web") is None


def test_the_active_provider_is_never_a_keyless_mode_and_a_configured_one_is_kept() -> None:
    """Hermes's rule: a keyless mode never makes a provider active; a configured one is returned
    even when unavailable (its own call names the missing key)."""
    from agent import web_search_registry as reg

    class KeylessOnly(WebSearchProvider):
        name = "compat-keyless"

        def is_available(self) -> bool:
            return False

        def is_keyless_available(self) -> bool:
            return True

    reg._reset_for_tests()
    keyless = KeylessOnly()
    reg.register_provider(keyless)
    assert reg.get_active_search_provider() is None  # hermes_nb's auto mode would pick it; Hermes never
    config.set("web.search_backend", "compat-keyless")
    assert reg.get_active_search_provider() is keyless


def test_image_gen_registry() -> None:
    from agent import image_gen_registry as reg

    class P(image_provider.ImageGenProvider):
        name = "compat-img"

        def generate(self, prompt: str, aspect_ratio: str = "landscape", **kw: object) -> dict:
            return {}

    reg.register_provider(P())
    assert reg.get_active_provider().name == "compat-img"
    config.set("image_gen.provider", "other")
    assert reg.get_active_provider() is None


def test_config_constants_and_cli_plugins(hermetic: Path) -> None:
    from hermes_cli.config import get_env_value, get_hermes_home, load_config
    from hermes_cli.plugins import PluginContext, PluginManifest, discover_plugins, get_plugin_manager
    from hermes_constants import get_hermes_home as constants_home

    assert get_hermes_home() == hermetic == constants_home()
    config.set("web.backend", "x")
    assert load_config()["web"]["backend"] == "x"
    assert get_env_value("MISSING_VAR_X") is None
    assert get_plugin_manager() is loader.get_plugin_manager()
    assert (
        PluginContext.__module__ == "hermes_nb.plugins.context"
        and PluginManifest.__module__ == "hermes_nb.plugins.manifest"
    )
    discover_plugins()


def test_tools_modules() -> None:
    pytest.importorskip("hermes_nb.tools")
    from tools.interrupt import is_interrupted
    from tools.lazy_deps import FeatureUnavailable, ensure
    from tools.registry import registry, tool_error, tool_result
    from tools.url_safety import is_safe_url, normalize_url_for_request

    from hermes_nb import tools
    from hermes_nb.plugins import lazy_deps

    assert (
        registry is tools.registry
        and ensure is lazy_deps.ensure
        and FeatureUnavailable is lazy_deps.FeatureUnavailable
    )
    assert tool_error("bad") == '{"error": "bad"}' and tool_result(ok=1) == '{"ok": 1}'
    assert is_interrupted() is False
    assert is_safe_url("http://127.0.0.1/") is False and is_safe_url("https://93.184.216.34/") is True
    assert normalize_url_for_request(" https://example.com ") == "https://example.com"


def test_plugin_utils() -> None:
    from plugins.plugin_utils import SingletonSlot, lazy_singleton

    calls: list[int] = []

    @lazy_singleton
    def client() -> object:
        calls.append(1)
        return object()

    assert client() is client() and calls == [1]
    client.reset()
    client()
    assert calls == [1, 1]
    slot = SingletonSlot()
    assert slot.get(lambda: 5) == 5 and slot.get(lambda: 6) == 5
    slot.clear()
    assert slot.get() is None


def test_real_module_wins(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "realsite"
    (site / "agent").mkdir(parents=True)
    (site / "agent" / "__init__.py").write_text("REAL = True\n")
    (site / "agent" / "web_search_provider.py").write_text("REAL_PROVIDER = True\n")
    (site / "hermes_constants.py").write_text("REAL = True\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        import agent.web_search_provider as wsp
        import hermes_constants

        assert wsp.REAL_PROVIDER is True and not hasattr(wsp, "WebSearchProvider")
        assert hermes_constants.REAL is True
        with pytest.raises(ModuleNotFoundError):
            importlib.import_module("agent.image_gen_provider")  # never served inside a real package
    finally:
        for name in [m for m in sys.modules if m.split(".")[0] in ("agent", "hermes_constants")]:
            del sys.modules[name]


def test_namespace_package_is_not_real_and_stays_searchable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    site = tmp_path / "nssite"
    (site / "tools").mkdir(parents=True)  # a notebook folder called tools/, no __init__.py
    (site / "tools" / "my_helper.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(site))
    pytest.importorskip("hermes_nb.tools")
    from tools.my_helper import VALUE
    from tools.registry import registry

    from hermes_nb import tools

    assert VALUE == 42 and registry is tools.registry


def test_reset_removes_served_modules() -> None:
    import agent.web_search_provider  # noqa: F401 - served by the finder

    from hermes_nb import _state

    _state.reset_all()
    assert "agent.web_search_provider" not in sys.modules and "agent" not in sys.modules
