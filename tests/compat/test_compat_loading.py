"""Hermes plugins as Hermes loads them: keys in os.environ, exact names over aliases, failed overrides,
today's PluginContext, honest listings and hints, ``plugins validate``, enabling in a running kernel."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import httpx
import pytest
from fixtures.plugins.factory import make_plugin, make_web_plugin
from paths import REPO, TESTS

from hermes_nb import cli, config
from hermes_nb.plugins import hooks, loader
from hermes_nb.plugins.registry import web_providers
from hermes_nb.plugins.validation import validate_plugin

GUIDE_WEB = TESTS / "fixtures/plugins/guide_web/my-backend"

HERMES_STYLE_WEB = """
import os

from agent.web_search_provider import WebSearchProvider


class Provider(WebSearchProvider):
    name = "{name}"

    def is_available(self):
        return bool(os.environ.get("{key}"))

    def search(self, query, limit=5):
        return {{"success": True, "data": {{"web": []}}}}


def register(ctx):
    ctx.register_web_search_provider(Provider())
"""


@pytest.fixture
def user(hermetic: Path) -> Path:
    root = hermetic / "plugins"
    root.mkdir()
    return root


@pytest.fixture
def bundled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = tmp_path / "bundled"
    root.mkdir()
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(root))
    return root


def _enable(hermetic: Path, *keys: str) -> None:
    (hermetic / "config.yaml").write_text("plugins:\n  enabled: [" + ", ".join(keys) + "]\n")


def _rows() -> dict[str, dict]:
    return {row["key"]: row for row in loader.list_plugins()}


# keys ------------------------------------------------------------------------------------------


def test_set_key_reaches_os_environ_for_the_session_only(hermetic: Path) -> None:
    assert "HERMES_SEED_API_KEY" not in os.environ
    config.set_key("HERMES_SEED_API_KEY", "s3cret")
    assert os.environ["HERMES_SEED_API_KEY"] == "s3cret"
    assert not list(hermetic.rglob("*"))  # nothing written anywhere
    config.set_key("HERMES_SEED_API_KEY", None)
    assert "HERMES_SEED_API_KEY" not in os.environ


def test_set_key_is_undone_by_reset_and_restores_an_earlier_value(monkeypatch: pytest.MonkeyPatch) -> None:
    from hermes_nb import _state

    monkeypatch.setenv("HERMES_SEED_API_KEY", "from-shell")
    config.set_key("HERMES_SEED_API_KEY", "from-notebook")
    assert os.environ["HERMES_SEED_API_KEY"] == "from-notebook"
    _state.reset_all()
    assert os.environ["HERMES_SEED_API_KEY"] == "from-shell"


def test_dotenv_is_loaded_before_plugins_import_and_never_overrides(
    hermetic: Path, user: Path, bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ALREADY_SET_API_KEY", "shell")
    (hermetic / ".env").write_text("DOTENV_ONLY_API_KEY=from-file\nALREADY_SET_API_KEY=file\n")
    make_plugin(
        user, "web/envcheck", "name: envcheck\nkind: backend\nprovides_web_providers: [envcheck]\n",
        HERMES_STYLE_WEB.format(name="envcheck", key="DOTENV_ONLY_API_KEY"),
    )
    _enable(hermetic, "web/envcheck")
    provider = web_providers.get("envcheck")
    assert provider is not None and provider.is_available()  # read straight from os.environ
    assert os.environ["ALREADY_SET_API_KEY"] == "shell"


def test_a_guide_plugin_works_with_a_key_from_set_key(
    hermetic: Path, user: Path, bundled: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    shutil.copytree(GUIDE_WEB, user / "web" / "my-backend")
    _enable(hermetic, "web/my-backend")
    seen: list[httpx.Request] = []

    def fake_get(url: str, **kwargs: object) -> httpx.Response:
        request = httpx.Request("GET", url, params=kwargs.get("params"), headers=kwargs.get("headers"))
        seen.append(request)
        return httpx.Response(200, json={"results": [{"title": "T", "url": "https://e.org", "snippet": "s"}]},
                              request=request)

    monkeypatch.setattr(httpx, "get", fake_get)  # the guide's endpoint is api.example.com
    provider = web_providers.get("my-backend")
    assert provider is not None and not provider.is_available()
    config.set_key("MY_BACKEND_API_KEY", "guide-key")
    assert provider.is_available()
    result = provider.search("q", limit=2)
    assert result["success"] and result["data"]["web"][0]["position"] == 1
    assert seen[0].headers["Authorization"] == "Bearer guide-key"


# names -----------------------------------------------------------------------------------------


def test_an_exact_name_replaces_a_bundled_alias(hermetic: Path, user: Path, bundled: Path) -> None:
    make_plugin(
        bundled, "web/brave", "name: web-brave\nkind: backend\nprovides_web_providers: [brave, brave-free]\n",
        HERMES_STYLE_WEB.format(name="brave", key="X").replace(
            "class Provider(WebSearchProvider):",
            "class Provider(WebSearchProvider):\n    aliases = ('brave-free',)",
        ),
    )
    assert web_providers.get("brave-free").name == "brave"  # the alias, while nothing else claims it
    make_web_plugin(user, "web/brave_free", "brave-free")
    _enable(hermetic, "web/brave_free")
    loader.load_plugins(force=True)
    assert web_providers.get("brave-free").name == "brave-free"
    assert web_providers.get("brave").name == "brave"


def test_a_failing_user_override_leaves_the_bundled_provider(
    hermetic: Path, user: Path, bundled: Path
) -> None:
    make_web_plugin(bundled, "web/xai", "xai")
    make_plugin(user, "web/xai", "name: web-xai\nkind: backend\nprovides_web_providers: [xai]\n",
                "import tools.not_a_hermes_module\n")
    _enable(hermetic, "web/xai")
    provider = web_providers.get("xai")
    assert provider is not None and web_providers.owner("xai") == "web/xai"
    row = _rows()["web/xai"]
    assert row["source"] == "user" and "the bundled web/xai is used instead" in row["error"]


def test_an_override_that_fails_after_registering_restores_the_bundled_one(
    hermetic: Path, user: Path, bundled: Path
) -> None:
    make_web_plugin(bundled, "web/alpha", "alpha")
    bundled_alpha = web_providers.get("alpha")
    make_web_plugin(user, "web/beta", "alpha")
    (user / "web" / "beta" / "__init__.py").write_text(
        HERMES_STYLE_WEB.format(name="alpha", key="X") + "    raise RuntimeError('late failure')\n"
    )
    _enable(hermetic, "web/beta")
    loader.get_plugin_manager().ensure_loaded("web")
    assert web_providers.get("alpha") is bundled_alpha


# hints and listings ----------------------------------------------------------------------------


def test_a_missing_hermes_internal_is_named_without_a_pip_hint(
    hermetic: Path, user: Path, bundled: Path
) -> None:
    make_plugin(user, "needs", "name: needs\n",
                "from agent.plugin_llm import PluginLlm\n\ndef register(ctx): pass\n")
    make_plugin(user, "needs_attr", "name: needs_attr\n",
                "from tools.web_tools import _no_such_helper\n\ndef register(ctx): pass\n")
    _enable(hermetic, "needs", "needs_attr")
    rows = {row["key"]: row for row in loader.check_all()}
    assert "uses a Hermes internal hermes_nb does not provide: agent.plugin_llm" in rows["needs"]["error"]
    assert "tools.web_tools._no_such_helper" in rows["needs_attr"]["error"]
    assert "pip install" not in rows["needs"]["error"] + rows["needs_attr"]["error"]


def test_listing_says_not_imported_yet_until_first_use(
    hermetic: Path, user: Path, bundled: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    make_web_plugin(user, "web/lazy", "lazy")
    _enable(hermetic, "web/lazy")
    assert cli.main(["plugins", "list"]) == 0
    out = capsys.readouterr().out
    assert "… not imported yet" in out and "✅" not in out
    assert _rows()["web/lazy"]["available"] is False
    assert cli.main(["plugins", "list", "--check"]) == 0
    assert "✅ loaded" in capsys.readouterr().out


# PluginContext ---------------------------------------------------------------------------------

CONTEXT_PLUGIN = """
import asyncio

def register(ctx):
    assert ctx.plugin_id == "surface"
    ctx.state.set("runs", ctx.state.get("runs", 0) + 1)
    ctx.on_unload(lambda: ctx.state.set("unloaded", True))
    ctx.register_video_gen_provider(type("Veo", (), {"name": "veo"})())
    ctx.register_context_engine(type("Engine", (), {"name": "lcm"})())
    ctx.register_memory_provider(type("Mem", (), {"name": "honcho"})())
    ctx.register_hook("on_stream_delta", lambda **kw: None)
    ctx.register_hook("pre_tool_call", lambda **kw: None)
    schema = {"name": "surface_setting", "parameters": {"type": "object"}}
    ctx.register_tool("surface_setting", "surface", schema,
                      lambda args, **kw: '"%s"' % ctx.get_config("greeting", "none"))
    assert ctx.has_capability("tools.override") is False
"""


def test_todays_plugin_context_surface(hermetic: Path, user: Path, bundled: Path) -> None:
    make_plugin(user, "surface", "name: surface\n", CONTEXT_PLUGIN)
    (hermetic / "config.yaml").write_text(
        "plugins:\n  enabled: [surface]\n  entries:\n    surface:\n      settings:\n        greeting: hi\n"
    )
    row = {r["key"]: r for r in loader.check_all()}["surface"]
    assert row["error"] is None, row["error"]
    # a video provider is used in notebooks now: one that is no VideoGenProvider is ignored, as in Hermes
    assert row["not_used_in_notebooks"] == ["context engine: lcm", "memory provider: honcho"]
    assert row["hooks_not_fired"] == ["on_stream_delta"]
    from hermes_nb.plugins.tool_registry import registry

    assert registry.dispatch("surface_setting", {}) == '"hi"'
    manager = loader.get_plugin_manager()
    record = manager.find("surface")
    assert record.context.state.get("runs") == 1
    loader.disable("surface")
    assert record.context is None
    assert '"unloaded": true' in (hermetic / "plugin-state" / "surface.json").read_text()
    assert not any(h["owner"] == "surface" for h in hooks.list_hooks())


def test_enabling_a_new_plugin_in_a_running_kernel_is_one_call(
    hermetic: Path, user: Path, bundled: Path
) -> None:
    assert web_providers.get("late") is None  # discovery has run
    make_web_plugin(user, "web/late", "late")
    record = loader.enable("web/late")
    assert record.loaded and web_providers.get("late") is not None
    assert "web/late" in config.get("plugins.enabled")


# validate --------------------------------------------------------------------------------------


def test_validate_accepts_the_guide_plugin(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "web" / "my-backend"
    shutil.copytree(GUIDE_WEB, target)
    assert cli.main(["plugins", "validate", str(target)]) == 0
    assert "ok:" in capsys.readouterr().out


def test_validate_a_bundled_provider_folder_with_an_alias(capsys: pytest.CaptureFixture[str]) -> None:
    """No __init__.py (the manifest names the class); brave-free is an alias, listed in the manifest."""
    brave = REPO / "plugins" / "web" / "brave"
    assert cli.main(["plugins", "validate", str(brave)]) == 0
    assert "ok:" in capsys.readouterr().out


def test_validate_reports_one_line_per_problem(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    plugin = make_plugin(
        tmp_path,
        "broken",
        "name: broken\nversion: '1.0'\nkind: sideways\nprovides_tools: [declared_only]\n",
        """
from tools.web_tools import Firecrawl
from hermes_cli.secret_store import vault


def register(ctx):
    pass
""",
    )
    assert cli.main(["plugins", "validate", str(plugin)]) == 1
    lines = capsys.readouterr().out.strip().splitlines()
    assert any("unknown kind 'sideways'" in line for line in lines)
    missing = "Hermes internal hermes_nb does not provide: hermes_cli.secret_store"
    assert any(missing in line for line in lines)
    assert all(line.startswith(str(plugin)) for line in lines)


def test_validate_compares_registrations_and_checks_tools(tmp_path: Path) -> None:
    plugin = make_plugin(
        tmp_path,
        "tooly",
        "name: tooly\nprovides_tools: [good, missing]\n",
        """
import json


def register(ctx):
    schema = {"name": "good", "parameters": {"type": "object", "properties": {}}}
    ctx.register_tool("good", "tooly", schema, lambda args, **kw: json.dumps({"ok": True}))
    bad = {"name": "bad", "parameters": {"type": "object", "properties": {}, "required": ["x"]}}
    ctx.register_tool("bad", "tooly", bad, lambda args, **kw: {"not": "a string"})
    ctx.register_hook("pre_tool_call", lambda **kw: None)
""",
    )
    report = validate_plugin(plugin)
    text = "\n".join(report.problems)
    assert "provides_tools lists 'missing' but register() does not register it" in text
    assert "register() registers 'bad'; add it to provides_tools" in text
    assert "register() registers 'pre_tool_call'; add it to provides_hooks" in text
    assert "tool 'bad': schema requires ['x']" in text
    assert "'good'" not in text.replace("lists 'missing'", "")


def test_hermes_magic_plugins_subcommands(hermetic: Path, user: Path, bundled: Path, tmp_path: Path) -> None:
    from IPython.core.error import UsageError

    from hermes_nb.notebook import commands

    make_web_plugin(user, "web/magic_made", "magic-made")
    listing = repr(commands.run(["plugins"]))
    assert "web/magic_made" in listing and "not enabled" in listing
    assert "✅ loaded" in repr(commands.run(["plugins", "enable", "web/magic_made"]))
    assert web_providers.get("magic-made") is not None
    target = tmp_path / "web" / "my-backend"
    shutil.copytree(GUIDE_WEB, target)
    assert "no problems" in repr(commands.run(["plugins", "validate", str(target)]))
    with pytest.raises(UsageError, match="usage: %hermes plugins"):
        commands.run(["plugins", "frobnicate"])


def test_validate_reports_a_tool_without_a_callable_handler(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    plugin = make_plugin(
        tmp_path,
        "handlerless",
        "name: handlerless\nprovides_tools: [nothing_runs, by_name]\n",
        """
def register(ctx):
    schema = {"name": "x", "parameters": {"type": "object", "properties": {}}}
    ctx.register_tool("nothing_runs", "handlerless", schema, None)
    ctx.register_tool("by_name", "handlerless", schema, "handlerless.run")
""",
    )
    assert cli.main(["plugins", "validate", str(plugin)]) == 1
    out = capsys.readouterr().out
    assert "registers nothing" not in out and "ok:" not in out
    lines = out.strip().splitlines()
    assert any("tool 'nothing_runs' is not registered: no handler (handler=None)" in line for line in lines)
    assert any("tool 'by_name' is not registered: the handler is the string 'handlerless.run'" in line
               for line in lines)
    assert not any("provides_tools lists" in line for line in lines)  # one line per problem, not two
