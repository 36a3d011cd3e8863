"""``PluginContext``: the ``ctx`` a plugin's ``register(ctx)`` receives (Hermes's API + notebook magics).

Provider registrations with the wrong type log a WARNING and are ignored, never raise, as in
Hermes. Registrations Hermes supports but a notebook has no use for (video, TTS, browser,
platforms, ...) are accepted as no-ops with a warning so such plugins still load.
Everything a plugin registers is recorded on ``ctx.registered`` for attribution.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hermes_nb.plugins import hooks, tool_registry
from hermes_nb.plugins.image_provider import ImageGenProvider
from hermes_nb.plugins.manifest import PluginManifest
from hermes_nb.plugins.registry import image_providers, normalize_name, web_providers
from hermes_nb.plugins.web_provider import WebSearchProvider

if TYPE_CHECKING:
    from hermes_nb.plugins.loader import PluginManager

__all__ = ["MAGIC_KINDS", "CliCommand", "PluginContext", "PluginMagic", "Registrations"]

log = logging.getLogger(__name__)

MAGIC_KINDS = ("line", "cell", "line_cell")
_SKILL_NAME = re.compile(r"^[a-zA-Z0-9_-]+$")
_TOOL_EXTRAS = ("max_result_size_chars", "dynamic_schema_overrides")

#: Hermes registrations with no notebook meaning: accepted, warned about, ignored.
_IGNORED_REGISTRATIONS = frozenset(
    {
        "register_video_gen_provider",
        "register_browser_provider",
        "register_tts_provider",
        "register_transcription_provider",
        "register_dashboard_auth_provider",
        "register_secret_source",
        "register_context_engine",
        "register_memory_provider",
        "register_platform",
        "register_slack_action_handler",
        "register_auxiliary_task",
        "register_system_prompt_section",
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


class PluginContext:
    """What ``register(ctx)`` can do; one context per plugin load."""

    def __init__(self, manifest: PluginManifest, manager: PluginManager) -> None:
        self.manifest = manifest
        self.manager = manager
        self.profile_name = "default"
        self.registered = Registrations()
        self._provider_objects: list[tuple[str, Any]] = []
        self._hook_objects: list[tuple[str, Callable[..., Any]]] = []

    @property
    def owner(self) -> str:
        return self.manifest.key or self.manifest.name

    # providers -------------------------------------------------------------------------------

    def register_web_search_provider(self, provider: Any) -> None:
        self._register_provider("web", provider, WebSearchProvider, self.manifest.provides_web_providers)

    def register_image_gen_provider(self, provider: Any) -> None:
        self._register_provider(
            "image_gen", provider, ImageGenProvider, self.manifest.provides_image_providers
        )

    def _register_provider(self, kind: str, provider: Any, base: type[Any], declared: list[str]) -> None:
        registry: Any = web_providers if kind == "web" else image_providers
        if not isinstance(provider, base):
            log.warning(
                "plugin %s: register_%s_provider() needs a %s instance, got %s; ignored",
                self.owner,
                "web_search" if kind == "web" else "image_gen",
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
            registry: Any = web_providers if kind == "web" else image_providers
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
        self.registered.hooks.append(hook_name)
        self._hook_objects.append((hook_name, callback))

    def dispatch_tool(self, tool_name: str, args: dict[str, Any], **kwargs: Any) -> str:
        result: str = tool_registry.registry.dispatch(tool_name, args, **kwargs)
        return result

    def register_middleware(self, kind: str, callback: Callable[..., Any]) -> None:
        log.warning("plugin %s: %s middleware is stored but not run by hermes_nb", self.owner, kind)
        self.manager.middleware.append((kind, callback, self.owner))
        self.registered.middleware.append(kind)

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
        if attr in _IGNORED_REGISTRATIONS:

            def _ignored(*args: Any, **kwargs: Any) -> None:
                log.warning(
                    "plugin %s called %s(), which hermes_nb does not support; ignored", self.owner, attr
                )

            return _ignored
        raise AttributeError(attr)
