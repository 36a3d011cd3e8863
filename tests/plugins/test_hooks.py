"""Hooks: order, failures skipped, async callbacks awaited, strict callbacks, llm_context, sessions."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from hermes_nb.plugins import hooks


@pytest.fixture(autouse=True)
def no_plugins(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only the callbacks these tests register (bundled plugins' hooks are tested with the plugins)."""
    monkeypatch.setattr(hooks, "ensure_plugins_loaded", lambda capability: None)


def test_callbacks_run_in_registration_order_and_collect_non_none() -> None:
    calls: list[str] = []

    def first(**kw: Any) -> str:
        calls.append("first")
        return "a"

    def second(**kw: Any) -> None:
        calls.append("second")

    def third(**kw: Any) -> int:
        calls.append("third")
        return 3

    for cb in (first, second, third):
        hooks.register_hook("post_llm_call", cb, owner="p")
    assert hooks.invoke_hook("post_llm_call", session_id="s") == ["a", 3]
    assert calls == ["first", "second", "third"]
    assert hooks.has_hook("post_llm_call") and not hooks.has_hook("pre_verify")


def test_failing_callback_is_logged_and_skipped(caplog: pytest.LogCaptureFixture) -> None:
    def broken(**kw: Any) -> None:
        raise RuntimeError("kaboom")

    hooks.register_hook("on_session_reset", broken, owner="bad-plugin")
    hooks.register_hook("on_session_reset", lambda **kw: "ok")
    with caplog.at_level(logging.WARNING, logger="hermes_nb.plugins.hooks"):
        assert hooks.invoke_hook("on_session_reset", session_id="s") == ["ok"]
    assert any("bad-plugin" in r.getMessage() and "kaboom" in r.getMessage() for r in caplog.records)


def test_telemetry_kwarg_only_for_kwargs_callbacks_and_strict_callbacks_work() -> None:
    got: dict[str, Any] = {}

    def strict(tool_name, args):  # the guide's style without **kwargs
        got["strict"] = (tool_name, args)
        return "strict"

    def loose(tool_name, **kwargs):
        got["loose"] = kwargs
        return "loose"

    hooks.register_hook("pre_tool_call", strict)
    hooks.register_hook("pre_tool_call", loose)
    out = hooks.invoke_hook("pre_tool_call", tool_name="t", args={"x": 1}, task_id="k")
    assert out == ["strict", "loose"]
    assert got["strict"] == ("t", {"x": 1})
    assert got["loose"] == {
        "args": {"x": 1},
        "task_id": "k",
        "telemetry_schema_version": "hermes.observer.v1",
    }


def test_async_callbacks_are_awaited_in_sync_and_async_invocation() -> None:
    awaited: list[str] = []

    async def recall(user_message: str, **kw: Any) -> dict:
        await asyncio.sleep(0)
        awaited.append(user_message)
        return {"context": f"memory for {user_message}"}

    hooks.register_hook("pre_llm_call", recall)
    assert hooks.invoke_hook("pre_llm_call", user_message="a") == [{"context": "memory for a"}]

    async def inside_loop() -> tuple[list, list]:
        sync_result = hooks.invoke_hook("pre_llm_call", user_message="b")  # Jupyter: loop running
        async_result = await hooks.ainvoke_hook("pre_llm_call", user_message="c")
        return sync_result, async_result

    sync_result, async_result = asyncio.run(inside_loop())
    assert sync_result == [{"context": "memory for b"}]
    assert async_result == [{"context": "memory for c"}]
    assert awaited == ["a", "b", "c"]


def test_unknown_hook_name_warns_but_is_kept(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="hermes_nb.plugins.hooks"):
        hooks.register_hook("on_new_thing", lambda **kw: 1)
    assert any("on_new_thing" in r.getMessage() for r in caplog.records)
    assert hooks.invoke_hook("on_new_thing") == [1]


def test_non_callable_is_ignored_and_duplicates_registered_once() -> None:
    hooks.register_hook("post_tool_call", "nope")  # type: ignore[arg-type]
    assert not hooks.has_hook("post_tool_call")

    def cb(**kw: Any) -> int:
        return 1

    hooks.register_hook("post_tool_call", cb)
    hooks.register_hook("post_tool_call", cb)
    assert hooks.invoke_hook("post_tool_call") == [1]
    assert hooks.unregister_hook("post_tool_call", cb) is True
    assert hooks.invoke_hook("post_tool_call") == []


def test_decorator_form_and_listing() -> None:
    @hooks.register_hook("on_session_start", owner="demo")
    def started(**kw: Any) -> None:
        return None

    assert {
        "hook": "on_session_start",
        "callback": started.__qualname__,
        "owner": "demo",
    } in hooks.list_hooks()


def test_owner_scope_applies_to_hooks() -> None:
    from hermes_nb.tools import owner_scope

    with owner_scope("general/thing"):
        hooks.register_hook("post_tool_call", lambda **kw: None)
    assert hooks.list_hooks()[0]["owner"] == "general/thing"


def test_llm_context_joins_parts_with_blank_line() -> None:
    seen: dict[str, Any] = {}

    def memory(session_id, user_message, is_first_turn, conversation_history, **kw):
        seen.update(session_id=session_id, first=is_first_turn, platform=kw["platform"], model=kw["model"])
        conversation_history.append("mutated")  # must not leak into the caller's list
        return {"context": "Recalled: dark mode"}

    hooks.register_hook("pre_llm_call", memory)
    hooks.register_hook("pre_llm_call", lambda **kw: None)
    hooks.register_hook("pre_llm_call", lambda **kw: "   ")
    hooks.register_hook("pre_llm_call", lambda **kw: {"context": ""})
    hooks.register_hook("pre_llm_call", lambda **kw: "Policy: be nice")
    history = [{"role": "user", "content": "hi"}]
    text = hooks.llm_context("what now?", conversation_history=history, model="m1")
    assert text == "Recalled: dark mode\n\nPolicy: be nice"
    assert history == [{"role": "user", "content": "hi"}]
    assert seen == {"session_id": "notebook", "first": True, "platform": "jupyter", "model": "m1"}
    assert hooks.llm_context("x", is_first_turn=False) == "Recalled: dark mode\n\nPolicy: be nice"


def test_llm_context_empty_without_hooks() -> None:
    assert hooks.llm_context("hello") == ""


def test_session_start_and_end_fire_once_each() -> None:
    events: list[tuple[str, dict]] = []
    hooks.register_hook("on_session_start", lambda **kw: events.append(("start", kw)))
    hooks.register_hook("on_session_end", lambda **kw: events.append(("end", kw)))
    assert hooks.session_start(model="m") is True
    assert hooks.session_start() is False
    session_id = hooks.current_session_id()
    assert session_id and session_id.startswith("nb-")
    assert hooks.session_end() is True
    assert hooks.session_end() is False  # unload then atexit: only one end
    assert hooks.current_session_id() is None
    assert [e[0] for e in events] == ["start", "end"]
    start, end = events[0][1], events[1][1]
    assert start["session_id"] == session_id and start["platform"] == "jupyter" and start["model"] == "m"
    assert end["session_id"] == session_id and end["completed"] is True and end["interrupted"] is False
    assert hooks.session_start(session_id="again") is True  # reload of the extension: a new session
    assert hooks.current_session_id() == "again"


def test_install_session_end_atexit_once(monkeypatch: pytest.MonkeyPatch) -> None:
    registered: list[Any] = []
    monkeypatch.setattr(hooks.atexit, "register", registered.append)
    monkeypatch.setattr(hooks, "_atexit_installed", False)
    assert hooks.install_session_end_atexit() is True
    assert hooks.install_session_end_atexit() is False
    assert len(registered) == 1
    ended: list[dict] = []
    hooks.register_hook("on_session_end", lambda **kw: ended.append(kw))
    hooks.session_start()
    registered[0]()  # what the interpreter runs at shutdown
    registered[0]()
    assert len(ended) == 1
