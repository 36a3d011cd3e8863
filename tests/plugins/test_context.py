"""PluginContext: Hermes's ctx API, attribution, tolerant registrations (hermes_nb.plugins.context)."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import pytest

from hermes_nb.plugins import loader
from hermes_nb.plugins.context import PluginContext
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.manifest import PluginManifest
from hermes_nb.plugins.registry import image_providers, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider


class _Web(WebSearchProvider):
    def __init__(self, name: str = "ctx-web") -> None:
        self._name = name

    @property
    def name(self) -> str:
        return self._name

    def is_available(self) -> bool:
        return True


class _Img(ImageGenProvider):
    name = "ctx-img"

    def generate(self, prompt: str, aspect_ratio: str = "landscape", **kw: object) -> dict:
        return {}


@pytest.fixture
def ctx(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PluginContext:
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(tmp_path / "empty"))
    manifest = PluginManifest(name="demo", key="demo", provides_web_providers=["ctx-web"])
    return PluginContext(manifest, loader.get_plugin_manager())


def test_basic_attributes(ctx: PluginContext) -> None:
    assert ctx.manifest.name == "demo" and ctx.profile_name == "default"


def test_providers_are_registered_with_owner(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(_Web())
    ctx.register_image_gen_provider(_Img())
    assert web_providers.owner("ctx-web") == "demo" and image_providers.owner("ctx-img") == "demo"
    assert ctx.registered.providers == ["web:ctx-web", "image_gen:ctx-img"]


def test_wrong_types_warn_and_never_raise(ctx: PluginContext, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING):
        ctx.register_web_search_provider(_Img())
        ctx.register_image_gen_provider("not a provider")
        ctx.register_web_search_provider(_Web(name=""))
    assert "needs a WebSearchProvider instance, got _Img" in caplog.text
    assert "needs a ImageGenProvider instance, got str" in caplog.text
    assert "provider not registered" in caplog.text
    assert ctx.registered.providers == []


def test_same_name_replaces_with_a_log_line(ctx: PluginContext, caplog: pytest.LogCaptureFixture) -> None:
    first, second = _Web(), _Web()
    with caplog.at_level(logging.INFO):
        ctx.register_web_search_provider(first)
        ctx.register_web_search_provider(second)
    assert web_providers.get("ctx-web") is second
    assert "replaces" in caplog.text


def test_undeclared_provider_is_logged(ctx: PluginContext, caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO):
        ctx.register_web_search_provider(_Web("surprise"))
    assert "without declaring it in provides_web_providers" in caplog.text


def test_skills(ctx: PluginContext, tmp_path: Path) -> None:
    skill = tmp_path / "SKILL.md"
    skill.write_text("# skill")
    ctx.register_skill("math-help", skill, description="how to")
    assert ctx.manager.skills["demo:math-help"]["path"] == skill
    with pytest.raises(ValueError, match=r"\[a-zA-Z0-9_-\]\+"):
        ctx.register_skill("bad name!", skill)
    with pytest.raises(FileNotFoundError):
        ctx.register_skill("gone", tmp_path / "missing.md")


def test_magics_commands_middleware(ctx: PluginContext, caplog: pytest.LogCaptureFixture) -> None:
    def wow(line: str) -> str:
        return line

    ctx.register_magic(wow)
    ctx.register_magic(wow, name="wowcell", kind="cell")
    ctx.register_magic(wow, kind="sideways")  # ignored with a warning
    assert {n: m.kind for n, m in ctx.manager.magics.items()} == {"wow": "line", "wowcell": "cell"}
    ctx.register_cli_command("demo-cmd", "help", lambda parser: None, lambda args: 0, description="d")
    ctx.register_command("/Do Thing", lambda raw: "done")
    assert ctx.manager.cli_commands["demo-cmd"].owner == "demo"
    assert ctx.manager.commands["do-thing"]["handler"]("") == "done"
    caplog.set_level("INFO")
    ctx.register_middleware("llm_execution", lambda **kw: None)
    assert "llm_execution middleware; not used in notebooks" in caplog.text
    assert ctx.registered.unused[-1] == "llm_execution middleware"
    assert ctx.registered.commands == ["demo-cmd", "/do-thing"]


def test_unsupported_hermes_registrations_are_listed_not_used(
    ctx: PluginContext, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level("INFO")
    ctx.register_tts_provider(object())
    ctx.register_platform("x", "X", lambda: None, lambda: True)
    ctx.register_memory_provider(object())
    assert ctx.inject_message("hi") is False
    assert caplog.text.count("not used in notebooks") == 3
    assert ctx.registered.unused == ["TTS provider: object", "gateway platform: x", "memory provider: object"]
    with pytest.raises(AttributeError):
        ctx.no_such_method  # noqa: B018 - attribute access is the test


def test_rollback_undoes_everything(ctx: PluginContext) -> None:
    ctx.register_web_search_provider(_Web())
    ctx.register_magic(lambda line: line, name="gone")
    ctx.rollback()
    assert web_providers.get("ctx-web") is None
    assert "gone" not in ctx.manager.magics
    assert ctx.registered.providers == [] and ctx.registered.magics == []


def test_tools_hooks_and_dispatch(ctx: PluginContext) -> None:
    tools = pytest.importorskip("hermes_nb.tools")
    hooks = pytest.importorskip("hermes_nb.plugins.hooks")
    seen: list[str] = []

    def echo(args: dict, **kwargs: object) -> str:
        return json.dumps({"echo": args.get("text")})

    ctx.register_tool(
        name="ctx_echo",
        toolset="demo",
        handler=echo,
        schema={
            "name": "ctx_echo",
            "description": "echo",
            "parameters": {"type": "object", "properties": {}},
        },
    )
    ctx.register_hook("post_tool_call", lambda tool_name, **kw: seen.append(tool_name))
    assert tools.registry.get_entry("ctx_echo").owner == "demo"
    assert json.loads(ctx.dispatch_tool("ctx_echo", {"text": "hi"})) == {"echo": "hi"}
    hooks.invoke_hook("post_tool_call", tool_name="ctx_echo", args={}, result="", task_id="t")
    assert "ctx_echo" in seen
    assert ctx.registered.tools == ["ctx_echo"] and ctx.registered.hooks == ["post_tool_call"]
    ctx.rollback()
    assert tools.registry.get_entry("ctx_echo") is None


def test_plugin_tools_are_attributed_by_the_loader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("hermes_nb.tools")
    from fixtures.plugins.factory import make_plugin

    root = tmp_path / "bundled"
    make_plugin(
        root,
        "toolkit",
        "name: toolkit\nprovides_tools: [tk_ping]\nprovides_hooks: [pre_tool_call]\n",
        """
        import json

        def ping(args, **kw):
            return json.dumps({"pong": True})

        def register(ctx):
            ctx.register_tool(name="tk_ping", toolset="toolkit", handler=ping,
                              schema={"name": "tk_ping", "description": "ping", "parameters": {}})
            ctx.register_hook("pre_tool_call", lambda **kw: None)
        """,
    )
    monkeypatch.setenv("HERMES_BUNDLED_PLUGINS", str(root))
    from hermes_nb import tools

    assert json.loads(tools.registry.dispatch("tk_ping", {})) == {"pong": True}
    row = next(r for r in loader.list_plugins() if r["key"] == "toolkit")
    assert row["tools"] == ["tk_ping"] and row["hooks"] == ["pre_tool_call"]
