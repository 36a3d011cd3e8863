"""Toolsets: static, plugin (registry), custom, includes with cycles, ``all``."""

from __future__ import annotations

import json

import pytest

from hermes_nb.errors import InvalidInputError
from hermes_nb.tools import registry, toolsets


def _noop(args: dict, **kw: object) -> str:
    return json.dumps({})


def _register(name: str, toolset: str) -> None:
    registry.register(name, toolset, {"name": name, "description": name}, _noop, owner="test-plugin")


def test_static_toolsets_are_hermes() -> None:
    assert toolsets.resolve_toolset("web") == ["web_search", "web_extract"]
    assert toolsets.resolve_toolset("search") == ["web_search"]
    assert toolsets.resolve_toolset("image_gen") == ["image_generate"]


def test_registry_tools_merge_into_static_and_plugin_toolsets() -> None:
    _register("web_map", "web")
    _register("weather", "weather")
    assert toolsets.get_toolset("web")["tools"] == ["web_search", "web_extract", "web_map"]  # type: ignore[index]  # toolset exists
    assert toolsets.get_toolset("weather") == {
        "description": "Plugin toolset: weather",
        "tools": ["weather"],
        "includes": [],
    }
    assert toolsets.get_toolset("web", include_registry=False)["tools"] == ["web_search", "web_extract"]  # type: ignore[index]  # toolset exists
    assert "weather" in toolsets.get_toolset_names()
    assert "weather" not in toolsets.get_toolset_names(include_registry=False)
    assert toolsets.get_toolset("nothing") is None


def test_includes_resolve_recursively_and_cycles_terminate() -> None:
    _register("alpha", "a_tools")
    toolsets.create_custom_toolset("ring_a", ["alpha"], includes=["ring_b"])
    toolsets.create_custom_toolset("ring_b", ["beta"], includes=["ring_a", "search"])
    toolsets.create_custom_toolset("self", ["gamma"], includes=["self"])
    assert toolsets.resolve_toolset("ring_a") == ["alpha", "beta", "web_search"]
    assert toolsets.resolve_toolset("ring_b") == ["beta", "alpha", "web_search"]
    assert toolsets.resolve_toolset("self") == ["gamma"]
    assert toolsets.resolve_toolset("unknown") == []


def test_all_and_star_mean_everything() -> None:
    _register("weather", "weather")
    everything = toolsets.resolve_toolset("all")
    assert everything == toolsets.resolve_toolset("*")
    assert {"web_search", "web_extract", "image_generate", "weather"} <= set(everything)
    assert len(everything) == len(set(everything))


def test_resolve_multiple_and_validate() -> None:
    assert toolsets.resolve_multiple_toolsets(["search", "web", "image_gen"]) == [
        "web_search",
        "web_extract",
        "image_generate",
    ]
    assert toolsets.validate_toolset("web") and toolsets.validate_toolset("all")
    assert not toolsets.validate_toolset("nope")


def test_create_custom_toolset_rules_and_info() -> None:
    created = toolsets.create_custom_toolset("research", ["web_search", "web_search"], includes=["image_gen"])
    assert created == {
        "description": "Custom toolset: research",
        "tools": ["web_search"],
        "includes": ["image_gen"],
    }
    info = toolsets.get_toolset_info("research")
    assert info is not None
    assert info["resolved_tools"] == ["web_search", "image_generate"] and info["tool_count"] == 2
    with pytest.raises(InvalidInputError, match="built-in"):
        toolsets.create_custom_toolset("web", ["x"])
    with pytest.raises(InvalidInputError):
        toolsets.create_custom_toolset("all", ["x"])
    assert toolsets.get_toolset_info("nope") is None


def test_static_table_is_not_mutated_by_callers() -> None:
    found = toolsets.get_toolset("web")
    assert found is not None
    found["tools"].append("junk")
    assert toolsets.TOOLSETS["web"]["tools"] == ["web_search", "web_extract"]


def test_reset_forgets_custom_toolsets() -> None:
    from hermes_nb import _state

    toolsets.create_custom_toolset("mine", ["web_search"])
    _state.reset_all()
    assert toolsets.get_toolset("mine") is None
