"""Tool registry: registration and ownership, check_fn, schema export, the dispatch contract."""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from typing import Any

import pytest

from hermes_nb import tools
from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins import tool_registry
from hermes_nb.tools import ToolRegistry, registry, tool_error, tool_result


def schema(name: str, **props: Any) -> dict[str, Any]:
    return {
        "name": name,
        "description": f"The {name} tool.",
        "parameters": {"type": "object", "properties": props, "required": list(props)},
    }


def echo(args: dict, **kwargs: Any) -> str:
    return json.dumps({"args": args, "task_id": kwargs.get("task_id")})


# -- registration and ownership -------------------------------------------------------------------


def test_register_defaults_description_from_schema() -> None:
    assert registry.register("echo", "demo", schema("echo"), echo) is True
    entry = registry.get_entry("echo")
    assert entry is not None
    assert entry.description == "The echo tool."
    assert entry.owner == ""
    assert entry.toolset == "demo"


def test_same_owner_replaces() -> None:
    registry.register("echo", "demo", schema("echo"), echo, owner="plug-a")
    assert registry.register("echo", "demo2", schema("echo"), lambda a, **k: "{}", owner="plug-a") is True
    assert registry.get_toolset_for_tool("echo") == "demo2"
    assert tools.conflicts() == []


def test_different_owner_is_refused_and_recorded(caplog: pytest.LogCaptureFixture) -> None:
    registry.register("echo", "demo", schema("echo"), echo, owner="plug-a")
    with caplog.at_level(logging.ERROR, logger="hermes_nb.tools"):
        ok = registry.register("echo", "demo", schema("echo"), lambda a, **k: '"evil"', owner="plug-b")
    assert ok is False
    assert registry.dispatch("echo", {"x": 1}) == json.dumps({"args": {"x": 1}, "task_id": None})
    assert [r for r in caplog.records if r.levelno == logging.ERROR and "plug-b" in r.getMessage()]
    assert tools.conflicts() == [
        {
            "name": "echo",
            "owner": "plug-a",
            "toolset": "demo",
            "refused_owner": "plug-b",
            "refused_toolset": "demo",
        }
    ]


def test_override_replaces_other_owner() -> None:
    registry.register("echo", "demo", schema("echo"), echo, owner="plug-a")
    assert registry.register(
        "echo", "demo", schema("echo"), lambda a, **k: '"b"', owner="plug-b", override=True
    )
    assert registry.dispatch("echo", {}) == '"b"'
    assert registry.get_entry("echo").owner == "plug-b"  # type: ignore[union-attr]


def test_builtin_names_are_protected_from_plugins() -> None:
    assert registry.register("web_search", "mine", schema("web_search"), echo, owner="evil-plugin") is False
    assert registry.get_entry("web_search").owner == "hermes_nb"  # type: ignore[union-attr]


def test_owner_cannot_be_forged_through_handler_globals() -> None:
    registry.register("echo", "demo", schema("echo"), echo, owner="plug-a")

    def forged(args: dict, **kw: Any) -> str:
        return '"forged"'

    forged.__globals__["__name__"] = "hermes_plugins.plug_a"  # what Hermes trusted
    try:
        assert registry.register("echo", "demo", schema("echo"), forged, owner="plug-b") is False
    finally:
        forged.__globals__["__name__"] = __name__


def test_owner_scope_attributes_unowned_registrations() -> None:
    with tools.owner_scope("web/thing"):
        assert tools.current_owner() == "web/thing"
        registry.register("echo", "demo", schema("echo"), echo)
    assert tools.current_owner() == ""
    assert registry.get_entry("echo").owner == "web/thing"  # type: ignore[union-attr]


def test_bad_registration_is_refused_without_raising() -> None:
    assert registry.register("", "demo", schema("x"), echo) is False
    assert registry.register("x", "demo", schema("x"), "not callable") is False  # type: ignore[arg-type]
    assert registry.get_entry("x") is None


def test_deregister_and_generation() -> None:
    start = registry.generation
    registry.register("echo", "demo", schema("echo"), echo)
    assert registry.generation > start
    assert registry.deregister("echo", owner="someone-else") is False
    assert registry.deregister("echo") is True
    assert registry.deregister("echo") is False
    assert json.loads(registry.dispatch("echo", {})) == {"error": "Unknown tool: echo"}


def test_concurrent_registration_from_32_threads() -> None:
    reg = ToolRegistry()
    barrier = threading.Barrier(32)

    def work(i: int) -> None:
        barrier.wait()
        for j in range(20):
            reg.register(f"t{i}_{j}", f"set{i % 4}", schema(f"t{i}_{j}"), echo, owner=f"o{i}")
            reg.dispatch(f"t{i}_{j}", {"i": i})

    threads = [threading.Thread(target=work, args=(i,)) for i in range(32)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=20)
    names = [n for n in reg.get_all_tool_names() if n.startswith("t")]
    assert len(names) == 32 * 20
    assert reg.generation >= 32 * 20


# -- check_fn -------------------------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_check_fn_filters_definitions_and_exceptions_mean_false() -> None:
    registry.register("yes", "demo", schema("yes"), echo, check_fn=lambda: True)
    registry.register("no", "demo", schema("no"), echo, check_fn=lambda: False)

    def boom() -> bool:
        raise RuntimeError("broken check")

    registry.register("boom", "demo", schema("boom"), echo, check_fn=boom)
    names = [d["function"]["name"] for d in registry.get_definitions(["yes", "no", "boom", "missing"])]
    assert names == ["yes"]


def test_check_fn_results_are_cached_and_flakes_tolerated() -> None:
    clock = FakeClock()
    reg = ToolRegistry(clock=clock)
    state = {"ok": True, "calls": 0}

    def check() -> bool:
        state["calls"] += 1
        return state["ok"]

    reg.register("t", "demo", schema("t"), echo, check_fn=check)
    assert reg.is_available("t") and state["calls"] == 1
    clock.now += 10
    assert reg.is_available("t") and state["calls"] == 1  # cached
    state["ok"] = False
    clock.now += tool_registry.CHECK_TTL_S + 1
    assert reg.is_available("t") is True  # failure right after a success: a flake
    assert state["calls"] == 2
    clock.now += tool_registry.CHECK_FLAKE_S + 1
    assert reg.is_available("t") is False
    calls = state["calls"]
    assert reg.is_available("t") is False and state["calls"] == calls  # the real failure is cached


# -- schema export ---------------------------------------------------------------------------------


def test_definitions_openai_shape() -> None:
    registry.register("echo", "demo", schema("echo", text={"type": "string"}), echo)
    (definition,) = registry.get_definitions(["echo"], format="openai")
    assert definition["type"] == "function"
    function = definition["function"]
    assert function["name"] == "echo"
    assert function["description"] == "The echo tool."
    assert function["parameters"]["type"] == "object"
    assert function["parameters"]["properties"] == {"text": {"type": "string"}}
    json.dumps(definition)


def test_definitions_anthropic_shape() -> None:
    registry.register("echo", "demo", schema("echo", text={"type": "string"}), echo)
    registry.register("bare", "demo", {"name": "bare", "description": "no params"}, echo)
    by_name = {d["name"]: d for d in registry.get_definitions(["echo", "bare"], format="anthropic")}
    assert set(by_name["echo"]) == {"name", "description", "input_schema"}
    assert by_name["echo"]["input_schema"]["properties"] == {"text": {"type": "string"}}
    assert by_name["bare"]["input_schema"] == {"type": "object", "properties": {}}


def test_definitions_apply_dynamic_overrides_and_reject_unknown_format() -> None:
    registry.register(
        "echo", "demo", schema("echo"), echo, dynamic_schema_overrides=lambda: {"description": "Active: x"}
    )
    assert registry.get_definitions(["echo"])[0]["function"]["description"] == "Active: x"
    with pytest.raises(InvalidInputError):
        registry.get_definitions(["echo"], format="gemini")


# -- dispatch contract -----------------------------------------------------------------------------


def test_dispatch_unknown_tool() -> None:
    assert json.loads(registry.dispatch("nope", {})) == {"error": "Unknown tool: nope"}


def test_dispatch_passes_kwargs() -> None:
    registry.register("echo", "demo", schema("echo"), echo)
    assert json.loads(registry.dispatch("echo", {"a": 1}, task_id="t1")) == {
        "args": {"a": 1},
        "task_id": "t1",
    }


def test_dispatch_handler_exception_is_json_and_redacted() -> None:
    from hermes_nb import config

    config.set_key("DEMO_API_KEY", "supersecretvalue123")

    def broken(args: dict, **kw: Any) -> str:
        raise ValueError("bad input with supersecretvalue123")

    registry.register("broken", "demo", schema("broken"), broken)
    result = json.loads(registry.dispatch("broken", {}))
    assert result["error"].startswith("Tool execution failed: ValueError: bad input with ")
    assert "supersecretvalue123" not in result["error"]


def test_dispatch_wrong_return_type() -> None:
    registry.register("dicty", "demo", schema("dicty"), lambda a, **k: {"result": 42})
    result = json.loads(registry.dispatch("dicty", {}))
    assert "tool_result_contract" in result["error"]
    assert "dict" in result["error"]


def test_dispatch_accepts_multimodal_dict() -> None:
    payload = {"_multimodal": True, "content": [{"type": "text", "text": "hi"}]}
    registry.register("mm", "demo", schema("mm"), lambda a, **k: payload)
    assert json.loads(registry.dispatch("mm", {})) == payload


async def _async_handler(args: dict, **kwargs: Any) -> str:
    await asyncio.sleep(0.001)
    return json.dumps({"doubled": args["n"] * 2, "thread": threading.current_thread().name})


def test_async_handler_from_plain_sync_code() -> None:
    registry.register("double", "demo", schema("double"), _async_handler, is_async=True)
    assert json.loads(registry.dispatch("double", {"n": 2}))["doubled"] == 4


def test_async_handler_inside_running_event_loop() -> None:
    """Jupyter: the kernel's loop is running while the sync ``dispatch`` is called."""
    registry.register("double", "demo", schema("double"), _async_handler, is_async=True)

    async def cell() -> str:
        return registry.dispatch("double", {"n": 21})

    assert json.loads(asyncio.run(cell()))["doubled"] == 42


def test_adispatch_awaits_on_the_callers_loop() -> None:
    registry.register("double", "demo", schema("double"), _async_handler)
    registry.register("echo", "demo", schema("echo"), echo)

    async def main() -> tuple[dict, dict, str]:
        here = threading.current_thread().name
        a = json.loads(await registry.adispatch("double", {"n": 5}))
        b = json.loads(await registry.adispatch("echo", {"n": 1}))
        return a, b, here

    a, b, here = asyncio.run(main())
    assert a["doubled"] == 10 and a["thread"] == here
    assert b["args"] == {"n": 1}


def test_async_handler_exception_is_json() -> None:
    async def broken(args: dict, **kw: Any) -> str:
        raise KeyError("missing")

    registry.register("broken", "demo", schema("broken"), broken)
    assert json.loads(registry.dispatch("broken", {}))["error"].startswith("Tool execution failed: KeyError")
    assert json.loads(asyncio.run(registry.adispatch("broken", {})))["error"].startswith(
        "Tool execution failed: KeyError"
    )


def test_tool_error_and_tool_result_helpers() -> None:
    assert json.loads(tool_error("nope", code="X")) == {"error": "nope", "code": "X"}
    assert json.loads(tool_result({"a": 1})) == {"a": 1}
    assert json.loads(tool_result(b=2)) == {"b": 2}


def test_list_tools_rows() -> None:
    registry.register("echo", "demo", schema("echo"), echo, emoji="E", owner="plug-a", check_fn=lambda: False)
    rows = {r["name"]: r for r in tools.list_tools()}
    assert rows["echo"] == {
        "name": "echo",
        "toolset": "demo",
        "owner": "plug-a",
        "available": False,
        "emoji": "E",
        "description": "The echo tool.",
        "requires_env": [],
    }
    assert {"web_search", "web_extract", "image_generate"} <= set(rows)
    assert rows["web_search"]["owner"] == "hermes_nb"


def test_reset_forgets_tools_and_conflicts() -> None:
    from hermes_nb import _state

    registry.register("echo", "demo", schema("echo"), echo, owner="a")
    registry.register("echo", "demo", schema("echo"), echo, owner="b")
    _state.reset_all()
    assert tools.conflicts() == []
    assert registry.get_entry("echo") is None
    assert registry.get_entry("web_search") is not None  # built-ins come back on first use
