"""Today's PluginContext with notebook semantics: state, secrets, redaction, events, middleware, hooks.

The first test is the issue's acceptance test: a real plugin folder in ``$HERMES_HOME/plugins`` that
uses ``ctx.state``, ``ctx.register_redaction_patterns`` and ``ctx.register_secret_source``.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import hermes_nb as hn
from hermes_nb import config, redaction, tools, web
from hermes_nb.plugins import events, hooks, loader
from hermes_nb.plugins.context import FIRED_HOOKS, PluginContext
from hermes_nb.plugins.manifest import PluginManifest

VAULT_KEY = "vault-held-7f3a9c21"
ACCOUNT = "acct-204917"

_VAULTED = """
import logging

log = logging.getLogger("hermes_plugins.vaulted")
VAULT = {"BRAVE_SEARCH_API_KEY": "VAULT_KEY"}


def count(ctx, key):
    ctx.state.set(key, ctx.state.get(key, 0) + 1)


def register(ctx):
    count(ctx, "loads")
    ctx.register_secret_source(lambda name: VAULT.get(name))
    ctx.register_redaction_patterns([r"(?i)acct-[0-9]{6}", r"(a+)+b", "x"])
    ctx.subscribe("search_finished", lambda event: count(ctx, "searches"))
    log.warning("vault opened for account %s", "ACCOUNT")
""".replace("VAULT_KEY", VAULT_KEY).replace("ACCOUNT", ACCOUNT)


@pytest.fixture
def vaulted(hermetic: Path) -> Path:
    folder = hermetic / "plugins" / "vaulted"
    folder.mkdir(parents=True)
    (folder / "plugin.yaml").write_text("name: vaulted\nversion: 1.0.0\ndescription: a vault\n")
    (folder / "__init__.py").write_text(_VAULTED)
    config.set("plugins.enabled", ["vaulted"])
    return folder


@pytest.fixture
def emu() -> Iterator[Any]:
    from hermes_nb.testing import Emulator, use_emulator

    with Emulator(seed=0) as emulator, use_emulator(emulator, ["brave"]):
        config.set_key("BRAVE_SEARCH_API_KEY", None)  # only the plugin's vault has it now
        config.set("web.search_backend", "brave")
        yield emulator


def test_state_secret_source_and_redaction_patterns(
    vaulted: Path, emu: Any, hermetic: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO)
    result = web.search(f"{ACCOUNT} invoices", limit=3)
    # the key came from the plugin's secret source and was used by the provider
    (sent,) = emu.requests_for("brave")
    assert sent.headers["x-subscription-token"] == VAULT_KEY
    assert result.provider == "brave" and result.hits
    # ... and never shows: printed output, logs, the cache, an exported cassette
    bundle = result._repr_mimebundle_()
    printed = bundle["text/plain"] + bundle["text/html"] + repr(result)
    assert VAULT_KEY not in printed and ACCOUNT not in printed and "*** invoices" in bundle["text/plain"]
    assert "vault opened for account ***" in caplog.text and ACCOUNT not in caplog.text
    assert VAULT_KEY not in caplog.text
    store_bytes = b"".join(p.read_bytes() for p in hermetic.rglob("*.sqlite3*"))
    assert store_bytes and VAULT_KEY.encode() not in store_bytes
    assert ACCOUNT.encode() not in store_bytes.lower()  # not even Title-Cased: the pattern is (?i)
    web.search("plain invoices", limit=2)  # a request without a secret is cached and exported
    exported = hn.cache.export(tmp_path / "run.cassette.json")
    text = Path(exported).read_text()
    assert "plain invoices" in text and VAULT_KEY not in text and ACCOUNT.lower() not in text.lower()
    # the invalid patterns were refused, the good one counted
    row = next(r for r in loader.list_plugins() if r["key"] == "vaulted")
    assert row["loaded"]
    assert (
        "skipping redaction pattern '(a+)+b'" in caplog.text
        and "skipping redaction pattern 'x'" in caplog.text
    )
    # state: durable JSON under $HERMES_HOME; survives a reload
    state_file = hermetic / "plugin-state" / "vaulted.json"
    assert json.loads(state_file.read_text()) == {"loads": 1, "searches": 2}
    loader.load_plugins(force=True)
    web.search("second look", limit=2, no_cache=True)
    assert json.loads(state_file.read_text()) == {"loads": 2, "searches": 3}
    assert not list(state_file.parent.glob("*.tmp"))  # atomic writes leave no partial file


def test_unloading_removes_source_patterns_and_subscriptions(vaulted: Path, emu: Any) -> None:
    web.search("first", limit=1)
    assert config.resolve_key("BRAVE_SEARCH_API_KEY") == VAULT_KEY
    assert redaction.redact(f"id {ACCOUNT}") == "id ***"
    assert any(s["owner"] == "vaulted" for s in events.subscriptions())
    loader.disable("vaulted")
    assert config.resolve_key("BRAVE_SEARCH_API_KEY") is None
    assert redaction.redact(f"id {ACCOUNT}") == f"id {ACCOUNT}"
    assert not any(s["owner"] == "vaulted" for s in events.subscriptions())


@pytest.fixture
def ctx() -> PluginContext:
    return PluginContext(PluginManifest(name="demo", key="demo"), loader.get_plugin_manager())


def test_secret_source_comes_after_the_environment_and_dotenv(
    ctx: PluginContext, hermetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    asked: list[str] = []

    def vault(name: str) -> str | None:
        asked.append(name)
        return {"ACME_API_KEY": "from-the-vault-1", "OTHER_KEY": "other-vault-2"}.get(name)

    ctx.register_secret_source(vault)
    monkeypatch.setenv("ACME_API_KEY", "from-the-environment")
    assert config.resolve_key("ACME_API_KEY") == "from-the-environment" and asked == []
    monkeypatch.delenv("ACME_API_KEY")
    (hermetic / ".env").write_text("ACME_API_KEY=from-dotenv-file\n")
    assert config.resolve_key("ACME_API_KEY") == "from-dotenv-file" and asked == []
    assert config.resolve_key("OTHER_KEY") == "other-vault-2"
    assert redaction.redact("x other-vault-2 y") == "x *** y"  # a vault value is a secret whatever its name
    ctx.register_secret_source("not callable")  # ignored with a warning
    assert ctx.registered.secret_sources == [
        "test_secret_source_comes_after_the_environment_and_dotenv.<locals>.vault"
    ]


def test_a_failing_source_never_leaks_or_breaks(ctx: PluginContext, caplog: pytest.LogCaptureFixture) -> None:
    def broken(name: str) -> str:
        raise RuntimeError("token=super-secret-in-message")

    ctx.register_secret_source(broken)
    assert config.resolve_key("NOPE_API_KEY") is None
    assert "RuntimeError" in caplog.text and "super-secret-in-message" not in caplog.text


class _FetchResult:
    def __init__(self, secrets: dict[str, str], error: str | None = None) -> None:
        self.secrets, self.error = secrets, error


class _HermesStyleSource:
    """Hermes's SecretSource contract: name, fetch(cfg, home_path) → result.secrets; off unless enabled."""

    name = "demovault"
    calls = 0

    def fetch(self, cfg: dict[str, Any], home_path: Path) -> _FetchResult:
        _HermesStyleSource.calls += 1
        assert isinstance(home_path, Path) and cfg.get("enabled") is True
        return _FetchResult({"DEMO_API_KEY": "hermes-source-value-9"})


def test_hermes_secret_source_is_used_when_enabled(ctx: PluginContext) -> None:
    ctx.register_secret_source(_HermesStyleSource())
    assert config.resolve_key("DEMO_API_KEY") is None  # secrets.demovault not enabled
    ctx.rollback()
    _HermesStyleSource.calls = 0
    config.set("secrets.demovault", {"enabled": True})
    ctx.register_secret_source(_HermesStyleSource())
    assert config.resolve_key("DEMO_API_KEY") == "hermes-source-value-9"
    assert config.resolve_key("DEMO_API_KEY") == "hermes-source-value-9" and _HermesStyleSource.calls == 1


def test_redaction_pattern_rules_and_counts(ctx: PluginContext) -> None:
    accepted = ctx.register_redaction_patterns(
        [r"tok_[A-Za-z0-9]{8,}", r"ab|.*", r"(a+)+", ".*", "(", "", 7, r"tok_[A-Za-z0-9]{8,}"]
    )
    assert accepted == 1 and ctx.registered.redaction_patterns == 1
    assert redaction.redact("use tok_ABCDEFGH12 now") == "use *** now"
    assert ctx.register_redaction_patterns(r"cust-\d{4}") == 1
    assert redaction.mask_known("cust-1234") == "***"
    ctx.rollback()
    assert redaction.redact("tok_ABCDEFGH12") == "tok_ABCDEFGH12"


def test_event_bus_and_sdk_events(ctx: PluginContext) -> None:
    seen: list[dict[str, Any]] = []
    everything: list[str] = []
    cancel = ctx.subscribe("custom", seen.append)
    ctx.subscribe("*", lambda e: everything.append(e["event"]))
    ctx.subscribe("custom", lambda e: 1 / 0)  # a failing subscriber is logged, never raised
    assert ctx.emit("custom", {"a": 1}, b=2) == 2
    assert seen == [{"a": 1, "b": 2, "event": "custom", "source": "demo"}]
    cancel()
    ctx.emit("custom")
    assert len(seen) == 1 and everything == ["custom", "custom"]
    with pytest.raises(TypeError):
        ctx.subscribe("custom", "nope")  # type: ignore[arg-type]
    assert set(events.EVENTS) == {"search_finished", "extract_finished", "crawl_finished", "image_saved"}


def test_sdk_announces_searches_and_images(ctx: PluginContext) -> None:
    from hermes_nb import images
    from hermes_nb.testing import Emulator, use_emulator

    got: list[dict[str, Any]] = []
    ctx.subscribe("*", got.append)
    with Emulator(seed=0) as emulator, use_emulator(emulator, ["brave", "openai"]):
        config.set("web.search_backend", "brave")
        config.set("image_gen.provider", "openai")
        web.search("otters", limit=2)
        web.search("otters", limit=2)  # from the cache: announced as cached
        image = images.imagine("an otter", aspect_ratio="square")
    names = [e["event"] for e in got]
    assert names == ["search_finished", "search_finished", "image_saved"]
    assert got[0]["query"] == "otters" and got[0]["provider"] == "brave" and got[0]["cached"] is False
    assert got[1]["cached"] is True
    assert got[2]["path"] == str(image.path) and got[2]["provider"] == "openai"


def test_tool_call_middleware_wraps_tool_calls(ctx: PluginContext) -> None:
    calls: list[str] = []

    def echo(args: dict[str, Any], **kw: Any) -> str:
        return json.dumps({"echo": args.get("text")})

    parameters = {"type": "object", "properties": {"text": {"type": "string"}}}
    ctx.register_tool(
        "mw_echo", "mw", {"name": "mw_echo", "description": "echo", "parameters": parameters}, echo
    )

    def outer(name: str, args: dict[str, Any], call_next: Any, **context: Any) -> str:
        calls.append(f"outer:{name}")
        return call_next({**args, "text": args["text"].upper()})

    def inner(name: str, args: dict[str, Any], call_next: Any, **context: Any) -> str:
        calls.append("inner")
        result = json.loads(call_next(args))
        return json.dumps({**result, "wrapped": True, "has_session": "session_id" in context})

    ctx.register_middleware("tool_call", outer)
    ctx.register_middleware("tool_execution", inner)
    assert tools.call("mw_echo", {"text": "hi"}) == {
        "echo": "HI",
        "wrapped": True,
        "has_session": True,
    }
    assert calls == ["outer:mw_echo", "inner"] and ctx.registered.unused == []
    ctx.register_middleware("tool_call", lambda name, args, call_next, **c: 42)
    assert "Tool middleware failed" in tools.call("mw_echo", {"text": "x"})["error"]
    ctx.rollback()
    assert "Unknown tool" in tools.call("mw_echo", {"text": "x"})["error"]  # the tool went with the plugin


def test_newer_hermes_hooks_are_accepted_and_some_fire(ctx: PluginContext, tmp_path: Path) -> None:
    fired: list[tuple[str, dict[str, Any]]] = []
    for name in ("on_stream_start", "on_stream_delta", "on_stream_end", "transform_api_error_classification",
                 "gateway_platform_event", "pre_context_compression", "on_compression_complete"):  # fmt: skip
        assert name in hooks.VALID_HOOKS
        ctx.register_hook(name, lambda **kw: None)
    ctx.register_hook("on_skill_lifecycle", lambda **kw: fired.append(("skill", kw)))
    ctx.register_hook("pre_command", lambda **kw: fired.append(("command", kw)))
    assert {"pre_command", "on_skill_lifecycle"} <= FIRED_HOOKS
    skill = tmp_path / "SKILL.md"
    skill.write_text("# s")
    ctx.register_skill("notes", skill)
    ours = [kw for kind, kw in fired if kind == "skill" and kw["skill_name"] == "demo:notes"]
    assert len(ours) == 1 and ours[0]["action"] == "registered" and ours[0]["plugin"] == "demo"
    from hermes_nb.notebook import commands

    commands.run(["providers", "web"])
    assert fired[-1][0] == "command" and fired[-1][1]["command"] == "providers"
    assert fired[-1][1]["args"] == ["web"]


def test_pre_command_can_block(ctx: PluginContext) -> None:
    from IPython.core.error import UsageError

    from hermes_nb.notebook import commands

    ctx.register_hook(
        "pre_command", lambda command, **kw: {"action": "block", "message": f"no {command} here"}
    )
    with pytest.raises(UsageError, match="no providers here"):
        commands.run(["providers"])


def test_other_registrations_are_listed_not_used(ctx: PluginContext) -> None:
    for method in ("register_tts_provider", "register_transcription_provider", "register_browser_provider",
                   "register_terminal_environment_provider", "register_platform", "register_memory_provider",
                   "register_context_engine"):  # fmt: skip
        getattr(ctx, method)(object())
    assert len(ctx.registered.unused) == 7
    assert ctx.registered.unused[0].startswith("TTS provider")


def test_hermes_agent_redact_is_served(hermetic: Path) -> None:
    loader.get_plugin_manager().discover()  # installs the finder, as the loader does
    from agent.redact import redact_sensitive_text, register_redaction_patterns

    assert register_redaction_patterns([r"hx_[0-9a-f]{8}", "("], source="plugin:x") == 1
    assert redact_sensitive_text("token hx_0123abcd") == "token ***" and redact_sensitive_text(5) == 5
