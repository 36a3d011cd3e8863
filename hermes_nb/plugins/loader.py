"""The plugin loader: discovery, the enable/disable gate, lazy import and per-plugin isolation.

Sources, in order (a later source overrides an earlier one by key; the override is recorded on the
winner and logged):

1. bundled: ``$HERMES_BUNDLED_PLUGINS``, else ``hermes_nb/bundled_plugins/`` (the wheel), else the
   repository's ``plugins/``;
2. user: ``$HERMES_HOME/plugins/``;
3. project: ``./.hermes/plugins/``, only when ``HERMES_ENABLE_PROJECT_PLUGINS`` is truthy;
4. pip: entry points of group ``hermes_agent.plugins``.

A directory holding ``plugin.yaml``/``plugin.yml`` is a plugin; one without, at the top level, is a
category (``web/``, ``image_gen/``) scanned one level deeper. Keys are ``<category>/<dir>`` or, for
flat plugins, the manifest ``name``.

Gate: a key, name or directory name in ``plugins.disabled`` is never loaded (deny wins). Bundled
plugins (backends and general ones such as the calculator) always load otherwise. Every other
plugin loads only when listed in ``plugins.enabled``. ``HERMES_SAFE_MODE=1`` skips every
non-bundled source (Hermes skips all discovery; a notebook still needs its bundled providers).

``discover()`` reads manifests only. Plugin code is imported when its capability is first needed:
the provider registries call ``ensure_loaded`` before ``get``/``list``, the tool and hook registries
call ``ensure_loaded("tools")`` / ``ensure_loaded("hooks")``. A plugin whose import or
``register()`` fails is recorded with its error; every other plugin keeps loading.
"""

from __future__ import annotations

import logging
import os
import threading
import traceback
from collections.abc import Callable
from importlib.metadata import EntryPoint
from pathlib import Path
from types import ModuleType
from typing import Any, cast

from hermes_nb import config
from hermes_nb._services import services
from hermes_nb._state import on_reset
from hermes_nb.errors import HermesError, InvalidInputError
from hermes_nb.plugins import registry
from hermes_nb.plugins.context import CliCommand, PluginContext, PluginMagic
from hermes_nb.plugins.discovery import (
    ENTRY_POINT_GROUP,
    PluginRecord,
    bundled_plugins_dir,
    discover_records,
    truthy,
)
from hermes_nb.plugins.load_errors import NoRegisterError, describe_load_error
from hermes_nb.plugins.modules import (
    NAMESPACE,
    drop_modules,
    import_plugin_module,
    import_provider_class,
    module_name,
)
from hermes_nb.plugins.tool_registry import owner_scope
from hermes_nb.plugins.video_provider import VideoGenProvider
from hermes_nb.plugins.web_provider import WebSearchProvider
from hermes_nb.redaction import redact

__all__ = [
    "CAPABILITIES",
    "ENTRY_POINT_GROUP",
    "PluginManager",
    "PluginRecord",
    "bundled_plugins_dir",
    "check_all",
    "disable",
    "enable",
    "ensure_loaded",
    "get_plugin_commands",
    "get_plugin_magics",
    "get_plugin_manager",
    "import_plugin_module",
    "list_plugins",
    "load_plugins",
    "module_name",
]

log = logging.getLogger(__name__)

CAPABILITIES = ("web", "image_gen", "video_gen", "tools", "hooks", "commands", "magics", "secrets")
_NOT_LOADED_KINDS = ("exclusive", "platform", "model-provider")


def _norm(value: object) -> str:
    return str(value).strip().lower().replace("_", "-")


def _listed(key: str) -> set[str]:
    value = config.get(key) or []
    return {_norm(v) for v in ([value] if isinstance(value, str) else value)}


class PluginManager:
    """Discovers plugins, applies the gate and imports plugin code on demand."""

    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._records: dict[str, PluginRecord] = {}
        self._discovered = False
        self.problems: list[str] = []  # scan issues that belong to no plugin (symlink loops)
        self.cli_commands: dict[str, CliCommand] = {}
        self.commands: dict[str, dict[str, Any]] = {}
        self.magics: dict[str, PluginMagic] = {}
        self.skills: dict[str, dict[str, Any]] = {}
        self.middleware: list[tuple[str, Any, str]] = []

    # discovery ---------------------------------------------------------------------------------

    def discover(self, force: bool = False) -> list[PluginRecord]:
        """Read every manifest (no plugin code runs) and apply the gate; idempotent."""
        with self._lock:
            if self._discovered and not force:
                return list(self._records.values())
            config.export_dotenv()  # Hermes plugins read keys from os.environ, as in Hermes
            services.before_discovery()  # the Hermes import names, before any plugin imports
            problems: list[str] = []
            records = discover_records(problems)
            disabled, enabled = _listed("plugins.disabled"), _listed("plugins.enabled")
            for record in records.values():
                self._gate(record, disabled, enabled)
            self._records, self.problems, self._discovered = records, problems, True
            return list(records.values())

    @staticmethod
    def _ids(record: PluginRecord) -> set[str]:
        ids = {_norm(record.key), _norm(record.manifest.name)}
        if record.manifest.path is not None:
            ids.add(_norm(record.manifest.path.name))
        return ids

    def _gate(self, record: PluginRecord, disabled: set[str], enabled: set[str]) -> None:
        ids = self._ids(record)
        kind = record.manifest.kind
        record.enabled, record.reason = False, ""
        if ids & disabled:
            record.reason = f"disabled via config (run `hermes-nb plugins enable {record.key}`)"
        elif kind in _NOT_LOADED_KINDS:
            record.reason = f"kind '{kind}' plugins are not loaded in notebooks"
        elif record.manifest.source == "bundled" or ids & enabled:
            record.enabled = True
        else:
            record.reason = f"not enabled (run `hermes-nb plugins enable {record.key}`)"

    # lookup ------------------------------------------------------------------------------------

    def find(self, key_or_name: str) -> PluginRecord | None:
        """The plugin whose key, name or directory name is ``key_or_name``."""
        records = self.discover()
        for record in records:
            if record.key == key_or_name:
                return record
        wanted = _norm(key_or_name)
        return next((r for r in records if wanted in self._ids(r)), None)

    def _rescan(self, key_or_name: str) -> PluginRecord | None:
        """Pick up plugins added since discovery (already known ones keep their state)."""
        with self._lock:
            self.discover()
            for key, record in discover_records([]).items():
                if key not in self._records:
                    self._gate(record, _listed("plugins.disabled"), _listed("plugins.enabled"))
                    self._records[key] = record
        return self.find(key_or_name)

    def category_plugin(self, category: str, slug: str) -> PluginRecord | None:
        """The directory plugin ``plugins.<category>.<slug>`` names (``-`` in dir names read as ``_``)."""
        for record in self.discover():
            path = record.manifest.path
            if path is not None and record.category == category and path.name.replace("-", "_") == slug:
                return record
        return None

    # loading -----------------------------------------------------------------------------------

    def _loadable(self) -> list[PluginRecord]:
        return [r for r in self.discover() if r.enabled and not r.attempted and not r.error]

    def ensure_loaded(self, capability: str, name: str | None = None) -> None:
        """Import the enabled plugins that may provide ``capability`` (``name``: that provider only)."""
        if capability not in CAPABILITIES:
            raise InvalidInputError(
                f"unknown capability {capability!r}; use one of {', '.join(CAPABILITIES)}"
            )
        with self._lock:
            candidates = [
                r for r in self._loadable() if capability in r.capabilities or "*" in r.capabilities
            ]
            if name is not None and capability in ("web", "image_gen", "video_gen"):
                wanted = registry.normalize_name(name)
                declared = [r for r in candidates if wanted in r.declares(capability)]
                candidates = declared or [r for r in candidates if not r.declares(capability)]
            for record in candidates:
                self.load(record)

    def load_all(self) -> None:
        with self._lock:
            for record in self._loadable():
                self.load(record)

    def load(self, record: PluginRecord) -> PluginRecord:
        """Import one plugin and call its ``register(ctx)``; failures are recorded, never raised."""
        with self._lock:
            if record.attempted or not record.enabled or record.error:
                return record
            record.attempted = True
            ctx = PluginContext(record.manifest, self)
            try:
                target = self._import(record)
                register = _register_function(record, target)
                with owner_scope(record.key):
                    register(ctx)
            except (Exception, SystemExit) as exc:
                ctx.rollback()
                self._forget_module(record)
                where = record.manifest.entry_point or record.manifest.path or "?"
                record.error = describe_load_error(record.key, where, exc)
                log.warning("plugin %s disabled: %s", record.key, record.error)
                if truthy(os.environ.get("HERMES_PLUGINS_DEBUG")):
                    log.warning("%s", redact("".join(traceback.format_exception(exc))))
                self._fall_back(record)
            else:
                record.loaded = True
                record.module = target
            record.registered = ctx.registered
            record.context = ctx if record.loaded else None
            return record

    def _fall_back(self, record: PluginRecord) -> None:
        """A failed override leaves the plugin it overrode (e.g. the bundled one) in service."""
        shadowed = record.shadowed
        if shadowed is None or shadowed.error:
            return
        self._gate(shadowed, _listed("plugins.disabled"), _listed("plugins.enabled"))
        if shadowed.enabled:
            log.warning("plugin %s: using the %s one instead", record.key, shadowed.manifest.source)
            self.load(shadowed)
            record.error = f"{record.error}; the {shadowed.manifest.source} {record.key} is used instead"

    def unload(self, record: PluginRecord) -> None:
        """Undo what ``register()`` registered; the module stays imported (Python cannot unimport)."""
        with self._lock:
            if record.context is not None:
                record.context.rollback()
                record.registered = record.context.registered
            record.context, record.loaded, record.attempted = None, False, False

    def _import(self, record: PluginRecord) -> Any:
        manifest = record.manifest
        if manifest.source == "entrypoint":
            return EntryPoint(manifest.name, manifest.entry_point, ENTRY_POINT_GROUP).load()
        return import_plugin_module(record)

    @staticmethod
    def _forget_module(record: PluginRecord) -> None:
        if record.manifest.source != "entrypoint":
            drop_modules(module_name(record.key))

    # enable / disable --------------------------------------------------------------------------

    def set_enabled(self, key_or_name: str, enabled: bool) -> PluginRecord:
        """Persist ``plugins.enabled``/``plugins.disabled`` in config.yaml and re-apply the gate."""
        record = self.find(key_or_name) or self._rescan(key_or_name)
        if record is None:
            raise InvalidInputError(
                f"no plugin {key_or_name!r}; run `hermes-nb plugins list` to see the keys"
            )
        ids = self._ids(record)

        def current(key: str) -> list[str]:
            value = config.get(key) or []
            return [str(v) for v in ([value] if isinstance(value, str) else value) if _norm(v) not in ids]

        keep, drop = (
            ("plugins.enabled", "plugins.disabled") if enabled else ("plugins.disabled", "plugins.enabled")
        )
        values = {keep: [*current(keep), record.key], drop: current(drop)}
        config.save(values)
        for key, value in values.items():
            if config.effective(key).source == "runtime":
                config.set(key, value)
        with self._lock:
            self._gate(record, _listed("plugins.disabled"), _listed("plugins.enabled"))
            if not record.enabled and record.loaded:
                self.unload(record)
        return record


def _register_function(record: PluginRecord, target: Any) -> Callable[[PluginContext], None]:
    """What registers the plugin: the provider class its manifest names (then any ``register`` of its
    ``__init__.py``, which may add more), else its ``register(ctx)``."""
    register = getattr(target, "register", None)
    if register is None and callable(target) and not isinstance(target, ModuleType):
        register = target
    if record.manifest.provider_class:
        provider_class = import_provider_class(record)
        extra = register if callable(register) else None

        def register_declared(ctx: PluginContext) -> None:
            provider = provider_class()
            if isinstance(provider, WebSearchProvider):
                ctx.register_web_search_provider(provider)
            elif isinstance(provider, VideoGenProvider):
                ctx.register_video_gen_provider(provider)
            else:
                ctx.register_image_gen_provider(provider)
            if extra is not None:
                extra(ctx)

        return register_declared
    if not callable(register):
        where = record.manifest.entry_point or (record.manifest.path or Path()) / "__init__.py"
        raise NoRegisterError(
            f"no register() function in {where}; define `def register(ctx): ...` there, or name the "
            "provider class in plugin.yaml (provider_class: provider:MyProvider)"
        )
    return cast(Callable[[PluginContext], None], register)


# module-level API ----------------------------------------------------------------------------

_manager: PluginManager | None = None
_manager_lock = threading.Lock()


def get_plugin_manager() -> PluginManager:
    """The process-wide manager (created on first use; discovery happens lazily)."""
    global _manager
    with _manager_lock:
        if _manager is None:
            _manager = PluginManager()
        return _manager


def load_plugins(force: bool = False) -> PluginManager:
    """Discover and import every enabled plugin; ``force=True`` clears the registries and starts over."""
    if force:
        with _manager_lock:
            old = _manager
        if old is not None:
            for record in old.discover():
                old.unload(record)
        _forget()
        registry.web_providers.clear()
        registry.image_providers.clear()
        registry.video_providers.clear()
    manager = get_plugin_manager()
    manager.discover()
    manager.load_all()
    return manager


def ensure_loaded(capability: str, name: str | None = None) -> None:
    """Import the plugins that may provide ``capability`` (one of ``CAPABILITIES``)."""
    get_plugin_manager().ensure_loaded(capability, name)


def list_plugins() -> list[dict[str, Any]]:
    """Every discovered plugin with its state (enabled, loaded, available, missing env, error, ...).

    A loaded plugin that registered web or image providers is available only when one of them can
    answer now (``is_available()``, or a keyless mode): a manifest without ``requires_env`` says
    nothing about keys (Hermes's own firecrawl, xai, exa … declare none).
    """
    rows = [record.to_dict() for record in get_plugin_manager().discover()]
    for row in rows:
        if row["available"] and row["providers"]:
            row["available"] = any(_provider_ready(entry, row["key"]) for entry in row["providers"])
    return rows


def _provider_ready(entry: str, owner: str) -> bool:
    """``"web:firecrawl"`` as registered by ``owner``: its ``is_available()`` or keyless mode is true."""
    kind, _, name = entry.partition(":")
    providers: registry.ProviderRegistry[Any]
    if kind == "web":
        providers = registry.web_providers
    elif kind == "image_gen":
        providers = registry.image_providers
    else:
        return True  # another kind of provider: the listing knows nothing more about it
    if providers.owner(name) != owner:
        return False  # replaced by another plugin's provider of the same name
    provider = providers.get(name)
    for probe in ("is_available", "is_keyless_available"):
        try:
            if bool(getattr(provider, probe, lambda: False)()):
                return True
        except Exception:  # a plugin's probe must not break the listing
            continue
    return False


def enable(key: str) -> PluginRecord:
    """Enable a plugin in a running kernel: write ``plugins.enabled`` in config.yaml, import it now.

    A plugin folder added after discovery is found too; the returned record carries any error.
    """
    manager = get_plugin_manager()
    record = manager.set_enabled(key, True)
    return manager.load(record)


def check_all() -> list[dict[str, Any]]:
    """Import every enabled plugin now (``plugins list --check``) and return the listing."""
    get_plugin_manager().load_all()
    return list_plugins()


def disable(key: str) -> PluginRecord:
    """Add ``key`` to ``plugins.disabled`` in config.yaml; what it registered is removed now."""
    return get_plugin_manager().set_enabled(key, False)


def get_plugin_magics() -> dict[str, PluginMagic]:
    """Magics registered by plugins (the notebook extension installs them on ``%load_ext``)."""
    manager = get_plugin_manager()
    manager.ensure_loaded("magics")
    return dict(manager.magics)


def get_plugin_commands() -> dict[str, CliCommand]:
    """``hermes-nb`` subcommands registered by plugins."""
    manager = get_plugin_manager()
    manager.ensure_loaded("commands")
    return dict(manager.cli_commands)


#: Discovery failures already logged by ``load_for_lookup`` (a registry looks up often).
_reported: set[str] = set()


def load_for_lookup(capability: str, name: str | None) -> None:
    """``ensure_loaded`` for a registry lookup, which must never fail because discovery did."""
    try:
        ensure_loaded(capability, name)
    except HermesError as exc:  # a broken config.yaml: its one line, once, not a traceback per lookup
        if exc.message not in _reported:
            _reported.add(exc.message)
            log.warning("plugins not loaded: %s", exc)
    except Exception:
        log.exception("plugin loading for %s %r failed", capability, name)


def _forget() -> None:
    global _manager
    with _manager_lock:
        _manager = None
    drop_modules(NAMESPACE)


@on_reset
def _reset() -> None:
    _forget()
    _reported.clear()

