"""``PluginContext``: the ``ctx`` a plugin's ``register(ctx)`` receives (Hermes's API + notebook magics).

Notebook semantics of today's Hermes context: ``ctx.state`` (durable JSON per plugin under
``$HERMES_HOME/plugin-state``), ``ctx.emit`` / ``ctx.subscribe`` (the in-process event bus of
``plugins.events``; hermes_nb emits ``search_finished``, ``image_saved`` …),
``ctx.register_redaction_patterns`` (masked in everything hermes_nb prints, logs, caches and
exports), ``ctx.register_secret_source`` (a key lookup asked after the environment and ``.env``),
``ctx.register_middleware`` (``tool_call`` middleware wraps tool calls), ``ctx.dispatch_tool``,
``ctx.has_capability`` and ``ctx.on_unload``; everything a plugin adds is removed when it unloads.

Provider registrations with the wrong type log a WARNING and are ignored, never raise, as in
Hermes. Registrations for backends a notebook does not run (memory, context
engines, model providers, TTS, platforms, ...) are accepted and listed as "registered; not used in
notebooks", so such plugins load. Hooks hermes_nb never fires are kept and listed as such.
Everything a plugin registers is recorded on ``ctx.registered`` for attribution.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_nb import config, redaction
from hermes_nb._services import services
from hermes_nb.plugins import events, hooks, middleware, tool_registry
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.manifest import PluginManifest
from hermes_nb.plugins.plugin_state import PluginState
from hermes_nb.plugins.registry import (
    image_providers,
    normalize_name,
    video_providers,
    web_providers,
)
from hermes_nb.plugins.video_provider import VideoGenProvider
from hermes_nb.plugins.web_provider import WebSearchProvider

if TYPE_CHECKING:
    from hermes_nb.plugins.loader import PluginManager

__all__ = ["FIRED_HOOKS", "MAGIC_KINDS", "CliCommand", "PluginContext", "PluginMagic", "Registrations"]

log = logging.getLogger(__name__)

MAGIC_KINDS = ("line", "cell", "line_cell")
_REGISTRIES: dict[str, Any] = {
    "web": web_providers, "image_gen": image_providers, "video_gen": video_providers
}
_SKILL_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_EXTRAS = ("max_result_size_chars", "dynamic_schema_overrides")
_MISSING = object()

#: Hermes registrations for backends a notebook does not run → what they register, for listings
_UNUSED_REGISTRATIONS: dict[str, str] = {
    "register_memory_provider": "memory provider",
    "register_context_engine": "context engine",
    "register_provider": "model provider",
    "register_model_provider": "model provider",
    "register_browser_provider": "browser provider",
    "register_tts_provider": "TTS provider",
    "register_transcription_provider": "transcription provider",
    "register_dashboard_auth_provider": "dashboard auth provider",
    "register_platform": "gateway platform",
    "register_platform_handler": "gateway platform handler",
    "register_slack_action_handler": "Slack action handler",
    "register_auxiliary_task": "auxiliary task",
    "register_system_prompt_section": "system prompt section",
    "register_context_reference": "context reference",
    "register_approval_transport": "approval transport",
    "register_terminal_environment_provider": "terminal environment provider",
    "register_terminal_provider": "terminal provider",
    "register_cron_provider": "scheduler",
}

#: hooks hermes_nb fires (tool calls, ``hn.hooks.llm_context``, session start/end, ``%hermes`` and plugin
#: commands, plugin skills); others are kept, never run
FIRED_HOOKS = frozenset(
    {
        "pre_tool_call",
        "post_tool_call",
        "transform_tool_result",
        "pre_llm_call",
        "on_session_start",
        "on_session_end",
        "pre_command",
        "on_skill_lifecycle",
    }
)


@dataclass
class CliCommand:
    """A ``hermes-nb <name>`` subcommand contributed by a plugin."""

    name: str
    help: str
    setup_fn: Callable[[Any], Any]
    handler_fn: Callable[[Any], Any] | None
    description: str
    owner: str


@dataclass
class PluginMagic:
    """An IPython magic a plugin registered; ``%load_ext hermes_nb`` installs it."""

    name: str
    func: Callable[..., Any]
    kind: str
    owner: str


@dataclass
class Registrations:
    """What one plugin registered, by kind (names only), for listings and attribution."""

    providers: list[str] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)
    hooks: list[str] = field(default_factory=list)
    commands: list[str] = field(default_factory=list)
    magics: list[str] = field(default_factory=list)
    skills: list[str] = field(default_factory=list)
    middleware: list[str] = field(default_factory=list)
    subscriptions: list[str] = field(default_factory=list)  # event names ("*": every event)
    redaction_patterns: int = 0
    secret_sources: list[str] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)  # "memory provider: honcho", ...


class PluginContext:
    """What ``register(ctx)`` can do; one context per plugin load."""

    def __init__(self, manifest: PluginManifest, manager: PluginManager) -> None:
        self.manifest = manifest
        self.manager = manager
        self.profile_name = "default"
        self.registered = Registrations()
        self._provider_objects: list[tuple[str, Any]] = []
        self._hook_objects: list[tuple[str, Callable[..., Any]]] = []
        self._unload_callbacks: list[Callable[[], Any]] = []
        self._subscriptions: list[Callable[[], None]] = []

    @property
    def owner(self) -> str:
        return self.manifest.key or self.manifest.name

    @property
    def plugin_id(self) -> str:
        """Hermes's registry id of this plugin (its key)."""
        return self.owner

    @property
    def provider_objects(self) -> list[Any]:
        """The web and image provider objects this plugin registered (for its availability)."""
        return [provider for _, provider in self._provider_objects]

    # config, state, lifecycle, capabilities ----------------------------------------------------

    def get_config(self, key: str, default: Any = None) -> Any:
        """``plugins.entries.<plugin_id>.settings.<key>`` from config.yaml (Hermes's legacy ``config``
        subtree as a fallback)."""
        entries = (config.load_config().get("plugins") or {}).get("entries") or {}
        entry = entries.get(self.plugin_id) if isinstance(entries, dict) else None
        for section in ("settings", "config"):
            value: Any = entry.get(section) if isinstance(entry, dict) else None
            for part in str(key).split("."):
                value = value.get(part, _MISSING) if isinstance(value, dict) else _MISSING
            if value is not _MISSING:
                return value
        return default

    def set_config(self, key: str, value: Any) -> None:
        """Write ``plugins.entries.<plugin_id>.settings.<key>`` into config.yaml."""
        config.save({f"plugins.entries.{self.plugin_id}.settings.{key}": value})

    @cached_property
    def state(self) -> PluginState:
        """This plugin's durable JSON state (``ctx.state.get/set/delete/all``)."""
        return PluginState(self.plugin_id)

    def on_unload(self, callback: Callable[[], Any]) -> None:
        """Run ``callback`` when the plugin is unloaded or disabled (reverse order; errors logged)."""
        if not callable(callback):
            raise TypeError("on_unload callback must be callable")
        self._unload_callbacks.append(callback)

    def spawn_task(self, coro: Any, *, name: str | None = None) -> asyncio.Task[Any]:
        """Start ``coro`` on the running loop (the kernel's); unloading the plugin cancels it."""
        if not asyncio.iscoroutine(coro):
            raise TypeError("spawn_task expects a coroutine")
        task = asyncio.get_running_loop().create_task(coro, name=name or f"plugin:{self.plugin_id}:task")
        self.on_unload(lambda: task.done() or task.cancel())
        return task

    def has_plugin(self, plugin_id: str) -> bool:
        """True when another plugin with that key or name is loaded."""
        return any(r.loaded and plugin_id in (r.key, r.manifest.name) for r in self.manager.discover())

    def has_capability(self, capability: str) -> bool:
        """Whether the operator granted ``capability`` (``plugins.entries.<id>.granted_capabilities``);
        bundled plugins may always override tools. Unknown or unreadable → False."""
        if self.manifest.source == "bundled" and capability == "tools.override":
            return True
        try:
            entry = ((config.load_config().get("plugins") or {}).get("entries") or {}).get(self.plugin_id)
        except Exception:  # fail closed: an unreadable config grants nothing
            return False
        if not isinstance(entry, dict):
            return False
        granted = entry.get("granted_capabilities") or []
        legacy = capability == "tools.override" and entry.get("allow_tool_override") is True
        return legacy or (isinstance(granted, list) and capability in granted)

    # providers -------------------------------------------------------------------------------

    def register_web_search_provider(self, provider: Any) -> None:
        self._register_provider("web", provider, WebSearchProvider, self.manifest.provides_web_providers)

    def register_image_gen_provider(self, provider: Any) -> None:
        self._register_provider(
            "image_gen", provider, ImageGenProvider, self.manifest.provides_image_providers
        )

    def register_video_gen_provider(self, provider: Any) -> None:
        """Hermes's video backends: ``%video`` / ``hn.video`` use them (``video_gen.provider`` selects)."""
        declared = self.manifest.provides_video_providers
        self._register_provider("video_gen", provider, VideoGenProvider, declared)

    def _register_provider(self, kind: str, provider: Any, base: type[Any], declared: list[str]) -> None:
        registry: Any = _REGISTRIES[kind]
        if not isinstance(provider, base):
            log.warning(
                "plugin %s: register_%s_provider() needs a %s instance, got %s; ignored",
                self.owner,
                "web_search" if kind == "web" else kind,
                base.__name__,
                type(provider).__name__,
            )
            return
        try:
            registry.register(provider, owner=self.owner)
        except (TypeError, ValueError) as exc:
            log.warning("plugin %s: provider not registered (%s); ignored", self.owner, exc)
            return
        name = normalize_name(provider.name)
        if declared and name not in {normalize_name(d) for d in declared}:
            log.info(
                "plugin %s registered %s provider %r without declaring it in provides_%s_providers; "
                "declare it so the provider can be found before the plugin is imported",
                self.owner,
                kind,
                name,
                kind,
            )
        self.registered.providers.append(f"{kind}:{name}")
        self._provider_objects.append((kind, provider))

    def rollback(self) -> None:
        """Undo what this context registered (``register()`` failed half-way)."""
        for kind, provider in self._provider_objects:
            registry: Any = _REGISTRIES[kind]
            name = normalize_name(provider.name)
            if registry.owner(name) == self.owner:
                registry.unregister(name)
        if self.registered.tools:
            for tool in self.registered.tools:
                tool_registry.registry.deregister(tool)
        if self._hook_objects:
            for hook_name, callback in self._hook_objects:
                hooks.unregister_hook(hook_name, callback)
        for name in self.registered.commands:
            self.manager.cli_commands.pop(name, None)
            self.manager.commands.pop(name.lstrip("/"), None)
        for name in self.registered.magics:
            self.manager.magics.pop(name, None)
        for name in self.registered.skills:
            self.manager.skills.pop(name, None)
        for cancel in self._subscriptions:
            cancel()
        self._subscriptions.clear()
        redaction.unregister_patterns(self._redaction_source)
        config.remove_secret_sources(self.owner)
        middleware.unregister_owner(self.owner)
        for skill in self.registered.skills:
            hooks.invoke_registered(
                "on_skill_lifecycle", action="removed", skill_name=skill, plugin=self.owner
            )
        for callback in reversed(self._unload_callbacks):
            try:
                callback()
            except Exception:  # one failing cleanup must not stop the others
                log.exception("plugin %s: on_unload callback failed", self.owner)
        self._unload_callbacks.clear()
        self._provider_objects.clear()
        self._hook_objects.clear()
        self.registered = Registrations()

    # tools and hooks ---------------------------------------------------------------------------

    def register_tool(
        self,
        name: str,
        toolset: str,
        schema: dict[str, Any],
        handler: Callable[..., Any],
        check_fn: Callable[[], bool] | None = None,
        requires_env: list[str] | None = None,
        is_async: bool = False,
        description: str = "",
        emoji: str = "",
        override: bool = False,
        **kwargs: Any,
    ) -> None:
        extra = {k: v for k, v in kwargs.items() if k in _TOOL_EXTRAS}
        if len(extra) != len(kwargs):
            log.warning(
                "plugin %s: register_tool(%r) ignores %s", self.owner, name, sorted(set(kwargs) - set(extra))
            )
        added = tool_registry.registry.register(
            name,
            toolset,
            schema,
            handler,
            check_fn=check_fn,
            requires_env=requires_env,
            is_async=is_async,
            description=description,
            emoji=emoji,
            override=override,
            owner=self.owner,
            **extra,
        )
        if added:
            self.registered.tools.append(name)

    def register_hook(self, hook_name: str, callback: Callable[..., Any]) -> None:
        """Subscribe to a Hermes hook (unknown names are kept with a warning by ``plugins.hooks``)."""
        if not callable(callback):
            log.warning("plugin %s: hook %r callback is not callable; ignored", self.owner, hook_name)
            return
        hooks.register_hook(hook_name, callback, owner=self.owner)
        if hook_name not in FIRED_HOOKS:
            log.info("plugin %s: hook %r is kept, but hermes_nb never fires it", self.owner, hook_name)
        self.registered.hooks.append(hook_name)
        self._hook_objects.append((hook_name, callback))

    def dispatch_tool(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        result: str = tool_registry.registry.dispatch(tool_name, args, **kwargs)
        return result

    def call_mcp(self, server: str, tool: str, args: dict[str, Any] | None = None) -> str:
        """Call ``tool`` of the MCP server ``server`` of ``mcp.servers`` (its ``allow`` list applies).

        Returns the JSON result string like ``dispatch_tool``: ``{"result": text, "structured"?: ...}``
        or ``{"error": message, "code"?: CODE}`` (not allowed, timed out, server gone); never raises.
        """
        result: str = services.call_mcp(server, tool, args)
        return result

    def register_middleware(self, kind: str, callback: Callable[..., Any]) -> None:
        """``tool_call`` middleware wraps every tool call (``plugins.middleware``); other kinds (LLM
        execution …) are kept and listed as "registered; not used in notebooks"."""
        if not callable(callback):
            log.warning("plugin %s: %s middleware is not callable; ignored", self.owner, kind)
            return
        if not middleware.register(kind, callback, owner=self.owner):
            self.registered.unused.append(f"{kind} middleware")
            log.info("plugin %s registered %s middleware; not used in notebooks", self.owner, kind)
        self.manager.middleware.append((kind, callback, self.owner))
        self.registered.middleware.append(kind)

    # events, redaction, secrets ----------------------------------------------------------------

    def emit(self, event: str, payload: dict[str, Any] | None = None, **fields: Any) -> int:
        """Send ``event`` to its subscribers (``payload`` and ``fields`` merged); returns how many ran."""
        return events.emit(event, {**(payload or {}), **fields}, source=self.owner)

    def subscribe(self, event: str, callback: Callable[[dict[str, Any]], Any]) -> Callable[[], None]:
        """Call ``callback(payload)`` on ``event`` (``"*"``: every event; the payload carries ``event``
        and ``source``); returns a function that unsubscribes. Removed when the plugin unloads."""
        cancel = events.subscribe(event, callback, owner=self.owner)
        self._subscriptions.append(cancel)
        self.registered.subscriptions.append(event)
        return cancel

    @property
    def _redaction_source(self) -> str:
        return f"plugin:{self.owner}"

    def register_redaction_patterns(self, patterns: Any) -> int:
        """Add secret-token regexes masked everywhere hermes_nb prints, logs, caches and exports;
        returns how many were accepted (an invalid one is skipped with a warning, never raised)."""
        if isinstance(patterns, str):
            patterns = [patterns]
        try:
            count = redaction.register_patterns(patterns, source=self._redaction_source)
        except Exception as exc:  # a broken plugin must not break loading
            log.warning("plugin %s: redaction patterns not registered (%s)", self.owner, type(exc).__name__)
            return 0
        self.registered.redaction_patterns += count
        return count

    def register_secret_source(self, source: Any) -> None:
        """A key lookup asked after the session, the environment and ``$HERMES_HOME/.env``.

        ``source`` is a callable ``lookup(NAME) -> value | None`` (a vault, a keyring), or a Hermes
        ``SecretSource`` (``name``, ``fetch(cfg, home_path)`` returning ``.secrets``), used when its
        ``secrets.<name>`` section is enabled, as in Hermes. Values it gives are masked everywhere.
        """
        if hasattr(source, "fetch") and callable(source.fetch):
            lookup: Callable[[str], Any] = _HermesSecretSource(source, self.owner)
            label = str(getattr(source, "name", "") or type(source).__name__)
        elif callable(source):
            lookup, label = source, str(getattr(source, "__qualname__", type(source).__name__))
        else:
            log.warning(
                "plugin %s: register_secret_source needs a lookup(name) callable or a SecretSource; "
                "got %s, ignored",
                self.owner,
                type(source).__name__,
            )
            return
        config.add_secret_source(lookup, owner=self.owner)
        self.registered.secret_sources.append(label)

    # commands, skills, magics ------------------------------------------------------------------

    def register_cli_command(
        self,
        name: str,
        help: str,  # noqa: A002 - Hermes's keyword name
        setup_fn: Callable[[Any], Any],
        handler_fn: Callable[[Any], Any] | None = None,
        description: str = "",
    ) -> None:
        if not isinstance(name, str) or not name.strip() or not callable(setup_fn):
            log.warning("plugin %s: register_cli_command needs a name and a setup_fn; ignored", self.owner)
            return
        name = name.strip()
        self.manager.cli_commands[name] = CliCommand(
            name, help, setup_fn, handler_fn, description, self.owner
        )
        self.registered.commands.append(name)

    def register_command(
        self, name: str, handler: Callable[..., Any], description: str = "", args_hint: str = ""
    ) -> None:
        """A Hermes slash command; kept so ``%hermes`` can list and run it."""
        if not isinstance(name, str) or not callable(handler):
            log.warning("plugin %s: register_command needs a name and a handler; ignored", self.owner)
            return
        clean = name.strip().lstrip("/").lower().replace(" ", "-")
        self.manager.commands[clean] = {
            "name": clean,
            "handler": handler,
            "description": description,
            "args_hint": args_hint,
            "owner": self.owner,
        }
        self.registered.commands.append(f"/{clean}")

    def register_skill(self, name: str, path: Path | str, description: str = "") -> None:
        if not isinstance(name, str) or not _SKILL_NAME.match(name):
            raise ValueError(f"skill name {name!r} must match [a-zA-Z0-9_-]+ (plugin {self.owner})")
        skill_path = Path(path)
        if not skill_path.exists():
            raise FileNotFoundError(f"skill {name!r} of plugin {self.owner}: {skill_path} does not exist")
        qualified = f"{self.manifest.name}:{name}"
        self.manager.skills[qualified] = {"name": qualified, "path": skill_path, "description": description}
        self.registered.skills.append(qualified)
        hooks.invoke_hook(
            "on_skill_lifecycle",
            action="registered",
            skill_name=qualified,
            plugin=self.owner,
            path=str(skill_path),
        )

    def register_magic(self, func: Callable[..., Any], name: str | None = None, kind: str = "line") -> None:
        """Notebook addition: ``%name`` (``kind`` = line, cell or line_cell) once the extension loads."""
        magic_name = str(name or getattr(func, "__name__", ""))
        if not callable(func) or kind not in MAGIC_KINDS or not magic_name.isidentifier():
            log.warning(
                "plugin %s: register_magic needs a function, an identifier name and kind in %s; ignored",
                self.owner,
                ", ".join(MAGIC_KINDS),
            )
            return
        self.manager.magics[magic_name] = PluginMagic(magic_name, func, kind, self.owner)
        self.registered.magics.append(magic_name)

    def inject_message(self, content: str, role: str = "user") -> bool:
        """Hermes injects into a live chat; a notebook has none, so nothing is injected."""
        return False

    def __getattr__(self, attr: str) -> Any:
        what = _UNUSED_REGISTRATIONS.get(attr)
        if what is None:
            raise AttributeError(attr)

        def _record(*args: Any, **kwargs: Any) -> None:
            subject = args[0] if args else next(iter(kwargs.values()), None)
            name = subject if isinstance(subject, str) else getattr(subject, "name", type(subject).__name__)
            self.registered.unused.append(f"{what}: {name}")
            log.info("plugin %s registered a %s (%s); not used in notebooks", self.owner, what, name)

        return _record


class _HermesSecretSource:
    """A Hermes ``SecretSource`` as a lookup: fetched once when ``secrets.<name>`` is enabled."""

    def __init__(self, source: Any, owner: str) -> None:
        self.source, self.owner = source, owner
        self._values: dict[str, str] | None = None

    def _enabled(self, section: dict[str, Any]) -> bool:
        check = getattr(self.source, "is_enabled", None)
        try:
            return bool(check(section)) if callable(check) else bool(section.get("enabled"))
        except Exception:
            return False

    def _fetch(self) -> dict[str, str]:
        name = str(getattr(self.source, "name", "") or "")
        section = config.get(f"secrets.{name}") if name else None
        section = section if isinstance(section, dict) else {}
        if not self._enabled(section):
            return {}
        try:
            result = self.source.fetch(section, config.get_hermes_home())
        except Exception as exc:  # Hermes's contract says fetch never raises; a plugin may
            log.warning("secret source %s of %s failed (%s)", name, self.owner, type(exc).__name__)
            return {}
        error = getattr(result, "error", None)
        if error:
            log.warning("secret source %s of %s: %s", name, self.owner, redaction.redact(str(error)))
        found = getattr(result, "secrets", result)
        return {str(k): str(v) for k, v in found.items() if v} if isinstance(found, dict) else {}

    def __call__(self, key: str) -> str | None:
        if self._values is None:
            self._values = self._fetch()
            for value in self._values.values():
                redaction.register_secret(value)
        return self._values.get(key)
