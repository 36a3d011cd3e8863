"""The tool-call pipeline (coercion, hooks) and the notebook API: call, schemas, handle."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest

from hermes_nb import tools
from hermes_nb.errors import InvalidInputError
from hermes_nb.plugins import hooks
from hermes_nb.tools import registry
from hermes_nb.tools.calls import ahandle_function_call, coerce_args, handle_function_call

TYPED_SCHEMA = {
    "name": "typed",
    "description": "Echo typed arguments.",
    "parameters": {
        "type": "object",
        "properties": {
            "count": {"type": "integer"},
            "ratio": {"type": "number"},
            "flag": {"type": "boolean"},
            "items": {"type": "array", "items": {"type": "string"}},
            "opts": {"type": "object"},
            "maybe": {"type": ["integer", "null"]},
            "text": {"type": "string"},
            "either": {"type": ["string", "integer"]},
        },
    },
}


def typed(args: dict, **kwargs: Any) -> str:
    return json.dumps({"args": args, "types": {k: type(v).__name__ for k, v in args.items()}})


@pytest.fixture
def typed_tool() -> None:
    registry.register("typed", "demo", TYPED_SCHEMA, typed)


# -- coercion ------------------------------------------------------------------------------------


def test_coerce_string_args_to_schema_types() -> None:
    raw = {
        "count": "5",
        "ratio": "2.5",
        "flag": "true",
        "items": '["a", "b"]',
        "opts": '{"k": 1}',
        "maybe": "null",
        "text": "7",
        "either": "8",
        "extra": "9",
    }
    out = coerce_args(TYPED_SCHEMA, raw)
    assert out == {
        "count": 5,
        "ratio": 2.5,
        "flag": True,
        "items": ["a", "b"],
        "opts": {"k": 1},
        "maybe": None,
        "text": "7",
        "either": "8",
        "extra": "9",
    }


def test_coerce_leaves_unparseable_values() -> None:
    out = coerce_args(TYPED_SCHEMA, {"count": "five", "flag": "maybe", "items": "{}", "ratio": "10"})
    assert out == {"count": "five", "flag": "maybe", "items": "{}", "ratio": 10}


def test_pipeline_coerces_before_dispatch(typed_tool: None) -> None:
    result = json.loads(handle_function_call("typed", {"count": "5", "flag": "false"}))
    assert result["args"] == {"count": 5, "flag": False}


def test_pipeline_accepts_json_string_args_and_reports_bad_json(typed_tool: None) -> None:
    assert json.loads(handle_function_call("typed", '{"count": "3"}'))["args"] == {"count": 3}
    bad = json.loads(handle_function_call("typed", "{not json"))
    assert bad["error"].startswith("Invalid JSON arguments for tool typed")
    assert "must be a JSON object" in json.loads(handle_function_call("typed", "[1, 2]"))["error"]


def test_pipeline_enabled_tools(typed_tool: None) -> None:
    result = json.loads(handle_function_call("typed", {}, enabled_tools=["other"]))
    assert result == {"error": "Tool typed is not enabled for this call"}


# -- hooks inside the pipeline ---------------------------------------------------------------------


def test_pre_tool_call_block_then_post_and_transform(typed_tool: None) -> None:
    seen: list[tuple[str, dict]] = []

    def observer(**kw: Any) -> None:
        return None

    def blocker(tool_name: str, args: dict, **kw: Any) -> dict:
        return {"action": "block", "message": f"{tool_name} is not allowed"}

    def second_blocker(**kw: Any) -> dict:
        return {"action": "block", "message": "second"}

    def post(**kw: Any) -> None:
        seen.append(("post", kw))

    hooks.register_hook("pre_tool_call", observer)
    hooks.register_hook("pre_tool_call", blocker)
    hooks.register_hook("pre_tool_call", second_blocker)
    hooks.register_hook("post_tool_call", post)
    result = handle_function_call("typed", {"count": 1}, task_id="t1", tool_call_id="c1")
    assert json.loads(result) == {"error": "typed is not allowed"}
    ((_, post_kw),) = seen
    assert post_kw["status"] == "blocked"
    assert post_kw["error_type"] == "blocked"
    assert post_kw["error_message"] == "typed is not allowed"
    assert post_kw["tool_call_id"] == "c1" and post_kw["task_id"] == "t1"


def test_post_tool_call_gets_result_duration_and_status(typed_tool: None) -> None:
    seen: list[dict] = []
    hooks.register_hook("post_tool_call", lambda **kw: seen.append(kw))
    result = handle_function_call("typed", {"count": "2"}, session_id="s")
    handle_function_call("nope", {})
    ok, err = seen
    assert ok["tool_name"] == "typed" and ok["result"] == result
    assert ok["status"] == "ok" and ok["error_type"] is None and ok["error_message"] is None
    assert isinstance(ok["duration_ms"], float) and ok["duration_ms"] >= 0
    assert ok["args"] == {"count": 2}
    assert ok["telemetry_schema_version"] == "hermes.observer.v1"
    assert err["status"] == "error" and err["error_type"] == "unknown_tool"
    assert err["error_message"] == "Unknown tool: nope"


def test_handler_error_json_sets_error_status(typed_tool: None) -> None:
    registry.register("fails", "demo", {"name": "fails"}, lambda a, **k: tools.tool_error("no data"))
    seen: list[dict] = []
    hooks.register_hook("post_tool_call", lambda **kw: seen.append(kw))
    handle_function_call("fails", {})
    assert seen[0]["status"] == "error" and seen[0]["error_type"] == "tool_error"


def test_transform_tool_result_first_string_wins(typed_tool: None) -> None:
    hooks.register_hook("transform_tool_result", lambda **kw: None)
    hooks.register_hook("transform_tool_result", lambda **kw: {"not": "a string"})
    hooks.register_hook(
        "transform_tool_result", lambda result, **kw: json.dumps({"wrapped": json.loads(result)})
    )
    hooks.register_hook("transform_tool_result", lambda **kw: '"too late"')
    result = json.loads(handle_function_call("typed", {"count": 1}))
    assert result["wrapped"]["args"] == {"count": 1}


def test_skip_pre_tool_call_hook(typed_tool: None) -> None:
    hooks.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "no"})
    result = json.loads(handle_function_call("typed", {"count": 1}, skip_pre_tool_call_hook=True))
    assert result["args"] == {"count": 1}


def test_async_pipeline_runs_hooks_and_async_handler(typed_tool: None) -> None:
    async def handler(args: dict, **kw: Any) -> str:
        await asyncio.sleep(0)
        return json.dumps({"n": args["n"]})

    anum = {"name": "anum", "parameters": {"properties": {"n": {"type": "integer"}}}}
    registry.register("anum", "demo", anum, handler)
    statuses: list[str] = []
    hooks.register_hook("post_tool_call", lambda status, **kw: statuses.append(status))
    assert json.loads(asyncio.run(ahandle_function_call("anum", {"n": "4"}))) == {"n": 4}
    hooks.register_hook("pre_tool_call", lambda **kw: {"action": "block", "message": "stop"})
    assert json.loads(asyncio.run(ahandle_function_call("anum", {"n": 1}))) == {"error": "stop"}
    assert statuses == ["ok", "blocked"]


# -- notebook API ---------------------------------------------------------------------------------


def test_call_returns_parsed_json(typed_tool: None) -> None:
    assert tools.call("typed", {"count": "7"})["args"] == {"count": 7}
    assert tools.call("nope") == {"error": "Unknown tool: nope"}
    registry.register("plain", "demo", {"name": "plain"}, lambda a, **k: "not json")
    assert tools.call("plain") == "not json"
    assert asyncio.run(tools.acall("typed", {"count": "1"}))["args"] == {"count": 1}


def test_schemas_by_toolset_and_format(typed_tool: None) -> None:
    openai = tools.schemas(toolsets=["demo"])
    assert [d["function"]["name"] for d in openai] == ["typed"]
    anthropic = tools.schemas("anthropic", toolsets="demo")
    assert anthropic == [
        {"name": "typed", "description": "Echo typed arguments.", "input_schema": TYPED_SCHEMA["parameters"]}
    ]
    assert tools.schemas(names=["typed", "missing"], toolsets=["demo", "web"]) == openai


def test_handle_openai_chat_completions_dict(typed_tool: None) -> None:
    call = {"id": "call_1", "type": "function", "function": {"name": "typed", "arguments": '{"count": "3"}'}}
    message = tools.handle(call)
    assert set(message) == {"role", "tool_call_id", "content"}
    assert message["role"] == "tool" and message["tool_call_id"] == "call_1"
    assert json.loads(message["content"])["args"] == {"count": 3}


def test_handle_openai_sdk_object(typed_tool: None) -> None:
    call = SimpleNamespace(
        id="call_2", type="function", function=SimpleNamespace(name="typed", arguments='{"flag": "yes"}')
    )
    message = tools.handle(call)
    assert message["tool_call_id"] == "call_2"
    assert json.loads(message["content"])["args"] == {"flag": True}


def test_handle_openai_responses(typed_tool: None) -> None:
    call = {"type": "function_call", "id": "fc_1", "call_id": "call_3", "name": "typed", "arguments": "{}"}
    message = tools.handle(call)
    assert message == {"type": "function_call_output", "call_id": "call_3", "output": message["output"]}
    assert json.loads(message["output"])["args"] == {}


def test_handle_anthropic_dict_and_object(typed_tool: None) -> None:
    block = {"type": "tool_use", "id": "toolu_1", "name": "typed", "input": {"count": 4}}
    message = tools.handle(block)
    assert set(message) == {"type", "tool_use_id", "content"}
    assert message["type"] == "tool_result" and message["tool_use_id"] == "toolu_1"
    assert json.loads(message["content"])["args"] == {"count": 4}
    failing = SimpleNamespace(type="tool_use", id="toolu_2", name="nope", input={})
    error = tools.handle(failing)
    assert error["is_error"] is True and json.loads(error["content"]) == {"error": "Unknown tool: nope"}


def test_handle_hooks_see_the_call_id(typed_tool: None) -> None:
    ids: list[str] = []
    hooks.register_hook("post_tool_call", lambda tool_call_id, **kw: ids.append(tool_call_id))
    tools.handle([
        {"type": "tool_use", "id": "a", "name": "typed", "input": {}},
        {"type": "function_call", "call_id": "b", "name": "typed", "arguments": "{}"},
    ])  # fmt: skip
    assert ids == ["a", "b"]


def test_handle_rejects_unknown_shapes() -> None:
    with pytest.raises(InvalidInputError, match="tool_use"):
        tools.handle({"type": "text", "text": "hello"})
