"""The ``hermes-nb`` command: plugins, tools, cache, config, doctor, emulate, demo, mcp, and plugin commands.

Exit codes: 0 ok, 1 runtime error (one line on stderr, no traceback), 2 usage error.
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from collections.abc import Callable, Sequence
from typing import Any

from hermes_nb._version import __version__
from hermes_nb.errors import HermesError

__all__ = ["main", "build_parser"]

log = logging.getLogger(__name__)

_BUILTIN = ("plugins", "tools", "config", "doctor", "emulate", "demo", "mcp")


class _CommandError(Exception):
    """A command failed in a way the user can fix; the message is printed as one line."""


def _out(text: str = "") -> None:
    print(text)


# plugins ---------------------------------------------------------------------------------------


def _plugins_list(args: argparse.Namespace) -> int:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses

    rows = loader.check_all() if args.check else loader.list_plugins()
    if not rows:
        _out("no plugins found")
    width = max((len(r["key"]) for r in rows), default=0)
    marks = {"loaded": "✅", "error": "❌", "not imported yet": "…", "disabled": "–"}
    for row in rows:
        version = f"v{row['version']}" if row["version"] else "-"
        mark = marks.get(row.get("state", ""), " ")
        if row.get("state") == "loaded" and row.get("availability") == "unavailable":
            mark = "❌"  # loaded, but none of its providers can answer (the status says why)
        _out(f"{row['key']:<{width}}  {row['source']:<10} {version:<8} {mark} {row['status']}")
        for override in row["overrides"]:
            _out(f"{'':<{width}}  overrides {override}")
        if row.get("not_used_in_notebooks"):
            unused = ", ".join(row["not_used_in_notebooks"])
            _out(f"{'':<{width}}  registered; not used in notebooks: {unused}")
        if row.get("hooks_not_fired"):
            _out(f"{'':<{width}}  hooks hermes_nb never fires: {', '.join(row['hooks_not_fired'])}")
    for problem in loader.get_plugin_manager().problems:
        _out(f"warning: {problem}")
    return 0


def _find_row(key: str) -> dict[str, Any]:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses

    record = loader.get_plugin_manager().find(key)
    if record is None:
        raise _CommandError(f"no plugin {key!r}; run `hermes-nb plugins list` to see the keys")
    return record.to_dict()


def _plugins_info(args: argparse.Namespace) -> int:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses

    manager = loader.get_plugin_manager()
    record = manager.find(args.key)
    if record is not None and record.enabled:
        manager.load(record)  # so the listing says what it registers
    row = _find_row(args.key)
    for field in ("key", "name", "version", "kind", "source", "path", "description", "author", "status"):
        _out(f"{field + ':':<14}{row[field]}")
    for field in (
        "requires_env",
        "missing_env",
        "providers",
        "tools",
        "hooks",
        "commands",
        "magics",
        "overrides",
        "not_used_in_notebooks",
        "hooks_not_fired",
    ):
        if row[field]:
            _out(f"{field + ':':<14}{', '.join(row[field])}")
    return 0


def _plugins_validate(args: argparse.Namespace) -> int:
    from hermes_nb.plugins.validation import validate_plugin  # lazy: spawns the checking subprocess

    report = validate_plugin(args.path)
    for problem in report.problems:
        _out(problem)
    if report.ok:
        made = [name for names in report.registered.values() for name in names]
        _out(f"ok: {report.path} ({', '.join(made) or 'registers nothing'})")
    return 0 if report.ok else 1


def _plugins_enable(args: argparse.Namespace) -> int:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses

    record = loader.enable(args.key)
    _out(f"enabled {record.key} (plugins.enabled in config.yaml)")
    return 0


def _plugins_disable(args: argparse.Namespace) -> int:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses

    record = loader.disable(args.key)
    _out(f"disabled {record.key} (plugins.disabled in config.yaml)")
    return 0


# tools -----------------------------------------------------------------------------------------


def _tools_list(args: argparse.Namespace) -> int:
    from hermes_nb import tools  # lazy: a subcommand loads only what it uses

    rows = tools.list_tools()
    if not rows:
        _out("no tools registered")
    for row in sorted(rows, key=lambda r: (r["toolset"], r["name"])):
        state = "available" if row["available"] else "unavailable"
        owner = row["owner"] or "code"
        summary = (row["description"] or "").strip().split("\n", 1)[0]
        _out(f"{row['toolset']}/{row['name']}  ({owner}, {state})  {summary}".rstrip())
    return 0


def _tools_call(args: argparse.Namespace) -> int:
    from hermes_nb import tools  # lazy: a subcommand loads only what it uses

    try:
        payload = json.loads(args.args) if args.args else {}
    except json.JSONDecodeError as exc:
        raise _CommandError(
            f'arguments must be a JSON object, e.g. \'{{"expression": "2**8"}}\' ({exc.msg})'
        ) from exc
    if not isinstance(payload, dict):
        raise _CommandError('arguments must be a JSON object, e.g. \'{"expression": "2**8"}\'')
    result = tools.registry.dispatch(args.name, payload)
    _out(result)
    try:
        parsed = json.loads(result)
    except (TypeError, ValueError):
        return 0
    return 1 if isinstance(parsed, dict) and "error" in parsed else 0


# config ----------------------------------------------------------------------------------------


def _config_get(args: argparse.Namespace) -> int:
    from hermes_nb import config  # lazy: a subcommand loads only what it uses
    from hermes_nb.redaction import MASK, is_secret_name  # lazy: a subcommand loads only what it uses

    item = config.effective(args.key)
    value = MASK if is_secret_name(args.key.rsplit(".", 1)[-1]) and item.value else item.value
    _out(f"{args.key} = {json.dumps(value, default=str)}  ({item.source})")
    return 0


def _config_set(args: argparse.Namespace) -> int:
    import yaml

    from hermes_nb import config  # lazy: a subcommand loads only what it uses

    try:
        value = yaml.safe_load(args.value)
    except yaml.YAMLError:
        value = args.value
    config.set(args.key, value, persist=True)
    saved = config.get_hermes_home() / "config.yaml"
    _out(f"{args.key} = {json.dumps(value, default=str)}  (saved to {saved})")
    return 0


def _config_show(args: argparse.Namespace) -> int:
    from hermes_nb import config  # lazy: a subcommand loads only what it uses

    rows = config.show()
    for item in rows:
        flag = f"  ✗ {item.problem}; fix: hermes-nb config set {item.repair} VALUE" if item.problem else ""
        _out(f"{item.key} = {json.dumps(item.value, default=str)}  ({item.source}){flag}")
    return 1 if any(item.problem for item in rows) else 0


# doctor, emulate, demo -------------------------------------------------------------------------


def _why_unavailable(provider: Any, owner: str) -> str:
    from hermes_nb.plugins.setup_hints import setup_hint  # lazy: a subcommand loads only what it uses

    return f"unavailable: {setup_hint(provider, owner, shell=True)}"


def _doctor(args: argparse.Namespace) -> int:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses
    from hermes_nb.plugins.registry import image_providers, web_providers

    try:
        loader.load_plugins()
    except HermesError as exc:  # a broken config.yaml: say it once, then run the checks that still can
        _out(f"plugins: not loaded: {exc}")
        return _doctor_checks()
    for title, registry in (("web providers", web_providers), ("image providers", image_providers)):
        _out(f"{title}:")
        providers = registry.list()
        if not providers:
            _out("  none registered")
        for provider in providers:
            owner = registry.owner(provider.name)
            try:
                ok = bool(provider.is_available())
            except Exception as exc:  # reported, not raised: doctor must finish
                ok, why = False, f"unavailable: is_available() raised {type(exc).__name__}"
            else:
                why = "available" if ok else _why_unavailable(provider, owner)
            _out(f"  {provider.name:<16} {why}  [{owner or 'code'}]")
    broken = [row for row in loader.list_plugins() if row["error"]]
    _out("plugin errors:" if broken else "plugin errors: none")
    for row in broken:
        _out(f"  {row['key']}: {row['error']}")
    for problem in loader.get_plugin_manager().problems:
        _out(f"  {problem}")
    _optional_features()
    return _doctor_checks()


def _optional_features() -> None:
    from hermes_nb.notebook.doctor import optional_features  # lazy: a subcommand loads only what it uses

    _out("optional features (pip extras):")
    for feature in optional_features():
        _out(f"  {'ok  ' if feature.ok else '–   '} {feature.name}: {feature.detail or ''}")
        if not feature.ok:
            _out(f"       install: {feature.fix}")


def _doctor_checks() -> int:
    from hermes_nb.notebook.doctor import run_checks  # lazy: starts an emulator

    _out("checks (by doing):")
    checks = run_checks()
    for check in checks:
        _out(f"  {check.status:<4} {check.name}: {check.detail}")
        if not check.ok and not check.skipped:
            _out(f"       fix: {check.fix}")
    return 0 if all(check.ok or check.skipped for check in checks) else 1


def _cache(args: argparse.Namespace) -> int:
    from hermes_nb.cache import commands  # lazy: a subcommand loads only what it uses

    return commands.run(args)


def _emulate(args: argparse.Namespace) -> int:
    from hermes_nb.testing import serve  # lazy: a subcommand loads only what it uses

    serve(host="127.0.0.1", port=args.port)
    return 0


def _mcp(args: argparse.Namespace) -> int:
    from hermes_nb.extras import FeatureNotInstalledError, require

    try:
        require("mcp", "hermes-nb mcp")
    except FeatureNotInstalledError as exc:
        raise _CommandError(exc.message) from None
    from hermes_nb import mcp_server  # lazy: a subcommand loads only what it uses

    if args.http:
        mcp_server.parse_bind(args.http)  # a bad or non-loopback address fails before anything starts
        mcp_server.serve_http(args.http)
    else:
        mcp_server.serve_stdio()
    return 0


def _demo(argv: list[str]) -> int:
    from hermes_nb import demo  # lazy: a subcommand loads only what it uses

    status: int = demo.main(argv)
    return status


# parser ----------------------------------------------------------------------------------------


def _sub(
    parent: Any, name: str, text: str, func: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    parser: argparse.ArgumentParser = parent.add_parser(name, help=text, description=text)
    parser.set_defaults(func=func)
    return parser


def build_parser(plugin_commands: bool = True) -> argparse.ArgumentParser:
    """The argparse tree, with ``register_cli_command`` subcommands when ``plugin_commands``."""
    parser = argparse.ArgumentParser(prog="hermes-nb", description="Hermes Agent plugins for notebooks.")
    parser.add_argument("-v", "--verbose", action="store_true", help="show warnings from plugin loading")
    parser.add_argument("--version", action="version", version=f"hermes-nb {__version__}")
    top = parser.add_subparsers(dest="command", metavar="COMMAND")

    plugins = top.add_parser("plugins", help="list, inspect, enable or disable plugins")
    sub = plugins.add_subparsers(dest="action", metavar="ACTION", required=True)
    _sub(sub, "list", "every discovered plugin and its state", _plugins_list).add_argument(
        "--check", action="store_true", help="import every enabled plugin now instead of on first use"
    )
    validate = "check a plugin folder: manifest, import + register(), what it declares"
    _sub(sub, "validate", validate, _plugins_validate).add_argument("path")
    _sub(sub, "info", "details of one plugin", _plugins_info).add_argument("key")
    _sub(
        sub, "enable", "load a user/project/pip plugin (writes plugins.enabled)", _plugins_enable
    ).add_argument("key")
    _sub(sub, "disable", "never load a plugin (writes plugins.disabled)", _plugins_disable).add_argument(
        "key"
    )

    tools = top.add_parser("tools", help="list or call tools")
    sub = tools.add_subparsers(dest="action", metavar="ACTION", required=True)
    _sub(sub, "list", "every registered tool", _tools_list)
    call = _sub(sub, "call", "call a tool with JSON arguments", _tools_call)
    call.add_argument("name")
    call.add_argument("args", nargs="?", default="{}", help='JSON object, e.g. \'{"expression": "2**8"}\'')

    cfg = top.add_parser("config", help="read or change configuration (secrets are never shown)")
    sub = cfg.add_subparsers(dest="action", metavar="ACTION", required=True)
    _sub(sub, "get", "the effective value of a key and its source", _config_get).add_argument("key")
    setter = _sub(sub, "set", "set a key in config.yaml (value parsed as YAML)", _config_set)
    setter.add_argument("key")
    setter.add_argument("value")
    _sub(sub, "show", "every effective value and where it comes from", _config_show)

    _sub(top, "doctor", "which providers are available, and why not", _doctor)
    store = _sub(top, "cache", "the result store: stats, entries, clear, export/load/drift, costs", _cache)
    store.add_argument("action", choices=["stats", "entries", "clear", "export", "load", "drift", "costs"])
    store.add_argument("path", nargs="?", help="the cassette (export, load, drift)")
    store.add_argument("--kind", default=None, help="entries/clear: one kind only")
    store.add_argument("--since", default=None, help="entries/export: from this ISO time on")
    _sub(top, "emulate", "run the provider emulator on 127.0.0.1", _emulate).add_argument(
        "--port", type=int, default=0, help="port (default: a free one)"
    )
    serve = _sub(
        top, "mcp", "serve the notebook's tools to MCP clients (stdio; --http for loopback HTTP)", _mcp
    )
    serve.add_argument(
        "--http",
        metavar="HOST:PORT",
        default=None,
        help="streamable HTTP on loopback (e.g. 127.0.0.1:8765) with a bearer token printed once",
    )
    # `demo` takes its own options (main() hands them over before parsing); listed here for --help.
    top.add_parser("demo", help="run the offline demo notebook and write a report (hermes-nb demo --help)")
    if plugin_commands:
        _add_plugin_commands(top)
    return parser


def _add_plugin_commands(top: Any) -> None:
    from hermes_nb.plugins import loader  # lazy: a subcommand loads only what it uses

    try:
        commands = loader.get_plugin_commands()
    except HermesError as exc:  # a broken config.yaml: the built-in commands (config set …) still repair it
        log.warning("plugin commands not loaded: %s", exc)
        return
    for name, command in commands.items():
        if name in _BUILTIN:
            log.warning("plugin %s: command %r clashes with a built-in command; ignored", command.owner, name)
            continue
        parser = top.add_parser(name, help=command.help, description=command.description or command.help)
        try:
            command.setup_fn(parser)
        except Exception as exc:  # one broken plugin command must not break the whole CLI
            log.warning("plugin %s: setting up command %r failed: %s", command.owner, name, exc)
            continue
        if command.handler_fn is not None:
            parser.set_defaults(func=_plugin_handler(command.handler_fn))
        elif not parser.get_default("func"):
            parser.set_defaults(func=lambda args, p=parser: (p.print_help(), 0)[1])


def _plugin_handler(handler: Callable[[argparse.Namespace], Any]) -> Callable[[argparse.Namespace], int]:
    def run(args: argparse.Namespace) -> int:
        result = handler(args)
        return result if isinstance(result, int) and not isinstance(result, bool) else 0

    return run


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``hermes-nb``; returns the exit status."""
    argv = list(sys.argv[1:] if argv is None else argv)
    verbose = bool({"-v", "--verbose"} & set(argv[:2]))
    logging.basicConfig(level=logging.WARNING if verbose else logging.ERROR, format="hermes-nb: %(message)s")
    try:
        rest = list(argv)
        while rest[:1] in (["-v"], ["--verbose"]):
            rest.pop(0)
        if rest[:1] == ["demo"]:
            return _demo(rest[1:])
        parser = build_parser()
        args = parser.parse_args(argv)
        func = getattr(args, "func", None)
        if func is None:
            parser.print_help()
            return 2
        status = func(args)
        sys.stdout.flush()  # a closed pipe shows up here, inside the handler below
        return status if isinstance(status, int) else 0
    except SystemExit as exc:  # argparse: 2 for usage errors, 0 for --help
        return exc.code if isinstance(exc.code, int) else 1
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:  # piped into `head`, which stopped reading: not an error
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # Python flushes stdout at exit; keep that quiet too
        return 0
    except (_CommandError, HermesError) as exc:
        print(f"hermes-nb: error: {exc}", file=sys.stderr)
        return 1
    except Exception as exc:  # one line, no traceback: the CLI's contract
        from hermes_nb.redaction import redact  # lazy: a subcommand loads only what it uses

        print(f"hermes-nb: error: {type(exc).__name__}: {redact(str(exc))}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    raise SystemExit(main())
