"""The throwaway process of ``plugins validate``: import one plugin, call ``register(ctx)``, report JSON.

``validation`` starts it as ``import hermes_nb`` (the composition root, as in a kernel) and ``main()``.
"""

from __future__ import annotations

import importlib
import json
import sys
from typing import Any

from hermes_nb.plugins import loader, registry, tool_registry
from hermes_nb.plugins.load_errors import describe_load_error


def _unserved(imports: dict[str, list[str]]) -> dict[str, list[str]]:
    missing: dict[str, list[str]] = {}
    for module, names in imports.items():
        try:
            loaded = importlib.import_module(module)
        except ImportError:
            missing[module] = []
            continue
        absent = [n for n in names if not hasattr(loaded, n)]
        if absent:
            missing[module] = absent
    return missing


def _schema_problem(name: str, schema: Any) -> str | None:
    if not isinstance(schema, dict):
        return f"tool {name!r}: the schema must be a dict with name, description and parameters"
    params = schema.get("parameters", {"type": "object", "properties": {}})
    if not isinstance(params, dict) or params.get("type") != "object":
        return f"tool {name!r}: schema parameters must be a JSON Schema with \"type\": \"object\""
    props = params.get("properties", {})
    if not isinstance(props, dict) or any(not isinstance(v, dict) for v in props.values()):
        return f"tool {name!r}: schema properties must map each argument to a JSON Schema dict"
    required = params.get("required", [])
    unknown = [r for r in required if r not in props] if isinstance(required, list) else ["(not a list)"]
    if unknown:
        return f"tool {name!r}: schema requires {unknown} that are not in properties; add or drop them"
    return None


def _handler_problem(name: str) -> str | None:
    entry = tool_registry.registry.get_entry(name)
    handler = getattr(entry, "handler", None)
    if handler is None or getattr(entry, "is_async", False):
        return None  # async handlers are awaited by hermes_nb; not called here
    try:
        result = handler({})
    except Exception as exc:  # a plugin's own failure is what we report
        return f"tool {name!r}: the handler raised {type(exc).__name__} for empty arguments; " \
               "return tool_error(...) (a JSON string) instead of raising"
    if not isinstance(result, str):
        kind = type(result).__name__
        return f"tool {name!r}: the handler returned {kind}; return a JSON string (json.dumps(...))"
    try:
        json.loads(result)
    except ValueError:
        return f"tool {name!r}: the handler returned a string that is not JSON; return json.dumps(...)"
    return None


def _aliases(providers: list[str]) -> list[str]:
    """``web:brave-free`` for each alias of a registered web provider (manifests may list them)."""
    found = []
    for entry in providers:
        kind, _, name = entry.partition(":")
        provider = registry.web_providers.get(name) if kind == "web" else None
        found += [f"web:{alias}" for alias in (provider.aliases if provider is not None else ())]
    return found


def main() -> int:
    request = json.loads(sys.stdin.read())
    report: dict[str, Any] = {}
    manager = loader.get_plugin_manager()
    manager.discover()  # serves the Hermes names and loads $HERMES_HOME/.env, as a real load would
    report["unserved"] = _unserved(request.get("imports", {}))
    record = manager.find(request["key"])
    if record is None:
        report["error"] = f"plugin {request['key']} was not discovered; check plugin.yaml"
        print(json.dumps(report))
        return 0
    manager.load(record)
    if record.error:
        report["error"] = record.error
    reg = record.registered
    report["registered"] = {
        "tools": reg.tools, "hooks": reg.hooks, "providers": reg.providers, "commands": reg.commands,
        "not_used_in_notebooks": reg.unused, "aliases": _aliases(reg.providers),
    }
    refused = [r for r in tool_registry.refusals() if r["owner"] == record.key]
    report["registered"]["refused_tools"] = [r["name"] for r in refused]
    problems = [f"tool {r['name']!r} is not registered: {r['problem']}" for r in refused]
    for tool in reg.tools:
        entry = tool_registry.registry.get_entry(tool)
        problem = _schema_problem(tool, getattr(entry, "schema", None)) or _handler_problem(tool)
        if problem:
            problems.append(problem)
    report["tool_problems"] = problems
    print(json.dumps(report, default=str))
    return 0


def run() -> int:
    """``main()``, with any failure of the worker itself reported as one JSON line."""
    try:
        return main()
    except Exception as exc:  # the parent turns this line into one problem
        print(json.dumps({"error": describe_load_error("plugin", "the validation subprocess", exc)}))
        return 0
