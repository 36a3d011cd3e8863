"""Plugin discovery, the enable/disable gate, overrides and lazy import (hermes_nb.plugins.loader)."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest
import yaml
from fixtures.plugins.factory import make_plugin, make_web_plugin
from paths import TESTS

from hermes_nb import config
from hermes_nb.plugins import loader
from hermes_nb.plugins.registry import image_providers, web_providers


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "bundled"
    root.mkdir()
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(root))
    return root


@pytest.fixture
def user(hermetic: Path) -> Path:
    root = hermetic / "plugins"
    root.mkdir()
    return root


def _by_key() -> dict[str, dict]:
    return {row["key"]: row for row in loader.list_plugins()}


def _imported(key: str) -> bool:
    return loader.module_name(key) in sys.modules


def test_module_name_slug() -> None:
    assert loader.module_name("image_gen/openai") == "hermes_plugins.image_gen__openai"
    assert loader.module_name("web/my-backend") == "hermes_plugins.web__my_backend"


def test_bundled_dir_defaults_to_repo_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HERMES_BUNDLED_PLUGINS", raising=False)
    found = loader.bundled_plugins_dir()
    assert found is not None and found.name in ("plugins", "bundled_plugins")


def test_keys_categories_and_flat_plugins(bundled: Path, user: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_plugin(bundled, "image_gen/pix", "name: image-pix\nkind: backend\n")
    make_plugin(bundled, "toolbox", "name: toolbox-tools\nprovides_tools: [t]\n")
    make_plugin(user, "mine", "name: my-general\n")
    make_plugin(user, "nested/deeper/too-deep")  # beyond the depth cap: never seen
    rows = _by_key()
    assert set(rows) == {"web/alpha", "image_gen/pix", "toolbox-tools", "my-general"}
    assert rows["web/alpha"]["source"] == "bundled" and rows["my-general"]["source"] == "user"


def test_gate_bundled_loads_user_is_opt_in(bundled: Path, user: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_web_plugin(user, "web/beta", "beta")
    rows = _by_key()
    assert rows["web/alpha"]["enabled"] is True
    assert rows["web/beta"]["enabled"] is False
    assert "hermes-nb plugins enable web/beta" in rows["web/beta"]["reason"]
    assert web_providers.get("beta") is None
    assert not _imported("web/beta")


@pytest.mark.parametrize("listed", ["web/beta", "beta", "BETA"])
def test_enabled_by_key_or_name(bundled: Path, user: Path, listed: str) -> None:
    make_web_plugin(user, "web/beta", "beta")
    config.set("plugins.enabled", [listed])
    assert web_providers.get("beta") is not None
    assert web_providers.owner("beta") == "web/beta"


def test_disabled_wins_over_bundled_and_enabled(bundled: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    config.set("plugins.enabled", ["web/alpha"])
    config.set("plugins.disabled", ["alpha"])
    row = _by_key()["web/alpha"]
    assert row["enabled"] is False and row["reason"].startswith("disabled via config")
    assert web_providers.get("alpha") is None and not _imported("web/alpha")


def test_project_plugins_only_when_opted_in(
    bundled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / ".hermes" / "plugins"  # the cwd is tmp_path
    make_plugin(project, "proj", "name: proj\n")
    assert "proj" not in _by_key()
    monkeypatch.setenv("HERMES_ENABLE_PROJECT_PLUGINS", "1")
    loader.load_plugins(force=True)
    assert _by_key()["proj"]["source"] == "project"


def test_safe_mode_keeps_only_bundled(bundled: Path, user: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_web_plugin(user, "web/beta", "beta")
    monkeypatch.setenv("HERMES_SAFE_MODE", "1")
    assert set(_by_key()) == {"web/alpha"}


def test_override_by_key_is_reported(bundled: Path, user: Path, caplog: pytest.LogCaptureFixture) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_web_plugin(user, "web/alpha", "alpha-user")
    config.set("plugins.enabled", ["web/alpha"])
    row = _by_key()["web/alpha"]
    assert row["source"] == "user"
    assert row["overrides"] == [f"bundled: {bundled / 'web' / 'alpha'}"]
    assert "overrides the one from bundled" in caplog.text
    assert [p.name for p in web_providers.list()] == ["alpha-user"]


def test_real_entry_point(bundled: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    site = tmp_path / "site"
    pkg = site / "ep_web_pkg"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text(
        "from hermes_nb.plugins.web_provider import WebSearchProvider\n"
        "class P(WebSearchProvider):\n    name = 'ep-web'\n    def is_available(self):\n        return True\n"
        "def register(ctx):\n    ctx.register_web_search_provider(P())\n"
    )
    dist = site / "ep_web_pkg-1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: ep-web-pkg\nVersion: 1.0\n")
    (dist / "entry_points.txt").write_text("[hermes_agent.plugins]\nep-web = ep_web_pkg\n")
    monkeypatch.syspath_prepend(str(site))
    try:
        row = _by_key()["ep-web"]
        assert (row["source"], row["enabled"], row["path"]) == ("entrypoint", False, "ep_web_pkg")
        assert web_providers.get("ep-web") is None
        config.set("plugins.enabled", ["ep-web"])
        loader.load_plugins(force=True)
        assert web_providers.get("ep-web") is not None
        assert _by_key()["ep-web"]["providers"] == ["web:ep-web"]
    finally:
        sys.modules.pop("ep_web_pkg", None)


def test_discovery_imports_no_plugin_code(bundled: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_plugin(bundled, "tooly", "name: tooly\nprovides_tools: [x]\n", "raise RuntimeError('imported')\n")
    loader.get_plugin_manager().discover()
    assert not _imported("web/alpha") and not _imported("tooly")


def test_get_imports_only_the_declaring_plugin(bundled: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_web_plugin(bundled, "web/beta", "beta")
    make_plugin(bundled, "image_gen/pix", "name: pix\nprovides_image_providers: [pix]\n")
    make_plugin(bundled, "tooly", "name: tooly\nprovides_tools: [x]\n")
    assert web_providers.get("beta") is not None
    assert _imported("web/beta")
    assert not any(_imported(k) for k in ("web/alpha", "image_gen/pix", "tooly"))
    assert web_providers.get("nope") is None  # undeclared name: only undeclared plugins would be tried
    assert not _imported("web/alpha")


def test_get_falls_back_to_undeclared_plugins_of_the_category(bundled: Path) -> None:
    make_web_plugin(bundled, "web/quiet", "quiet", declare=False)
    make_web_plugin(bundled, "web/loud", "loud")
    assert web_providers.get("quiet") is not None
    assert not _imported("web/loud")


def test_list_imports_the_whole_category(bundled: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    make_web_plugin(bundled, "web/beta", "beta")
    make_plugin(bundled, "image_gen/pix", "name: pix\nprovides_image_providers: [pix]\n")
    assert web_providers.names() == ["alpha", "beta"]
    assert not _imported("image_gen/pix")
    assert image_providers.list() == []  # the pix plugin registers nothing
    assert _by_key()["image_gen/pix"]["loaded"] is True


def test_tools_capability(bundled: Path) -> None:
    make_plugin(bundled, "tooly", "name: tooly\nprovides_tools: [x]\n")
    make_web_plugin(bundled, "web/alpha", "alpha")
    loader.ensure_loaded("tools")
    assert _imported("tooly") and not _imported("web/alpha")
    with pytest.raises(ValueError, match="unknown capability"):
        loader.ensure_loaded("video")


def test_load_plugins_idempotent_and_force(bundled: Path, tmp_path: Path) -> None:
    counter = tmp_path / "calls.txt"
    make_plugin(
        bundled,
        "counted",
        "name: counted\n",
        f"def register(ctx):\n    open({str(counter)!r}, 'a').write('x')\n",
    )
    loader.load_plugins()
    loader.load_plugins()
    assert counter.read_text() == "x"
    web_providers.clear()
    loader.load_plugins(force=True)
    assert counter.read_text() == "xx"


def test_force_clears_registries(bundled: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    loader.load_plugins()
    (bundled / "web" / "alpha" / "plugin.yaml").unlink()
    loader.load_plugins(force=True)
    assert web_providers.names() == []


def test_missing_env_is_listed_not_fatal(bundled: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    make_web_plugin(bundled, "web/keyed", "keyed", extra_manifest="requires_env:\n  - KEYED_API_KEY\n")
    row = _by_key()["web/keyed"]
    assert row["missing_env"] == ["KEYED_API_KEY"] and row["available"] is False
    assert row["availability"] == "unknown"  # not imported: no provider asked yet, so no verdict …
    assert row["status"].endswith("; KEYED_API_KEY not set")  # … only the fact
    assert web_providers.get("keyed") is not None  # still importable
    row = _by_key()["web/keyed"]  # imported: its provider answers, as %hermes providers shows it
    assert row["availability"] == "available" and row["available"] is True


def test_a_keyless_provider_plugin_is_available_keyless_not_missing_its_key(
    bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    make_web_plugin(bundled, "web/vendor", "vendor", extra_manifest="requires_env:\n  - VENDOR_API_KEY\n")
    provider = web_providers.get("vendor")
    assert provider is not None
    monkeypatch.setattr(type(provider), "is_available", lambda self: False)
    monkeypatch.setattr(type(provider), "is_keyless_available", lambda self: True, raising=False)
    row = _by_key()["web/vendor"]
    assert row["availability"] == "keyless" and row["available"] is True
    assert row["status"] == "loaded; available keyless (VENDOR_API_KEY not set: the keyed API needs it)"
    monkeypatch.setattr(type(provider), "is_keyless_available", lambda self: False)
    row = _by_key()["web/vendor"]
    assert row["availability"] == "unavailable"
    assert row["status"] == "loaded; unavailable: missing VENDOR_API_KEY"


def test_enable_disable_persist(bundled: Path, user: Path, hermetic: Path) -> None:
    make_web_plugin(user, "web/beta", "beta")
    loader.enable("beta")
    data = yaml.safe_load((hermetic / "config.yaml").read_text())
    assert data["plugins"]["enabled"] == ["web/beta"] and data["plugins"]["disabled"] == []
    assert web_providers.get("beta") is not None
    loader.disable("web/beta")
    data = yaml.safe_load((hermetic / "config.yaml").read_text())
    assert data["plugins"] == {"enabled": [], "disabled": ["web/beta"]}
    assert web_providers.get("beta") is None
    with pytest.raises(ValueError, match="hermes-nb plugins list"):
        loader.enable("no-such-plugin")


def test_reset_forgets_modules(bundled: Path) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    assert web_providers.get("alpha") is not None
    from hermes_nb import _state

    _state.reset_all()
    assert not _imported("web/alpha")
    assert web_providers.loader is not None


def test_plugin_magics_and_commands(bundled: Path) -> None:
    make_plugin(
        bundled,
        "magicky",
        "name: magicky\nprovides_tools: [none]\n",
        """
        def shout(line):
            return line.upper()

        def register(ctx):
            ctx.register_magic(shout, kind="line")
            ctx.register_cli_command("magicky", "help text", lambda p: None)
        """,
    )
    magics = loader.get_plugin_magics()
    assert magics["shout"].func("hi") == "HI" and magics["shout"].owner == "magicky"
    assert list(loader.get_plugin_commands()) == ["magicky"]


def test_registry_lookups_under_32_threads(bundled: Path, tmp_path: Path) -> None:
    counter = tmp_path / "calls.txt"
    make_plugin(
        bundled,
        "web/slow",
        "name: slow\nprovides_web_providers: [slow]\n",
        f"""
        import time
        from hermes_nb.plugins.web_provider import WebSearchProvider

        class P(WebSearchProvider):
            name = "slow"
            def is_available(self):
                return True

        def register(ctx):
            open({str(counter)!r}, "a").write("x")
            time.sleep(0.05)
            ctx.register_web_search_provider(P())
        """,
    )
    barrier = threading.Barrier(32)
    results: list[object] = []
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            barrier.wait(timeout=10)
            results.append(web_providers.get("slow"))
            results.append(len(web_providers.list()))
        except BaseException as exc:  # collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    assert not errors
    assert counter.read_text() == "x"  # register() ran exactly once
    providers = [r for r in results if not isinstance(r, int)]
    assert len(providers) == 32 and all(p is providers[0] and p is not None for p in providers)
    assert [r for r in results if isinstance(r, int)] == [1] * 32


def test_guide_web_plugin_loads_unmodified(user: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import shutil

    shutil.copytree(
        TESTS / "fixtures/plugins/guide_web/my-backend", user / "web" / "my-backend"
    )
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(user.parent / "none"))
    loader.enable("web/my-backend")
    row = _by_key()["web/my-backend"]
    assert (row["name"], row["version"], row["missing_env"]) == (
        "web-my-backend",
        "1.0.0",
        ["MY_BACKEND_API_KEY"],
    )
    provider = web_providers.get("my-backend")
    assert provider is not None and provider.display_name == "My Backend"
    assert provider.is_available() is False
    monkeypatch.setenv("MY_BACKEND_API_KEY", "k")
    assert provider.is_available() is True
    assert sys.modules["plugins.web.my_backend"] is sys.modules["hermes_plugins.web__my_backend"]
    assert _by_key()["web/my-backend"]["providers"] == ["web:my-backend"]


def test_guide_image_plugin_loads_unmodified(
    user: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    import base64
    import io
    import shutil
    import types

    from PIL import Image

    buffer = io.BytesIO()
    Image.new("RGB", (4, 4), "orange").save(buffer, format="PNG")
    png = buffer.getvalue()

    shutil.copytree(
        TESTS / "fixtures/plugins/guide_image/my-backend", user / "image_gen" / "my-backend"
    )
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "none"))
    sdk = types.ModuleType("my_backend_sdk")

    class Client:
        def __init__(self, api_key: str) -> None:
            self.api_key = api_key

        def generate(self, **kwargs: object) -> dict:
            return {"image_b64": base64.b64encode(png).decode()}

    sdk.Client = Client  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "my_backend_sdk", sdk)
    monkeypatch.setenv("MY_BACKEND_API_KEY", "k")
    loader.enable("my-backend")  # the guide's `hermes plugins enable my-backend`
    provider = image_providers.get("my-backend")
    assert provider is not None and provider.is_available()
    out = provider.generate("a corgi in a spacesuit", aspect_ratio="square")
    assert out["success"] is True and out["model"] == "my-model-fast"
    assert Path(out["image"]).read_bytes() == png


_HOOKED = """
import json

def ping(args, **kw):
    return json.dumps({"pong": True})

def on_post(**kw):
    pass

def register(ctx):
    ctx.register_tool(name="hk_ping", toolset="hk", handler=ping,
                      schema={"name": "hk_ping", "description": "ping", "parameters": {}})
    ctx.register_hook("post_tool_call", on_post)
"""


def test_force_reload_and_disable_undo_tools_and_hooks(bundled: Path, user: Path) -> None:
    tools = pytest.importorskip("hermes_nb.tools")
    hooks = pytest.importorskip("hermes_nb.plugins.hooks")
    make_plugin(
        user, "hooked", "name: hooked\nprovides_tools: [hk_ping]\nprovides_hooks: [post_tool_call]\n", _HOOKED
    )
    config.set("plugins.enabled", ["hooked"])

    def owned_hooks() -> int:
        return sum(1 for row in hooks.list_hooks() if row.get("owner") == "hooked")

    loader.load_plugins()
    assert tools.registry.get_entry("hk_ping").owner == "hooked" and owned_hooks() == 1
    loader.load_plugins(force=True)
    assert tools.registry.get_entry("hk_ping") is not None and owned_hooks() == 1  # not doubled
    loader.disable("hooked")
    assert tools.registry.get_entry("hk_ping") is None and owned_hooks() == 0
    assert _by_key()["hooked"]["loaded"] is False
    loader.enable("hooked")
    loader.load_plugins()
    assert tools.registry.get_entry("hk_ping") is not None and owned_hooks() == 1


@pytest.mark.parametrize("group", ["console_scripts", "pytest11"])
def test_entry_point_scan_agrees_with_importlib_metadata(group: str) -> None:
    from importlib.metadata import entry_points

    from hermes_nb.plugins.discovery import _scan_entry_points

    fast = _scan_entry_points(group)
    assert fast is not None
    assert sorted(fast) == sorted((ep.name, ep.value) for ep in entry_points(group=group))


def test_manifest_provider_class_without_init(user: Path) -> None:
    """A folder with no __init__.py: the loader registers the class plugin.yaml names; relative
    imports between the plugin's own modules work."""
    make_plugin(
        user,
        "web/declared",
        "name: declared\nkind: backend\nprovider_class: impl.search:Declared\n"
        "provides_web_providers: [declared]\n",
        init=None,
        shared="LABEL = 'Declared search'\n",
    )
    (user / "web" / "declared" / "impl").mkdir()
    (user / "web" / "declared" / "impl" / "search.py").write_text(
        "from hermes_nb.provider_api import WebSearchProvider\n"
        "from ..shared import LABEL\n\n\n"
        "class Declared(WebSearchProvider):\n"
        "    name = 'declared'\n"
        "    display_name = LABEL\n\n"
        "    def is_available(self):\n"
        "        return True\n",
        encoding="utf-8",
    )
    record = loader.enable("web/declared")
    assert record.error is None and record.loaded
    provider = web_providers.get("declared")
    assert provider is not None and provider.display_name == "Declared search"
    assert _by_key()["web/declared"]["providers"] == ["web:declared"]


def test_manifest_provider_class_with_a_register_that_adds_more(user: Path) -> None:
    make_plugin(
        user,
        "image_gen/painter",
        "name: painter\nkind: backend\nprovider_class: provider:Painter\n",
        "def register(ctx):\n    ctx.register_tool('painter_tool', 'painter', {'name': 'painter_tool'}, "
        "lambda args, **kw: '{}')\n",
        provider=(
            "from hermes_nb.provider_api import ImageGenProvider\n\n\n"
            "class Painter(ImageGenProvider):\n"
            "    name = 'painter'\n\n"
            "    def generate(self, prompt, aspect_ratio='landscape', **kwargs):\n"
            "        return {}\n"
        ),
    )
    record = loader.enable("image_gen/painter")
    assert record.error is None, record.error
    assert image_providers.get("painter") is not None
    assert record.registered.tools == ["painter_tool"]


def test_bundled_plugins_need_no_init(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every bundled web and image plugin names its class in plugin.yaml and loads without error."""
    monkeypatch.delenv("HERMES_BUNDLED_PLUGINS", raising=False)
    loader.load_plugins(force=True)
    rows = [r for r in loader.list_plugins() if r["key"].startswith(("web/", "image_gen/"))]
    assert rows and all(r["error"] is None and r["loaded"] for r in rows), [r["error"] for r in rows]
    root = loader.bundled_plugins_dir()
    assert root is not None
    for row in rows:
        fields = yaml.safe_load((root / row["key"] / "plugin.yaml").read_text(encoding="utf-8"))
        assert fields["provider_class"].startswith("provider:"), row["key"]
