"""``%hermes`` subcommands: plugins, providers, use, config, tools, cache, doctor, mcp.

Each subcommand takes its argument tokens and returns a displayable answer (a ``Table`` or a
``Message``); errors are ``UsageError`` lines or ``HermesError``s that the magic turns
into one line.
"""

from __future__ import annotations

import html
import json
from collections.abc import Callable
from typing import Any

from IPython.core.error import UsageError

from hermes_nb.notebook.rendering import BOX, HEAD, MUTED

__all__ = ["run", "SUBCOMMANDS", "Table", "Message"]


class Table:
    """A small titled table for ``%hermes`` listings: HTML with escaped cells and aligned plain text."""

    def __init__(self, title: str, headers: list[str], rows: list[list[Any]], note: str = "") -> None:
        self.title, self.headers, self.note = title, headers, note
        self.rows = [["" if c is None else str(c) for c in row] for row in rows]

    def __repr__(self) -> str:
        widths = [len(h) for h in self.headers]
        for row in self.rows:
            widths = [max(w, len(c)) for w, c in zip(widths, row, strict=True)]
        fmt = "  ".join(f"{{:<{w}}}" for w in widths)
        lines = [self.title, fmt.format(*self.headers).rstrip()]
        lines += [fmt.format(*row).rstrip() for row in self.rows]
        if self.note:
            lines.append(self.note)
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        cell = "padding:2px 8px;border-bottom:1px solid rgba(127,127,127,.3);text-align:left;color:inherit"
        head = "".join(f'<th style="{cell}">{html.escape(h)}</th>' for h in self.headers)
        body = "".join(
            "<tr>" + "".join(f'<td style="{cell}">{html.escape(c)}</td>' for c in row) + "</tr>"
            for row in self.rows
        )
        note = f'<div style="{MUTED}">{html.escape(self.note)}</div>' if self.note else ""
        return (
            f'<div class="hermes-nb" style="{BOX}"><div style="{HEAD}">{html.escape(self.title)}</div>'
            f'<table style="border-collapse:collapse;color:inherit"><tr>{head}</tr>{body}</table>{note}</div>'
        )


class Message:
    """A one-line answer of a ``%hermes`` command (stable text, escaped HTML)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def __repr__(self) -> str:
        return self.text

    def _repr_html_(self) -> str:
        return f'<div class="hermes-nb" style="{BOX}">{html.escape(self.text)}</div>'


def run(tokens: list[str]) -> Any:
    """Dispatch ``%hermes <subcommand> args…``."""
    if not tokens:
        raise UsageError(f"%hermes needs a subcommand: {', '.join(SUBCOMMANDS)} (see %hermes?)")
    command = SUBCOMMANDS.get(tokens[0])
    if command is None:
        raise UsageError(f"unknown %hermes subcommand {tokens[0]!r}; use one of {', '.join(SUBCOMMANDS)}")
    return command(tokens[1:])


def _expect(args: list[str], allowed: int, usage: str) -> None:
    if len(args) > allowed:
        raise UsageError(f"unexpected argument(s) {' '.join(args[allowed:])!r}; usage: {usage}")


_PLUGINS_USAGE = "%hermes plugins [--check | enable KEY | validate PATH]"


def _cmd_plugins(args: list[str]) -> Any:
    from hermes_nb.plugins import loader  # lazy: keeps %load_ext fast

    if args[:1] == ["validate"] and len(args) == 2:
        from hermes_nb.plugins.validation import validate_plugin  # lazy: spawns the checking subprocess

        report = validate_plugin(args[1])
        lines = report.problems or [f"✅ {report.path}: no problems"]
        return Table("plugins validate", ["problem" if report.problems else "result"], [[x] for x in lines])
    if args[:1] == ["enable"] and len(args) == 2:
        record = loader.enable(args[1])  # one call: writes plugins.enabled and imports it now
        args = []
        if record.error:
            raise UsageError(record.error)
    if args not in ([], ["--check"]):
        raise UsageError(f"unexpected argument(s) {' '.join(args)!r}; usage: {_PLUGINS_USAGE}")
    rows = []
    for info in loader.check_all() if args else loader.list_plugins():
        if info.get("error"):
            status = f"❌ {info['error']}"
        elif not info.get("enabled"):
            status = f"– {info.get('reason') or 'disabled'}"
        elif not info.get("loaded"):
            status = "… not imported yet (imported on first use; %hermes plugins --check imports it now)"
        elif info.get("missing_env"):
            status = f"❌ missing {', '.join(info['missing_env'])}"
        else:
            status = "✅ loaded"
        extras = [f"registered; not used in notebooks: {', '.join(info.get('not_used_in_notebooks') or [])}",
                  f"hooks hermes_nb never fires: {', '.join(info.get('hooks_not_fired') or [])}"]
        status += "".join(f"; {e}" for e in extras if not e.endswith(": "))
        rows.append([info["key"], info.get("version", ""), info.get("source", ""), status])
    return Table("Plugins", ["plugin", "version", "source", "status"], rows)


def _cmd_providers(args: list[str]) -> Any:
    _expect(args, 1, "%hermes providers [web|image_gen]")
    kinds = args or ["web", "image_gen"]
    if any(k not in ("web", "image_gen") for k in kinds):
        raise UsageError("%hermes providers takes 'web' or 'image_gen'")
    if args:  # one kind: the full listing (tier, keyless, why not, docs), as hn.providers(kind)
        from hermes_nb.catalog import providers  # lazy: keeps %load_ext fast

        return providers(args[0])

    rows: list[list[Any]] = []
    if "web" in kinds:
        from hermes_nb.web import listing  # lazy: keeps %load_ext fast

        for row in listing.describe():
            mark = "✅" if row.available else f"❌ {row.why_not}"
            chosen = ", ".join(row.selected_for) or "–"
            rows.append(["web", row.name, ", ".join(row.capabilities), mark, chosen])
    if "image_gen" in kinds:
        from hermes_nb import images  # lazy: keeps %load_ext fast

        for info in images.describe_image_providers():
            mark = "✅" if info["available"] else f"❌ {info['setup']}"
            rows.append(["image_gen", info["name"], "image", mark, "image" if info["active"] else "–"])
    return Table(
        "Providers",
        ["kind", "provider", "capabilities", "available", "selected for"],
        rows,
        note="Select one with %hermes use search|extract|crawl|image <provider> (auto: back to auto).",
    )


_USE_KEYS = {
    "search": "web.search_backend",
    "extract": "web.extract_backend",
    "crawl": "web.crawl_backend",
    "image": "image_gen.provider",
}


def _cmd_use(args: list[str]) -> Any:
    if len(args) != 2 or args[0] not in _USE_KEYS:
        raise UsageError("usage: %hermes use search|extract|crawl|image <provider>  (or 'auto')")
    from hermes_nb import config  # lazy: keeps %load_ext fast
    from hermes_nb.errors import ProviderNotFoundError  # lazy: keeps %load_ext fast
    from hermes_nb.plugins.registry import image_providers, web_providers  # lazy: keeps %load_ext fast

    capability, name = args
    key = _USE_KEYS[capability]
    if name == "auto":
        config.unset(key)
        config.set(key, None)
        return Message(f"{capability}: automatic provider selection")
    registry: Any = image_providers if capability == "image" else web_providers
    provider = registry.get(name)
    if provider is None:
        known = ", ".join(registry.names()) or "none"
        raise ProviderNotFoundError(f"no {registry.kind} provider called {name!r}; known: {known}")
    config.set(key, name)
    done = f"{capability}: using {name} ({key} = {name!r} for this session)"
    if _ready(provider, capability):
        return Message(done)
    from hermes_nb.plugins.setup_hints import setup_hint  # lazy: keeps %load_ext fast

    # Said now, not at the next search: the choice is kept, and this is what it still needs.
    return Message(f"{done}. ⚠️ {name} is not ready yet: {setup_hint(provider, registry.owner(name))}")


def _ready(provider: Any, capability: str) -> bool:
    try:
        if capability == "image":
            return bool(provider.is_available())
        from hermes_nb.web import selection  # lazy: keeps %load_ext fast

        return selection.is_available(provider)
    except Exception:
        return False


def _cmd_config(args: list[str]) -> Any:
    from hermes_nb import config  # lazy: keeps %load_ext fast

    action = args[0] if args else "show"
    if action == "show":
        _expect(args, 1, "%hermes config show")
        rows = [[item.key, json.dumps(item.value, default=str), item.source] for item in config.show()]
        return Table("Configuration", ["key", "value", "source"], rows)
    if action == "get" and len(args) == 2:
        item = config.effective(args[1])
        return Message(f"{item.key} = {json.dumps(item.value, default=str)}  ({item.source})")
    if action == "set" and len(args) >= 3:
        import yaml

        raw = " ".join(args[2:])
        try:
            value = yaml.safe_load(raw)
        except yaml.YAMLError:
            value = raw
        from hermes_nb.plugins.config_schema import check_setting  # lazy: loads the provider registries

        check_setting(args[1], value, providers=True)  # a typed command: unknown providers refused too
        config.set(args[1], value)
        return Message(f"{args[1]} = {json.dumps(value, default=str)}  (runtime)")
    raise UsageError("usage: %hermes config [show | get KEY | set KEY VALUE]")


def _cmd_tools(args: list[str]) -> Any:
    from hermes_nb import tools  # lazy: keeps %load_ext fast

    action = args[0] if args else "list"
    if action == "list":
        _expect(args, 1, "%hermes tools list")
        rows = [
            [t["name"], t["toolset"], t["owner"], "✅" if t["available"] else "❌", t["description"][:60]]
            for t in tools.list_tools()
        ]
        return Table("Tools", ["tool", "toolset", "plugin", "available", "description"], rows)
    if action == "call" and len(args) >= 2:
        raw = " ".join(args[2:]).strip() or "{}"
        if len(raw) > 1 and raw[0] == raw[-1] and raw[0] in "'\"":  # '{"x": 1}' as typed in a shell
            raw = raw[1:-1]
        try:
            payload = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise UsageError(
                f"tool arguments must be a JSON object, e.g. '{{\"x\": 1}}' ({exc.msg})"
            ) from None
        return tools.call(args[1], payload)
    raise UsageError("usage: %hermes tools [list | call NAME JSON]")


def _cmd_cache(args: list[str]) -> Any:
    from hermes_nb.notebook.cache_command import run_cache  # lazy: keeps %load_ext fast

    return run_cache(args)


def _cmd_doctor(args: list[str]) -> Any:
    _expect(args, 0, "%hermes doctor")
    import importlib.util
    import sys

    from hermes_nb import config  # lazy: keeps %load_ext fast
    from hermes_nb.web import selection  # lazy: keeps %load_ext fast

    rows: list[list[Any]] = [["python", "✅", sys.version.split()[0]]]
    home = config.get_hermes_home()
    rows.append(
        [
            "HERMES_HOME",
            "✅" if home.is_dir() else "❌",
            "exists" if home.is_dir() else "missing (created on use)",
        ]
    )
    for capability in ("search", "extract", "crawl"):
        try:
            rows.append([f"web {capability}", "✅", selection.resolve(capability).name])
        except Exception as exc:
            rows.append([f"web {capability}", "❌", str(exc)[:120]])
    for module, extra in (
        ("ipywidgets", "widgets"),
        ("pandas", "pandas"),
        ("tqdm", "progress"),
        ("diffusers", "diffusers"),
    ):
        found = importlib.util.find_spec(module) is not None
        rows.append(
            [module, "✅" if found else "–", "installed" if found else f"pip install 'hermes_nb[{extra}]'"]
        )
    from hermes_nb.notebook.doctor import run_checks  # lazy: starts an emulator

    for check in run_checks():
        detail = check.detail if check.ok else f"{check.detail} — fix: {check.fix}"
        rows.append([check.name, "✅" if check.ok else "❌", detail])
    return Table("hermes_nb doctor", ["check", "ok", "detail"], rows)


def _cmd_mcp(args: list[str]) -> Any:
    from hermes_nb.notebook.mcp_command import run_mcp  # lazy: keeps %load_ext fast

    return run_mcp(args)


SUBCOMMANDS: dict[str, Callable[[list[str]], Any]] = {
    "plugins": _cmd_plugins,
    "providers": _cmd_providers,
    "use": _cmd_use,
    "config": _cmd_config,
    "tools": _cmd_tools,
    "cache": _cmd_cache,
    "doctor": _cmd_doctor,
    "mcp": _cmd_mcp,
}
